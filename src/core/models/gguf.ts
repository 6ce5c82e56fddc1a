// The gguf provider: an open-source model in a GGUF file, run in this process by llama.cpp
// through node-llama-cpp.
//
// - Loads on the first request (or `load()`), once for concurrent requests; a failed load
//   rejects every request waiting on it with `model_unavailable` and is tried again on the
//   next request (the file may have been pulled since). llama.cpp is never compiled at run
//   time: only the installed prebuilt binaries are used.
// - Fill-in-the-middle with the model's infill tokens when it has them (see gguf/prompt.ts for
//   the layout), otherwise a continuation of the prefix. Greedy decoding, token by token.
// - Keeps one context sequence (KV cache) per document, a few at most, least recently used
//   passing to a new document; a request evaluates only the prompt tokens its document's
//   sequence does not already hold (gguf/reuse.ts). Requests on one document run one after the
//   other; the engine aborts the superseded one, which stops at its next token.
// - Instruct mode: these are base code models, not chat models (capabilities.chat is false);
//   an instruct request is answered as a plain continuation of its prefix, without infill.
//   A code model continues an instruction written as a comment with code, which is the best a
//   base model can do; the engine sends instructions to chat providers when it has one.
import type { Token } from 'node-llama-cpp';
import type { CompletionProvider, ProviderCapabilities, ProviderRequest, ProviderResult } from '../completion/provider.ts';
import { LoomError } from '../errors.ts';
import { untilAborted } from '../abort.ts';
import { generate, type GenerationCounters } from './gguf/generate.ts';
import { disposeRuntime, listenToLlamaLogs, loadRuntime, type GgufGpu, type NodeLlamaCpp, type Runtime } from './gguf/load.ts';
import { buildPrompt, promptBudget, type FimLayout } from './gguf/prompt.ts';
import { SequencePool } from './gguf/sequences.ts';

export type { GgufGpu } from './gguf/load.ts';
export type { FimLayout } from './gguf/prompt.ts';
export { buildPrompt, promptBudget, resolveLayout } from './gguf/prompt.ts';

export interface GgufProviderOptions {
  /** Path of the .gguf file. */
  file: string;
  /** Reported as `model` in responses. */
  name: string;
  /** llama.cpp backend: `auto` picks the best one installed, `off` the CPU. Default `auto`. */
  gpu?: GgufGpu;
  /** Tokens per sequence (prompt + generated); capped at the model's training length. Default 4096. */
  contextSize?: number;
  /** CPU threads for evaluation. Default: the machine's math cores (llama.cpuMathCores). */
  threads?: number;
  /** Documents whose KV cache is kept at once, each a `contextSize` window of memory. Default 4. */
  sequences?: number;
  /** Infill prompt layout; `auto` (default) picks psm for models trained on it alone, spm otherwise. */
  fimLayout?: FimLayout | 'auto';
  /**
   * llama.cpp's warnings and errors once the model is loaded (they are dropped otherwise).
   * llama.cpp logs process-wide: this hears those of every gguf provider of the process.
   */
  onLog?: (level: string, message: string) => void;
  /** @internal Replaces `import('node-llama-cpp')` (tests of a missing runtime). */
  importRuntime?: () => Promise<NodeLlamaCpp>;
}

export interface GgufStats extends GenerationCounters {
  state: 'idle' | 'loading' | 'ready' | 'closed';
  /** Known once loaded. */
  contextSize?: number;
  sequences?: number;
  threads?: number;
  fim?: boolean;
  layout?: FimLayout;
  /** The backend llama.cpp runs on: false for the CPU. */
  gpu?: string | false;
}

interface Loaded {
  runtime: Runtime;
  pool: SequencePool<ReturnType<Runtime['context']['getSequence']>>;
  stopLogging: () => void;
}

/** Tokens before the cursor given to the detokenizer with the generated ones (leading spaces). */
const PRECEDING_TOKENS = 8;

export class GgufProvider implements CompletionProvider {
  readonly kind = 'gguf' as const;
  readonly name: string;
  private readonly options: Required<Pick<GgufProviderOptions, 'file' | 'gpu' | 'contextSize' | 'sequences' | 'fimLayout'>> & GgufProviderOptions;
  private loading: Promise<Loaded> | undefined;
  private loaded: Loaded | undefined;
  private closing: Promise<void> | undefined;
  private readonly closed = new AbortController();
  private readonly counters: GenerationCounters = {
    requests: 0,
    promptTokens: 0,
    promptTokensEvaluated: 0,
    promptTokensReused: 0,
    promptTokensShifted: 0,
    generatedTokens: 0,
  };

  constructor(options: GgufProviderOptions) {
    const contextSize = options.contextSize ?? 4096;
    const sequences = options.sequences ?? 4;
    if (!Number.isInteger(contextSize) || contextSize < 64) throw new RangeError(`contextSize must be a whole number of at least 64 tokens, not ${contextSize}`);
    if (!Number.isInteger(sequences) || sequences < 1) throw new RangeError(`sequences must be a whole number of at least 1, not ${sequences}`);
    if (options.threads !== undefined && (!Number.isInteger(options.threads) || options.threads < 1)) throw new RangeError(`threads must be a whole number of at least 1, not ${options.threads}`);
    this.name = options.name;
    this.options = { gpu: 'auto', fimLayout: 'auto', ...options, contextSize, sequences };
  }

  /**
   * `fim` is what the model's metadata says once it is loaded; before that it is `true`: a
   * model without infill tokens still answers a fill-in-the-middle request, by continuing the
   * prefix, while a provider that said `false` might never be sent the suffix.
   */
  get capabilities(): ProviderCapabilities {
    return { fim: this.loaded ? this.loaded.runtime.infill !== undefined : true, chat: false, tools: false };
  }

  /** Loads the model now rather than on the first request; rejects with LoomError `model_unavailable`. */
  async load(): Promise<void> {
    await this.ensureLoaded();
  }

  async complete(request: ProviderRequest): Promise<ProviderResult> {
    const { signal, unlink } = linkSignals(request.signal, this.closed.signal);
    try {
      return await this.run(request, signal);
    } finally {
      unlink();
    }
  }

  private async run(request: ProviderRequest, signal: AbortSignal): Promise<ProviderResult> {
    signal.throwIfAborted();
    const { runtime, pool } = await untilAborted(this.ensureLoaded(), signal);
    if (request.maxTokens < 1) return { text: '', tokens: 0 };

    const { model } = runtime;
    const tokenize = (text: string): Token[] => (text === '' ? [] : model.tokenize(text, false, 'trimLeadingSpace'));
    const fim = request.mode === 'fim' && runtime.infill !== undefined;
    const prefix = tokenize(request.prefix);
    const prompt = buildPrompt(
      { bos: runtime.bos, prefix, suffix: fim ? tokenize(request.suffix) : [], infill: fim ? runtime.infill : undefined, layout: runtime.layout },
      promptBudget(runtime.contextSize, request.maxTokens),
    );
    const precedingTokens = prefix.slice(prefix.length - Math.min(prompt.prefixTokens, PRECEDING_TOKENS));
    const job = pool.run(request.filePath ?? '', (sequence) =>
      generate(
        model,
        sequence,
        {
          prompt: prompt.tokens,
          maxTokens: Math.min(request.maxTokens, runtime.contextSize - prompt.tokens.length),
          stop: request.stop,
          signal,
          precedingTokens,
          allowShift: runtime.allowShift,
          batchSize: runtime.context.batchSize,
        },
        this.counters,
      ),
    );
    return untilAborted(job, signal);
  }

  /** Counters since the provider was made, and what the loaded model runs with. */
  stats(): GgufStats {
    const runtime = this.loaded?.runtime;
    const state = this.closing ? 'closed' : runtime ? 'ready' : this.loading ? 'loading' : 'idle';
    return {
      state,
      ...this.counters,
      ...(runtime && {
        contextSize: runtime.contextSize,
        sequences: runtime.sequences,
        threads: runtime.threads,
        fim: runtime.infill !== undefined,
        layout: runtime.layout,
        gpu: runtime.llama.gpu,
      }),
    };
  }

  /**
   * Stops the requests under way (they reject with `model_unavailable`), then frees the
   * context and the model. The llama.cpp runtime is shared by the process and stays (see
   * gguf/load.ts).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed.abort(new LoomError('model_unavailable', `The GGUF model ${this.name} was closed.`));
      const loaded = await this.loading?.catch(() => undefined);
      if (!loaded) return;
      loaded.stopLogging();
      await loaded.pool.dispose();
      await disposeRuntime(loaded.runtime);
      this.loaded = undefined;
    })();
    return this.closing;
  }

  private ensureLoaded(): Promise<Loaded> {
    if (this.closing) return Promise.reject(new LoomError('model_unavailable', `The GGUF model ${this.name} was closed.`));
    if (this.loading) return this.loading;
    const { file, gpu, contextSize, threads, sequences, fimLayout, onLog } = this.options;
    const loading = loadRuntime({
      file,
      gpu,
      contextSize,
      threads,
      sequences,
      fimLayout,
      importRuntime: this.options.importRuntime ?? (() => import('node-llama-cpp')),
    }).then(
      async (runtime) => {
        if (this.closing) {
          await disposeRuntime(runtime);
          throw new LoomError('model_unavailable', `The GGUF model ${this.name} was closed.`);
        }
        this.loaded = {
          runtime,
          pool: new SequencePool(runtime.sequences, () => runtime.context.getSequence()),
          stopLogging: onLog ? listenToLlamaLogs(onLog) : () => undefined,
        };
        return this.loaded;
      },
      (error: unknown) => {
        // Forget the failure: the next request tries again.
        if (this.loading === loading) this.loading = undefined;
        throw error;
      },
    );
    this.loading = loading;
    return loading;
  }
}

/**
 * A signal aborted when either is, with the first one's reason. Unlike AbortSignal.any, it
 * leaves nothing behind on the long-lived `closed` signal once `unlink` is called.
 */
function linkSignals(request: AbortSignal, closed: AbortSignal): { signal: AbortSignal; unlink: () => void } {
  if (request.aborted || closed.aborted) return { signal: request.aborted ? request : closed, unlink: () => undefined };
  const controller = new AbortController();
  const fromRequest = () => controller.abort(request.reason);
  const fromClosed = () => controller.abort(closed.reason);
  request.addEventListener('abort', fromRequest, { once: true });
  closed.addEventListener('abort', fromClosed, { once: true });
  return {
    signal: controller.signal,
    unlink: () => {
      request.removeEventListener('abort', fromRequest);
      closed.removeEventListener('abort', fromClosed);
    },
  };
}
