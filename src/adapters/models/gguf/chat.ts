// Chat with function calling on a GGUF model, through node-llama-cpp's LlamaChat: the
// conversation becomes its chat history (a call and its result are one history item), the
// tools its functions (whose parameters are constrained by a grammar made from their schema:
// see tool-schema.ts), and the turn stops when the model calls functions, which are returned,
// never run: the loop runs them and sends the results in the next request.
//
// A chat runs in a context of its own on the loaded model (the weights are shared; only a KV
// cache is added), created on the first chat: its window is sized for conversations and the
// documents' KV caches of tab completion are never evicted by one. See docs/models.md.
import type {
  ChatHistoryItem,
  ChatModelFunctionCall,
  ChatModelFunctions,
  ChatWrapper,
  LlamaChat,
  LlamaChatResponse,
  LlamaContext,
  LlamaContextSequence,
  LlamaModel,
} from 'node-llama-cpp';
import type { ChatMessage, ChatRequest, ChatResult, ChatTool, FinishReason, ParsedToolCall } from '../../../core/completion/chat.ts';
import { involvesTools, parseToolArguments } from '../../../core/completion/chat.ts';
import { newToolCallId } from '../../../core/completion/tool-text.ts';
import type { Clock } from '../../../core/clock.ts';
import { LoomError } from '../../../core/errors.ts';
import type { NodeLlamaCpp, Runtime } from './load.ts';
import { SequencePool } from './sequences.ts';
import { toGbnfSchema, withoutUnsetOptionals } from './tool-schema.ts';

export interface ChatRuntime {
  context: LlamaContext;
  pool: SequencePool<LlamaContextSequence>;
  wrapper: ChatWrapper;
  /** The model's file carries a chat template (tokenizer.chat_template): it is a chat model. */
  template: boolean;
  /** Tokens per conversation (prompt and answer). */
  contextSize: number;
  LlamaChat: typeof LlamaChat;
}

/** Counters of a provider's chat turns, shared by its requests. */
export interface ChatCounters {
  chatTurns: number;
  /** Tokens of the turns' prompts, as rendered by the chat template. */
  chatPromptTokens: number;
  /** Of those, the ones the model evaluated; the others were in the conversation's KV cache already. */
  chatPromptTokensEvaluated: number;
  chatCompletionTokens: number;
}

export interface ChatRuntimeOptions {
  /** Requested window per conversation; capped at the length the model was trained on. */
  contextSize: number;
  /** Conversations whose KV cache is kept at once. */
  sequences: number;
}

/** Whether the model's metadata has a chat template. */
export function hasChatTemplate(model: LlamaModel): boolean {
  const template = (model.fileInfo.metadata as { tokenizer?: { chat_template?: unknown } } | undefined)?.tokenizer?.chat_template;
  return typeof template === 'string' && template.trim() !== '';
}

/**
 * The chat wrapper of a model: from its chat template (node-llama-cpp's specialised wrapper
 * when the template renders the same, its Jinja template otherwise), or the general wrapper
 * for a model without one. node-llama-cpp's own guess for the latter goes by the file name and
 * the BOS token (any `<s>` model would get Llama 2's [INST] format), which a base model was not
 * trained on either: the general wrapper is the plainest form.
 */
export function chatWrapperOf(module: NodeLlamaCpp, model: LlamaModel): { wrapper: ChatWrapper; template: boolean } {
  const template = hasChatTemplate(model);
  return { wrapper: template ? module.resolveChatWrapper(model) : new module.GeneralChatWrapper(), template };
}

/** Creates the chat context on the loaded model; LoomError `model_unavailable` when it cannot be made. */
export async function createChatRuntime(module: NodeLlamaCpp, runtime: Runtime, name: string, options: ChatRuntimeOptions): Promise<ChatRuntime> {
  const { model } = runtime;
  const trained = model.trainContextSize;
  const contextSize = trained > 0 ? Math.min(options.contextSize, trained) : options.contextSize;
  const { wrapper, template } = chatWrapperOf(module, model);
  let context: LlamaContext;
  try {
    context = await model.createContext({ contextSize, sequences: options.sequences, threads: runtime.threads, failedCreationRemedy: false });
  } catch (error) {
    throw new LoomError(
      'model_unavailable',
      `The GGUF model ${name} cannot chat: its chat context of ${contextSize} tokens could not be created (${error instanceof Error ? error.message : String(error)}).`,
      'Free memory; the chat window is gguf.contextSize or 8192 tokens, whichever is larger.',
    );
  }
  return {
    context,
    pool: new SequencePool(options.sequences, () => context.getSequence()),
    wrapper,
    template,
    contextSize: context.contextSize,
    LlamaChat: module.LlamaChat,
  };
}

export async function disposeChatRuntime(chat: ChatRuntime): Promise<void> {
  await chat.pool.dispose().catch(() => undefined);
  await chat.context.dispose().catch(() => undefined);
}

/**
 * The conversation as node-llama-cpp's chat history: an assistant turn is a model response
 * holding its text and its calls, each call with the result of the tool message that answers
 * it (node-llama-cpp renders a call and its result together).
 */
export function toChatHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const results = new Map<string, string>();
  for (const message of messages) if (message.role === 'tool') results.set(message.toolCallId, message.content);
  const history: ChatHistoryItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        history.push({ type: 'system', text: message.content });
        break;
      case 'user':
        history.push({ type: 'user', text: message.content });
        break;
      case 'assistant': {
        const response: (string | ChatModelFunctionCall)[] = message.content === '' ? [] : [message.content];
        for (const call of message.toolCalls ?? []) {
          const parsed = parseToolArguments(call.argumentsText);
          response.push({ type: 'functionCall', name: call.name, params: parsed.arguments ?? call.argumentsText, result: results.get(call.id) ?? '' });
        }
        history.push({ type: 'model', response });
        break;
      }
      case 'tool':
        // Carried by the call it answers.
        break;
    }
  }
  return history;
}

/** The tools as node-llama-cpp's functions, their parameters as grammar schemas. */
export function toFunctions(tools: readonly ChatTool[]): ChatModelFunctions {
  return Object.fromEntries(tools.map((tool) => [tool.name, { description: tool.description, params: toGbnfSchema(tool.parameters) }]));
}

/**
 * Tokens of the window kept free beyond the answer: node-llama-cpp adds the chat format's own
 * tokens around function calls as it goes (not counted as generated), and a window that fills
 * up mid-answer would make it drop earlier turns.
 */
const WINDOW_RESERVE = 64;

export interface ChatTurnOptions {
  request: ChatRequest;
  signal: AbortSignal;
  /** Times the turn, from its start on the sequence (a model's loading and a wait for the sequence are not the model's speed). */
  clock: Clock;
  /** The provider's model name, reported in the result. */
  name: string;
  counters?: ChatCounters;
  /**
   * Sees the main text as it grows; returns true to end the turn there (the result keeps what
   * was generated). Instructions use it for the engine's stop rule.
   */
  onText?: (text: string) => boolean;
}

/**
 * One turn on one sequence. The prompt must leave room for an answer in the chat window
 * (LoomError `bad_request` otherwise); `maxTokens` is capped to that room. A native failure
 * clears the sequence and is LoomError `model_failed`.
 */
export async function chatTurn(chat: ChatRuntime, sequence: LlamaContextSequence, options: ChatTurnOptions): Promise<ChatResult> {
  const { request, signal, clock } = options;
  signal.throwIfAborted();
  const started = clock.now();
  const model = sequence.model;
  const tools = request.tools ?? [];
  const functions = tools.length ? toFunctions(tools) : undefined;
  const history = toChatHistory(request.messages);

  // The prompt as the wrapper renders it (the model's turn opened): what the model reads.
  const opened = history.at(-1)?.type === 'model' ? history : [...history, { type: 'model' as const, response: [] }];
  const promptTokens = chat.wrapper.generateContextState({ chatHistory: opened, availableFunctions: functions }).contextText.tokenize(model.tokenizer).length;
  const room = chat.contextSize - promptTokens - 1 - WINDOW_RESERVE;
  if (room < 1) {
    throw new LoomError(
      'bad_request',
      `The conversation is ${promptTokens} tokens long; the chat window of the GGUF model ${options.name} holds ${chat.contextSize}, with room for the answer.`,
      'Shorten the conversation (summarise or drop earlier tool results); the chat window is gguf.contextSize or 8192 tokens, whichever is larger, up to what the model was trained on.',
    );
  }

  const llamaChat = new chat.LlamaChat({ contextSequence: sequence, chatWrapper: chat.wrapper });
  const meter = sequence.tokenMeter.getState();
  let firstAt: number | undefined;
  const first = () => (firstAt ??= clock.now());
  // Ending the turn early (onText) aborts this one; the caller's signal aborts it too.
  const ending = new AbortController();
  const onAbort = () => ending.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let text = '';
  let response: LlamaChatResponse<ChatModelFunctions> | undefined;
  let invalidCall: { message: string; callText: string } | undefined;
  try {
    response = await llamaChat.generateResponse(history, {
      ...(functions ? { functions } : {}),
      maxTokens: Math.min(request.maxTokens, room),
      temperature: request.temperature ?? 0,
      signal: ending.signal,
      // Returns what was generated when `onText` ends the turn; a caller's abort is thrown below.
      stopOnAbortSignal: true,
      onResponseChunk: (chunk) => {
        if (chunk.tokens.length) first();
        if (chunk.type !== undefined || !options.onText) return;
        text += chunk.text;
        if (!ending.signal.aborted && options.onText(text)) ending.abort(new Error('ended by onText'));
      },
      onFunctionCallParamsChunk: first,
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (isInvalidCall(error)) invalidCall = { message: error.message, callText: error.callText };
    else if (isWindowFull(error)) {
      throw new LoomError(
        'bad_request',
        `The conversation outgrew the chat window of the GGUF model ${options.name} (${chat.contextSize} tokens) while the model answered.`,
        'Shorten the conversation (summarise or drop earlier tool results) or ask for fewer tokens; the chat window is gguf.contextSize or 8192 tokens, whichever is larger.',
      );
    } else if (!ending.signal.aborted) {
      // The sequence's state is unknown after a native failure: start it afresh next time.
      await sequence
        .clearHistory()
        .catch(() => sequence.dispose())
        .catch(() => undefined);
      throw new LoomError('model_failed', `The GGUF model ${options.name} failed while chatting: ${error instanceof Error ? error.message : String(error)}`);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    llamaChat.dispose({ disposeSequence: false });
    const used = sequence.tokenMeter.diff(meter);
    if (options.counters) {
      options.counters.chatTurns++;
      options.counters.chatPromptTokens += promptTokens;
      // The prompt's last token is metered as output: its logits give the first generated one.
      options.counters.chatPromptTokensEvaluated += used.usedInputTokens + Math.min(1, used.usedOutputTokens);
      options.counters.chatCompletionTokens += used.usedOutputTokens;
    }
  }
  if (signal.aborted) throw signal.reason;

  const completionTokens = sequence.tokenMeter.diff(meter).usedOutputTokens;
  const toolCalls = invalidCall
    ? [{ id: newToolCallId(), name: '', argumentsText: invalidCall.callText, error: invalidCall.message }]
    : toolCallsOf(response, tools);
  return {
    text: response?.response ?? text,
    toolCalls,
    finishReason: invalidCall ? 'tool_calls' : finishReasonOf(response),
    usage: { promptTokens, completionTokens, source: 'tokenizer' },
    toolMode: involvesTools(request) ? 'native' : 'none',
    timing: { totalMs: clock.now() - started, ...(firstAt !== undefined ? { firstTokenMs: firstAt - started } : {}) },
    model: options.name,
  };
}

function toolCallsOf(response: LlamaChatResponse<ChatModelFunctions> | undefined, tools: readonly ChatTool[]): ParsedToolCall[] {
  return (response?.functionCalls ?? []).map((call) => {
    const tool = tools.find((candidate) => candidate.name === call.functionName);
    const written = call.params ?? {};
    const args = tool ? withoutUnsetOptionals(written, tool.parameters) : written;
    return { id: newToolCallId(), name: call.functionName, argumentsText: JSON.stringify(written), arguments: args as Record<string, unknown> };
  });
}

function finishReasonOf(response: LlamaChatResponse<ChatModelFunctions> | undefined): FinishReason {
  if (!response) return 'stop';
  switch (response.metadata.stopReason) {
    case 'functionCalls':
      return 'tool_calls';
    case 'maxTokens':
      return (response.functionCalls?.length ?? 0) > 0 ? 'tool_calls' : 'length';
    default:
      return 'stop';
  }
}

/** node-llama-cpp found no way to shift the window: the conversation does not fit it. */
function isWindowFull(error: unknown): boolean {
  return error instanceof Error && /context shift strategy did not return a history that fits|context size is too small/i.test(error.message);
}

/** node-llama-cpp's LlamaFunctionCallValidationError (not exported): a call that does not fit its schema. */
function isInvalidCall(error: unknown): error is Error & { callText: string } {
  return error instanceof Error && typeof (error as { callText?: unknown }).callText === 'string' && 'functions' in error;
}
