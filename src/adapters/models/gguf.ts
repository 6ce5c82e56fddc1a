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
// - Chat (agents): `chat()` runs a conversation with tool calls through node-llama-cpp's
//   LlamaChat, in a context of its own created on the first chat (gguf/chat.ts). A model whose
//   file has a chat template is a chat model (capabilities.chat and .tools, once loaded); one
//   without still chats, in node-llama-cpp's general format, as well as a base model can.
// - Instruct mode: a chat model answers the instruction as a chat turn; a base code model (the
//   catalog's) answers it as a plain continuation of its prefix, without infill: a code model
//   continues an instruction written as a comment with code, which is the best it can do.
import type { Token } from 'node-llama-cpp';
import type { CompletionProvider, ProviderCapabilities, ProviderRequest, ProviderResult } from '../../core/completion/provider.ts';
import { checkChatRequest, steadyClock, type ChatRequest, type ChatResult } from '../../core/completion/chat.ts';
import type { Clock } from '../../core/clock.ts';
import { LoomError } from '../../core/errors.ts';
import { untilAborted } from '../../core/abort.ts';
import { chatTurn, createChatRuntime, disposeChatRuntime, hasChatTemplate, type ChatCounters, type ChatRuntime } from './gguf/chat.ts';
import { instructionMessages, streamingView, stripMarkdownFences } from './openai.ts';
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
   * Tokens per conversation (prompt and answer) of the chat context; capped at the model's
   * training length. Default: `contextSize` or 8192, whichever is larger.
   */
  chatContextSize?: number;
  /** Conversations whose KV cache the chat context keeps at once, each a window of memory. Default 1. */
  chatSequences?: number;
  /** Times chat turns (`ChatResult.timing`); a test's ManualClock. Default: a steady clock. */
  chatClock?: Clock;
  /**
   * llama.cpp's warnings and errors once the model is loaded (they are dropped otherwise).
   * llama.cpp logs process-wide: this hears those of every gguf provider of the process.
   */
  onLog?: (level: string, message: string) => void;
  /** @internal Replaces `import('node-llama-cpp')` (tests of a missing runtime). */
  importRuntime?: () => Promise<NodeLlamaCpp>;
}

export interface GgufStats extends GenerationCounters, ChatCounters {
  state: 'idle' | 'loading' | 'ready' | 'closed';
  /** Known once loaded. */
  contextSize?: number;
  sequences?: number;
  threads?: number;
  fim?: boolean;
  layout?: FimLayout;
  /** The backend llama.cpp runs on: false for the CPU. */
  gpu?: string | false;
  /** The model's file has a chat template (known once loaded). */
  chat?: boolean;
  /** The chat context's window, once a chat has created it. */
  chatContextSize?: number;
}

interface Loaded {
  runtime: Runtime;
  pool: SequencePool<ReturnType<Runtime['context']['getSequence']>>;
  stopLogging: () => void;
  /** The model's file has a chat template. */
  template: boolean;
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
  private chatting: Promise<ChatRuntime> | undefined;
  private chatRuntime: ChatRuntime | undefined;
  private readonly closed = new AbortController();
  private readonly counters: GenerationCounters = {
    requests: 0,
    promptTokens: 0,
    promptTokensEvaluated: 0,
    promptTokensReused: 0,
    promptTokensShifted: 0,
    generatedTokens: 0,
  };
  private readonly chatCounters: ChatCounters = { chatTurns: 0, chatPromptTokens: 0, chatPromptTokensEvaluated: 0, chatCompletionTokens: 0 };

  constructor(options: GgufProviderOptions) {
    const contextSize = options.contextSize ?? 4096;
    const sequences = options.sequences ?? 4;
    if (!Number.isInteger(contextSize) || contextSize < 64)
      throw new RangeError(`contextSize must be a whole number of at least 64 tokens, not ${contextSize}`);
    if (!Number.isInteger(sequences) || sequences < 1) throw new RangeError(`sequences must be a whole number of at least 1, not ${sequences}`);
    if (options.threads !== undefined && (!Number.isInteger(options.threads) || options.threads < 1))
      throw new RangeError(`threads must be a whole number of at least 1, not ${options.threads}`);
    if (options.chatContextSize !== undefined && (!Number.isInteger(options.chatContextSize) || options.chatContextSize < 64))
      throw new RangeError(`chatContextSize must be a whole number of at least 64 tokens, not ${options.chatContextSize}`);
    if (options.chatSequences !== undefined && (!Number.isInteger(options.chatSequences) || options.chatSequences < 1))
      throw new RangeError(`chatSequences must be a whole number of at least 1, not ${options.chatSequences}`);
    this.name = options.name;
    this.options = { gpu: 'auto', fimLayout: 'auto', ...options, contextSize, sequences };
  }

  /**
   * `fim` is what the model's metadata says once it is loaded; before that it is `true`: a
   * model without infill tokens still answers a fill-in-the-middle request, by continuing the
   * prefix, while a provider that said `false` might never be sent the suffix.
   */
  get capabilities(): ProviderCapabilities {
    // A chat template says the model was trained for conversations; node-llama-cpp's function
    // calling works with any of them (the calls' grammar comes from the tools' schemas).
    const chat = this.loaded?.template ?? false;
    return { fim: this.loaded ? this.loaded.runtime.infill !== undefined : true, chat, tools: chat };
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
    const loaded = await untilAborted(this.ensureLoaded(), signal);
    const { runtime, pool } = loaded;
    if (request.maxTokens < 1) return { text: '', tokens: 0 };
    if (request.mode === 'instruct' && loaded.template) return this.instruct(request, signal, loaded);

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

  /**
   * The model's next turn in a conversation, tools called through node-llama-cpp's function
   * calling (their arguments are constrained by a grammar made from their schemas) and
   * returned, never run. Loads the model and creates the chat context on first use; turns of
   * one `conversation` reuse its KV cache. Rejects like `complete`, and with LoomError
   * `bad_request` for a conversation the chat window cannot hold.
   */
  async chat(request: ChatRequest): Promise<ChatResult> {
    request.signal.throwIfAborted();
    checkChatRequest(request);
    const clock = this.options.chatClock ?? steadyClock;
    const { signal, unlink } = linkSignals(request.signal, this.closed.signal);
    try {
      signal.throwIfAborted();
      const loaded = await untilAborted(this.ensureLoaded(), signal);
      const chat = await untilAborted(this.ensureChat(loaded), signal);
      const job = chat.pool.run(request.conversation ?? '', (sequence) =>
        chatTurn(chat, sequence, { request, signal, clock, name: this.name, counters: this.chatCounters }),
      );
      return await untilAborted(job, signal);
    } finally {
      unlink();
    }
  }

  /**
   * An instruction to a chat model, as a chat turn: the instruction and its file (the openai
   * provider's messages), the answer's markdown fence dropped, the engine's stop rule applied
   * as it streams. Each document keeps its own slot in the chat context's pool.
   */
  private async instruct(request: ProviderRequest, signal: AbortSignal, loaded: Loaded): Promise<ProviderResult> {
    const chat = await untilAborted(this.ensureChat(loaded), signal);
    let kept: string | undefined;
    let stopFailed: { error: unknown } | undefined;
    const onText = (text: string): boolean => {
      try {
        const view = streamingView(text);
        const cut = request.stop(view.text);
        if (cut === undefined && !view.closed) return false;
        kept = cut !== undefined ? view.text.slice(0, cut) : view.text;
      } catch (error) {
        stopFailed = { error };
      }
      return true;
    };
    const turn: ChatRequest = { messages: instructionMessages(request), maxTokens: request.maxTokens, signal };
    const clock = this.options.chatClock ?? steadyClock;
    const job = chat.pool.run(`instruct\u0000${request.filePath ?? ''}`, (sequence) =>
      chatTurn(chat, sequence, { request: turn, signal, clock, name: this.name, onText, counters: this.chatCounters }),
    );
    const result = await untilAborted(job, signal);
    // The engine's own callback failed: its error, as it was.
    if (stopFailed) throw stopFailed.error;
    return { text: kept ?? stripMarkdownFences(result.text), tokens: result.usage.completionTokens };
  }

  /** Counters since the provider was made, and what the loaded model runs with. */
  stats(): GgufStats {
    const runtime = this.loaded?.runtime;
    const state = this.closing ? 'closed' : runtime ? 'ready' : this.loading ? 'loading' : 'idle';
    return {
      state,
      ...this.counters,
      ...this.chatCounters,
      ...(runtime && {
        contextSize: runtime.contextSize,
        sequences: runtime.sequences,
        threads: runtime.threads,
        fim: runtime.infill !== undefined,
        layout: runtime.layout,
        gpu: runtime.llama.gpu,
        chat: this.loaded?.template,
      }),
      ...(this.chatRuntime && { chatContextSize: this.chatRuntime.contextSize }),
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
      const chat = await this.chatting?.catch(() => undefined);
      if (chat) await disposeChatRuntime(chat);
      this.chatRuntime = undefined;
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
          template: hasChatTemplate(runtime.model),
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

  /**
   * The chat context, created once on the loaded model for concurrent callers; a failure is
   * forgotten, so that the next chat tries again.
   */
  private ensureChat(loaded: Loaded): Promise<ChatRuntime> {
    if (this.closing) return Promise.reject(new LoomError('model_unavailable', `The GGUF model ${this.name} was closed.`));
    if (this.chatting) return this.chatting;
    const { contextSize, chatContextSize, chatSequences } = this.options;
    const chatting = (this.options.importRuntime ?? (() => import('node-llama-cpp')))()
      .then((module) =>
        createChatRuntime(module, loaded.runtime, this.name, { contextSize: chatContextSize ?? Math.max(contextSize, 8192), sequences: chatSequences ?? 1 }),
      )
      .then(
        (chat) => {
          this.chatRuntime = chat;
          return chat;
        },
        (error: unknown) => {
          if (this.chatting === chatting) this.chatting = undefined;
          throw error;
        },
      );
    this.chatting = chatting;
    return chatting;
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
