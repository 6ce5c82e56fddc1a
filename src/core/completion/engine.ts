// The completion engine: one path for the hosted tabComplete, the local /api/ai/complete and
// `loom complete`. It picks the provider, cuts the text to the budgets, answers from the
// type-ahead cache when it can, cancels what a newer request supersedes, stops runaway
// requests at the time limit and applies the stop rules. Providers only generate text.
import { performance } from 'node:perf_hooks';
import { LoomError } from '../errors.ts';
import { untilAborted } from '../abort.ts';
import { cutPrefix, cutSuffix } from './budget.ts';
import type { ProviderSet } from './providers.ts';
import { stopRules, type StopRules } from './stop-rules.ts';
import { TypeAheadCache } from './type-ahead.ts';

export interface EngineLimits {
  timeoutMs: number;
  maxTokens: number;
  prefixChars: number;
  suffixChars: number;
}

export interface CompletionInput {
  prefix: string;
  suffix: string;
  language: string;
  filePath?: string;
  /** A provider's name or kind; the configured default when absent. */
  model?: string;
  /** `instruct` takes `prefix` as an instruction (chat-capable models only). Default `fim`. */
  mode?: 'fim' | 'instruct';
  maxTokens?: number;
  /**
   * Who is asking (a user, a client, the desktop app). Keys the type-ahead cache and
   * supersession, so one caller never sees another's text nor cancels another's request.
   */
  caller: string;
  /** Aborted when the caller goes away. */
  signal?: AbortSignal;
}

export interface CompletionOutput {
  completion: string;
  tokens: number;
  /** Server-side time from receiving the request to the answer, in whole milliseconds. */
  latencyMs: number;
  model: string;
  /** Answered from the type-ahead cache, without a model call. */
  cached: boolean;
  /** A newer request for the same document replaced this one; the completion is empty. */
  superseded: boolean;
}

class Superseded extends Error {
  override name = 'Superseded';
}

export class CompletionEngine {
  private readonly typeAhead = new TypeAheadCache();
  private readonly inFlight = new Map<string, AbortController>();

  constructor(
    readonly providers: ProviderSet,
    private readonly limits: () => EngineLimits,
  ) {}

  async complete(input: CompletionInput): Promise<CompletionOutput> {
    const started = performance.now();
    const provider = this.providers.select(input.model);
    const mode = input.mode ?? 'fim';
    if (mode === 'instruct' && !provider.capabilities.chat) {
      throw new LoomError(
        'bad_request',
        `The model ${provider.name} completes code but cannot follow instructions.`,
        `Name a chat-capable model (${this.providers.chatModels().join(', ') || 'configure an openai provider'}), or send code to continue.`,
      );
    }
    const key = `${input.caller}\u0000${input.filePath ?? ''}`;
    // Without a document to tie them to, requests are independent and none supersedes another.
    const supersedes = input.filePath !== undefined;
    const done = (completion: string, tokens: number, flags: { cached?: boolean; superseded?: boolean } = {}): CompletionOutput => ({
      completion,
      tokens,
      latencyMs: Math.round(performance.now() - started),
      model: provider.name,
      cached: flags.cached ?? false,
      superseded: flags.superseded ?? false,
    });

    if (mode === 'fim') {
      const rest = this.typeAhead.lookup(key, provider.name, input.prefix, input.suffix);
      if (rest !== undefined) {
        if (supersedes) this.inFlight.get(key)?.abort(new Superseded());
        return done(rest.completion, rest.tokens, { cached: true });
      }
    }

    const limits = this.limits();
    const controller = new AbortController();
    if (supersedes) {
      this.inFlight.get(key)?.abort(new Superseded());
      this.inFlight.set(key, controller);
    }
    const timer = setTimeout(
      () =>
        controller.abort(
          new LoomError(
            'model_timeout',
            `The model ${provider.name} did not finish within ${limits.timeoutMs} ms; it was stopped.`,
            'Try again, pick a smaller model, or raise completion.timeoutMs.',
          ),
        ),
      limits.timeoutMs,
    );
    const onCallerGone = () => controller.abort(new Superseded('the caller went away'));
    input.signal?.addEventListener('abort', onCallerGone, { once: true });
    try {
      const budget = provider.contextBudget ?? limits;
      const prefix = cutPrefix(input.prefix, budget.prefixChars);
      const suffix = cutSuffix(input.suffix, budget.suffixChars);
      const rules: StopRules = mode === 'fim' ? stopRules({ prefix, suffix }) : { multiline: true, stop: () => undefined, finish: (text) => text.trim() };
      const result = await untilAborted(
        provider.complete({
          prefix,
          suffix,
          language: input.language,
          filePath: input.filePath,
          mode,
          maxTokens: Math.min(input.maxTokens ?? limits.maxTokens, limits.maxTokens),
          stop: rules.stop,
          signal: controller.signal,
        }),
        controller.signal,
      );
      const completion = rules.finish(result.text);
      const tokens = completion === result.text ? result.tokens : Math.round((result.tokens * completion.length) / Math.max(1, result.text.length));
      if (mode === 'fim') this.typeAhead.remember(key, { model: provider.name, prefix: input.prefix, suffix: input.suffix, completion, tokens });
      return done(completion, tokens);
    } catch (error) {
      const reason = controller.signal.aborted ? controller.signal.reason : error;
      if (reason instanceof Superseded) return done('', 0, { superseded: true });
      throw reason;
    } finally {
      clearTimeout(timer);
      input.signal?.removeEventListener('abort', onCallerGone);
      if (supersedes && this.inFlight.get(key) === controller) this.inFlight.delete(key);
    }
  }

  /** Names of the models served, the default first. */
  models(): string[] {
    return this.providers.names();
  }

  close(): Promise<void> {
    for (const controller of this.inFlight.values()) controller.abort(new Superseded('shutting down'));
    return this.providers.close();
  }
}
