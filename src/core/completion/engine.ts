// The completion engine: one path for the hosted tabComplete, the local /api/ai/complete and
// `loom complete`. It picks the provider, cuts the text to the budgets, answers from the
// type-ahead cache when it can, cancels what a newer request supersedes, stops runaway
// requests at the time limit and applies the stop rules. Providers only generate text.
import { performance } from 'node:perf_hooks';
import { LoomError } from '../errors.ts';
import { untilAborted } from '../abort.ts';
import { cutPrefix, cutSuffix } from './budget.ts';
import { CONTEXT_SHARE, readsCrossFileContext, type CrossFileContext } from './cross-file.ts';
import type { ProviderSet } from './providers.ts';
import { stopRules, type StopRules } from './stop-rules.ts';
import type { Continuation } from './suffix-overlap.ts';
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
  /** What to insert at the cursor: it never repeats the text after the cursor (suffix-overlap.ts). */
  completion: string;
  /**
   * What the model wrote past characters the line already has after the cursor (an editor's
   * auto-closed `'` or `)`): `text` goes after the first `skip` characters of the suffix.
   */
  continuation?: Continuation;
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

  /**
   * `crossFile` (the local server's, over its code index) gives the model providers the
   * definitions in other files of the identifiers around the cursor (cross-file.ts).
   */
  constructor(
    readonly providers: ProviderSet,
    private readonly limits: () => EngineLimits,
    private readonly crossFile?: CrossFileContext,
  ) {}

  async complete(input: CompletionInput): Promise<CompletionOutput> {
    const started = performance.now();
    const provider = this.providers.select(input.model);
    const mode = input.mode ?? 'fim';
    if (mode === 'instruct' && !provider.capabilities.chat) {
      throw new LoomError(
        'bad_request',
        `The model ${provider.name} completes code but cannot follow instructions.`,
        this.providers.explain(
          `Name a chat-capable model (${this.providers.chatModels().join(', ') || 'set openai.baseUrl and openai.model for one'}), or send code to continue.`,
        ),
      );
    }
    const key = `${input.caller}\u0000${input.filePath ?? ''}`;
    // Without a document to tie them to, requests are independent and none supersedes another.
    const supersedes = input.filePath !== undefined;
    const done = (
      fitted: { completion: string; continuation?: Continuation },
      tokens: number,
      flags: { cached?: boolean; superseded?: boolean } = {},
    ): CompletionOutput => ({
      completion: fitted.completion,
      ...(fitted.continuation && { continuation: fitted.continuation }),
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
        return done(rest, rest.tokens, { cached: true });
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
            this.providers.explain('Try again, pick a smaller model, or raise completion.timeoutMs.'),
          ),
        ),
      limits.timeoutMs,
    );
    const onCallerGone = () => controller.abort(new Superseded('the caller went away'));
    input.signal?.addEventListener('abort', onCallerGone, { once: true });
    try {
      const budget = provider.contextBudget ?? limits;
      const suffix = cutSuffix(input.suffix, budget.suffixChars);
      // The definitions from other files take at most a share of the prefix's budget, and the
      // lines nearest the cursor the rest: the prompt is no longer than without them.
      const context =
        mode === 'fim' && this.crossFile && readsCrossFileContext(provider)
          ? (
              await this.crossFile.select(
                { prefix: input.prefix, suffix: input.suffix, filePath: input.filePath, language: input.language },
                Math.floor(budget.prefixChars * CONTEXT_SHARE),
                controller.signal,
              )
            ).text
          : '';
      const prefix = cutPrefix(input.prefix, budget.prefixChars - context.length);
      const rules: StopRules =
        mode === 'fim' ? stopRules({ prefix, suffix }) : { multiline: true, stop: () => undefined, finish: (text) => ({ completion: text.trim() }) };
      const result = await untilAborted(
        provider.complete({
          prefix: context + prefix,
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
      const fitted = rules.finish(result.text);
      const shown = fitted.completion + (fitted.continuation?.text ?? '');
      const tokens = shown === result.text ? result.tokens : Math.round((result.tokens * shown.length) / Math.max(1, result.text.length));
      if (mode === 'fim') this.typeAhead.remember(key, { model: provider.name, prefix: input.prefix, suffix: input.suffix, ...fitted, tokens });
      return done(fitted, tokens);
    } catch (error) {
      const reason = controller.signal.aborted ? controller.signal.reason : error;
      if (reason instanceof Superseded) return done({ completion: '' }, 0, { superseded: true });
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
