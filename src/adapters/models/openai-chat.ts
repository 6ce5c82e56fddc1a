// The openai provider's chat with tools, the parts that do not touch the network: the
// `/chat/completions` body for a conversation (native tools, or tools described in the system
// prompt for a server that refuses them), the answer assembled from streamed chunks or one JSON
// body (text, tool calls whose arguments arrive in pieces, finish reason, usage), and which
// errors mean "this server does not do tools".
import type { ChatMessage, ChatRequest, ChatResult, FinishReason, ParsedToolCall } from '../../core/completion/chat.ts';
import { involvesTools, MAX_ARGUMENT_DEPTH, MAX_TOOL_CALLS, nestsDeeperThan, parseToolArguments, TOO_DEEP } from '../../core/completion/chat.ts';
import { describeToolsInText, newToolCallId, toolCallText, toolResultText } from '../../core/completion/tool-text.ts';

type Json = Record<string, unknown>;

/** How the tools reach the server: `native` (`tools`), `text` (in the system prompt) or `none` (no tools). */
export type ToolMode = ChatResult['toolMode'];

/** The `/chat/completions` body for a conversation. */
export function chatBody(request: ChatRequest, model: string, options: { toolMode: ToolMode; streamUsage: boolean }): Json {
  const messages = options.toolMode === 'text' ? textMessages(request) : nativeMessages(request.messages);
  const body: Json = { model, messages };
  if (options.toolMode === 'native' && request.tools?.length) {
    body.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
  }
  body.max_tokens = request.maxTokens;
  body.temperature = request.temperature ?? 0;
  body.stream = true;
  // Without it an OpenAI stream carries no token counts.
  if (options.streamUsage) body.stream_options = { include_usage: true };
  return body;
}

function nativeMessages(messages: readonly ChatMessage[]): Json[] {
  return messages.map((message) => {
    switch (message.role) {
      case 'assistant':
        if (!message.toolCalls?.length) return { role: 'assistant', content: message.content };
        return {
          role: 'assistant',
          content: message.content,
          tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.argumentsText } })),
        };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
      default:
        return { role: message.role, content: message.content };
    }
  });
}

/**
 * The conversation for a server without tools: the tools described after the system prompt,
 * earlier calls written in the text form in their assistant turn, and the results of one turn
 * gathered in one user turn (a server without tools may not know the `tool` role either).
 */
function textMessages(request: ChatRequest): Json[] {
  const out: Json[] = [];
  const tools = request.tools?.length ? describeToolsInText(request.tools) : undefined;
  const messages = request.messages;
  if (tools && messages[0]?.role !== 'system') out.push({ role: 'system', content: tools });
  const names = new Map<string, string>();
  let results: string[] = [];
  const flush = () => {
    if (results.length) out.push({ role: 'user', content: results.join('\n') });
    results = [];
  };
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      results.push(toolResultText(names.get(message.toolCallId) ?? 'tool', message.content));
      continue;
    }
    flush();
    if (message.role === 'system') {
      out.push({ role: 'system', content: index === 0 && tools ? `${message.content}\n\n${tools}` : message.content });
    } else if (message.role === 'assistant' && message.toolCalls?.length) {
      for (const call of message.toolCalls) names.set(call.id, call.name);
      out.push({ role: 'assistant', content: [message.content, ...message.toolCalls.map(toolCallText)].filter((part) => part !== '').join('\n') });
    } else {
      out.push({ role: message.role, content: message.content });
    }
  }
  flush();
  return out;
}

const REFUSAL_STATUSES = new Set([400, 422, 501]);
/** Statuses that say something other than "not supported", whatever their message. */
const NOT_REFUSALS = new Set([401, 403, 404, 408, 409, 413, 429, 502, 503, 504]);
const MENTIONS_TOOLS = /\btools?\b|tool[ _]?choice|tool[ _]?calls?|function[ _-]?call|\bfunctions\b/i;
const SAYS_UNSUPPORTED =
  /not support|unsupported|does ?n[o']t support|not (?:enabled|available|allowed|implemented)|requires?\b|--jinja|unrecogni[sz]ed|unknown (?:field|param|argument)|extra (?:inputs|fields)/i;

/**
 * Whether an error answer to a request with tools may mean "no tools here": 400, 422 or 501
 * (vLLM without --enable-auto-tool-choice, strict validators, servers that do not implement
 * them), or another error status whose message says tools or function calling are not
 * supported (Ollama's "does not support tools", llama.cpp's 500 "tools param requires --jinja
 * flag"); never a refused key, a missing model, a rate limit or a gateway's error, nor a
 * server's failure to read the model's own call. The provider then asks again without tools,
 * and remembers the refusal only when that works.
 */
export function mayRefuseTools(status: number, message: string): boolean {
  if (NOT_REFUSALS.has(status) || status < 400) return false;
  return REFUSAL_STATUSES.has(status) || (MENTIONS_TOOLS.test(message) && SAYS_UNSUPPORTED.test(message));
}

/** A server that refuses `stream_options` (it predates usage in streams): ask without it. */
export function refusesStreamOptions(status: number, message: string): boolean {
  return (status === 400 || status === 422) && /stream_options|include_usage/i.test(message);
}

/**
 * How much one answer of an OpenAI-compatible server may be. Generous for any real model (the
 * longest answers today are some 128k tokens, about 0.5 MB of text); a server that goes past
 * them runs on without end, or is not a model at all. docs/models.md lists them.
 */
export interface AnswerLimits {
  /** One SSE event (its `data:` lines together), or a body that does not stream, in bytes. */
  eventBytes: number;
  /** Every byte of one streamed answer, events and comments alike. */
  streamBytes: number;
  /** The answer's text and tool-call arguments together, in characters. */
  answerChars: number;
  /** Tool calls in one answer. */
  toolCalls: number;
}

export const ANSWER_LIMITS: AnswerLimits = {
  eventBytes: 16 * 1024 * 1024,
  streamBytes: 256 * 1024 * 1024,
  answerChars: 8 * 1024 * 1024,
  toolCalls: MAX_TOOL_CALLS,
};

/** Longest tool call id kept as the server sent it (OpenAI's are some 30 characters). */
const MAX_CALL_ID_CHARS = 128;

/** The answer passed one of its limits: `what` says which, in words ("more than 8388608 characters of text and tool-call arguments"). */
export class AnswerTooLong extends Error {
  override name = 'AnswerTooLong';
}

interface CallInProgress {
  id: string;
  name: string;
  argumentsText: string;
  /** Its arguments came as an object nested past MAX_ARGUMENT_DEPTH: the call is refused. */
  tooDeep?: boolean;
}

/**
 * The answer of `/chat/completions` as it arrives: SSE chunks (`add`) or one JSON body, the
 * text, tool calls assembled from their pieces (by `index`, or `id` on servers that send no
 * index), the finish reason and the usage.
 */
export class ChatAnswer {
  private text = '';
  private readonly calls: CallInProgress[] = [];
  private readonly byIndex = new Map<number, CallInProgress>();
  private readonly ids = new Set<string>();
  /** Characters of text and arguments so far. */
  private chars = 0;
  private finish: string | undefined;
  private usage: { prompt: number; completion: number } | undefined;
  /** Pieces of text or call arguments: about one token each, the count when the server gives no usage. */
  private pieces = 0;
  private firstPieceAt: number | undefined;

  constructor(
    private readonly now: () => number,
    private readonly limits: Pick<AnswerLimits, 'answerChars' | 'toolCalls'> = ANSWER_LIMITS,
  ) {}

  /** One SSE chunk (`delta`) or a whole answer (`message`); throws AnswerTooLong past the limits. */
  add(json: Json): void {
    const usage = json.usage as Json | undefined;
    const prompt = tokenCount(usage?.prompt_tokens);
    const completion = tokenCount(usage?.completion_tokens);
    if (prompt !== undefined && completion !== undefined) this.usage = { prompt, completion };
    const choice = (json.choices as Json[] | undefined)?.[0];
    if (!choice) return;
    const whole = choice.delta === undefined;
    const part = (whole ? choice.message : choice.delta) as Json | undefined;
    if (typeof choice.finish_reason === 'string') this.finish = choice.finish_reason;
    if (!part) return;
    if (typeof part.content === 'string' && part.content !== '') {
      this.count(part.content.length);
      this.text += part.content;
      this.piece();
    }
    const calls = part.tool_calls;
    if (Array.isArray(calls)) for (const call of calls) if (call && typeof call === 'object') this.addCall(call as Json, whole);
  }

  result(request: ChatRequest, sent: Json, model: string, toolMode: ToolMode, started: number): ChatResult {
    const toolCalls: ParsedToolCall[] = this.calls.map((call) => {
      const parsed = call.tooDeep ? { error: TOO_DEEP } : parseToolArguments(call.argumentsText);
      return parsed.error === undefined
        ? { id: call.id, name: call.name, argumentsText: call.argumentsText, arguments: parsed.arguments }
        : { id: call.id, name: call.name, argumentsText: call.argumentsText, error: parsed.error };
    });
    return {
      text: this.text,
      toolCalls,
      finishReason: finishReason(this.finish, toolCalls.length > 0),
      usage: this.usage
        ? { promptTokens: this.usage.prompt, completionTokens: this.usage.completion, source: 'server' }
        : { promptTokens: Math.ceil(JSON.stringify([sent.messages, sent.tools ?? []]).length / 4), completionTokens: this.pieces, source: 'estimate' },
      toolMode: involvesTools(request) ? toolMode : 'none',
      timing: { totalMs: this.now() - started, ...(this.firstPieceAt !== undefined ? { firstTokenMs: this.firstPieceAt - started } : {}) },
      model,
    };
  }

  private count(chars: number): void {
    this.chars += chars;
    if (this.chars > this.limits.answerChars) throw new AnswerTooLong(`more than ${this.limits.answerChars} characters of text and tool-call arguments`);
  }

  private piece(): void {
    this.pieces++;
    this.firstPieceAt ??= this.now();
  }

  /**
   * A call's piece: in a stream, the pieces of one call share its `index` (OpenAI) or follow
   * its first piece, which has the `id`; in a whole answer, each entry is a call.
   */
  private addCall(delta: Json, whole: boolean): void {
    const fn = (delta.function ?? {}) as Json;
    const id = typeof delta.id === 'string' && delta.id !== '' ? delta.id : undefined;
    let call: CallInProgress | undefined;
    if (!whole) {
      if (typeof delta.index === 'number') call = this.byIndex.get(delta.index);
      else if (id === undefined) call = this.calls.at(-1);
    }
    if (!call) {
      if (this.calls.length >= this.limits.toolCalls) throw new AnswerTooLong(`more than ${this.limits.toolCalls} tool calls`);
      // A missing id, one this answer already used, or one no server makes (it goes back with every
      // later request, uncounted by the limits), gets one of ours: results are tied by it.
      const usable = id !== undefined && id.length <= MAX_CALL_ID_CHARS && !this.ids.has(id);
      call = { id: usable ? id : newToolCallId(), name: '', argumentsText: '' };
      this.ids.add(call.id);
      this.calls.push(call);
      if (!whole && typeof delta.index === 'number') this.byIndex.set(delta.index, call);
    }
    // The name comes in the first piece; a server that repeats it in every piece is not doubled.
    if (typeof fn.name === 'string' && fn.name !== call.name) {
      this.count(fn.name.length);
      call.name += fn.name;
    }
    const args = fn.arguments;
    if (typeof args === 'string' && args !== '') {
      this.count(args.length);
      call.argumentsText += args;
      this.piece();
    } else if (args !== undefined && args !== null && typeof args === 'object') {
      // Not OpenAI's wire format (a string), but some servers send the object itself; written
      // again as text only when JSON.stringify can (it recurses).
      if (nestsDeeperThan(args, MAX_ARGUMENT_DEPTH)) {
        call.tooDeep = true;
        return;
      }
      const text = JSON.stringify(args);
      this.count(text.length);
      call.argumentsText += text;
      this.piece();
    }
  }
}

/**
 * A count of tokens a server reported, or undefined for one no model has: negative, fractional,
 * infinite (`1e400` is Infinity in JSON) or past 2^53. Counts add up into a task's record and
 * budgets, and the store keeps them as integers: an absurd one is ignored, as if the server had
 * sent none.
 */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function finishReason(reason: string | undefined, calledTools: boolean): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    default:
      // `stop` with calls is what several servers send after a tool call.
      return calledTools ? 'tool_calls' : 'stop';
  }
}
