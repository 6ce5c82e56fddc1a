// The `openai` provider: any OpenAI-compatible server (Ollama, llama.cpp server, vLLM,
// LM Studio, hosted APIs). Fill-in-the-middle through `POST /completions` with `suffix`; chat
// through `POST /chat/completions` for instructions and for servers or models without FIM.
// Both stream (SSE) so the engine's stop rule can end generation early. Agents chat with tools
// through `chat()` (openai-chat.ts builds its requests and reads its answers).
import { LineFramer, readCapped } from '../../contracts/framing.ts';
import { LoomError } from '../../core/errors.ts';
import type { CompletionProvider, ProviderCapabilities, ProviderRequest, ProviderResult } from '../../core/completion/provider.ts';
import { checkChatRequest, involvesTools, steadyClock, type ChatRequest, type ChatResult } from '../../core/completion/chat.ts';
import type { Clock } from '../../core/clock.ts';
import { describeFetchFailure } from '../../core/fetch-failure.ts';
import {
  ANSWER_LIMITS,
  AnswerTooLong,
  ChatAnswer,
  chatBody,
  mayRefuseTools,
  refusesStreamOptions,
  tokenCount,
  type AnswerLimits,
  type ToolMode,
} from './openai-chat.ts';

export interface OpenAiProviderOptions {
  /** Up to and including `/v1` (e.g. `http://127.0.0.1:11434/v1`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string;
  /** The model name the server knows. */
  model: string;
  /** `on`: always FIM; `off`: always chat; `auto`: FIM until the server refuses it, then chat. */
  fim: 'auto' | 'on' | 'off';
  fetch?: typeof fetch;
  /** Times chat turns (`ChatResult.timing`); a test's ManualClock. Default: a steady clock. */
  chatClock?: Clock;
  /** How much one answer may be; ANSWER_LIMITS (docs/models.md) by default, smaller in tests. */
  limits?: Partial<AnswerLimits>;
}

/** Where the cursor is in the chat prompt of a FIM request. */
export const CURSOR_MARKER = '<CURSOR>';

const FIM_SYSTEM =
  'You are a code completion engine inside an editor. The user sends a file with the marker ' +
  `${CURSOR_MARKER} where the cursor is. Reply with only the code to insert at the marker: no explanation, ` +
  'no markdown fences, and never repeat the code before or after the marker. Reply with nothing if nothing belongs there.';

const INSTRUCT_SYSTEM =
  'You are a coding assistant inside an editor. Follow the instruction and reply with only the code ' +
  'it asks for: no explanation before or after it and no markdown fences.';

/**
 * An instruction (`mode: instruct`) as chat messages: the instruction, then the file it is about.
 * The gguf provider asks its chat models the same way.
 */
export function instructionMessages(
  request: Pick<ProviderRequest, 'prefix' | 'suffix' | 'language' | 'filePath'>,
): { role: 'system' | 'user'; content: string }[] {
  const file = request.filePath ? ` (${request.filePath})` : '';
  const language = request.language || 'plain text';
  return [
    { role: 'system', content: INSTRUCT_SYSTEM },
    {
      role: 'user',
      content: request.suffix.trim()
        ? `${request.prefix}\n\nThe ${language} file it is about${file}:\n\n${request.suffix}`
        : `${request.prefix}\n\nLanguage: ${language}${file}`,
    },
  ];
}

/** A FIM refusal by these statuses means "not supported here": switch to chat. */
const FIM_REFUSALS = new Set([400, 404, 405, 415, 422, 501]);

/** Most characters of a server's error message quoted in ours. */
const MESSAGE_LIMIT = 300;
/** Most bytes of an error answer read for its message. */
const ERROR_BODY_BYTES = 64 * 1024;
/**
 * Characters a completion may have per token it asked for: a server that ignores `max_tokens`
 * gets its completion cut there (no real token is this long).
 */
const COMPLETION_CHARS_PER_TOKEN = 32;
/**
 * A completion's text is checked by the stop rule after every piece while it is shorter than
 * this; past it, each time it has grown by a quarter, so that the checks, each reading the whole
 * text, add up to linear time however many pieces a server sends.
 */
const STOP_CHECK_EVERY_PIECE_CHARS = 4096;

class Stopped extends Error {
  override name = 'Stopped';
}

class HttpFailure extends Error {
  override name = 'HttpFailure';
  constructor(
    readonly status: number,
    readonly serverMessage: string,
  ) {
    super(`HTTP ${status}: ${serverMessage}`);
  }
}

export class OpenAiProvider implements CompletionProvider {
  readonly kind = 'openai' as const;
  readonly name: string;
  private readonly baseUrl: string;
  private readonly shownUrl: string;
  private readonly fetch: typeof fetch;
  /** In `auto`: learned that the server or model refuses FIM. */
  private fimRefused = false;
  /** Learned that the server or model refuses `tools`: they are described in the system prompt. */
  private toolsRefused = false;
  /** Learned that the server refuses `stream_options` (usage in streams). */
  private streamUsageRefused = false;
  private readonly inFlight = new Set<AbortController>();
  private readonly limits: AnswerLimits;

  constructor(private readonly options: OpenAiProviderOptions) {
    this.name = options.model;
    this.limits = { ...ANSWER_LIMITS, ...options.limits };
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.shownUrl = withoutCredentials(this.baseUrl);
    this.fetch = options.fetch ?? fetch;
  }

  get capabilities(): ProviderCapabilities {
    return { fim: this.usesFim(), chat: true, tools: !this.toolsRefused };
  }

  async complete(request: ProviderRequest): Promise<ProviderResult> {
    request.signal.throwIfAborted();
    if (request.mode === 'instruct' || !this.usesFim()) return this.completeByChat(request);
    try {
      return await this.fim(request);
    } catch (error) {
      if (this.options.fim !== 'auto' || !(error instanceof HttpFailure) || !FIM_REFUSALS.has(error.status)) throw this.failure(error, request);
      // The server (or this model) does not do FIM: chat from now on, once chat has worked.
      const result = await this.completeByChat(request);
      this.fimRefused = true;
      return result;
    }
  }

  /**
   * The model's next turn: `POST /chat/completions`, streamed, with the tools as `tools`. A
   * server or model that refuses them (see mayRefuseTools) is asked again without, the tools
   * described in the system prompt; once that works it is asked that way from then on and the
   * answer's calls, if any, are in its text (`toolMode: "text"`).
   */
  async chat(request: ChatRequest): Promise<ChatResult> {
    request.signal.throwIfAborted();
    checkChatRequest(request);
    const clock = this.options.chatClock ?? steadyClock;
    const started = clock.now();
    try {
      if (!involvesTools(request)) return await this.chatTurn(request, 'none', started);
      if (this.toolsRefused) return await this.chatTurn(request, 'text', started);
      try {
        return await this.chatTurn(request, 'native', started);
      } catch (error) {
        if (request.signal.aborted || !(error instanceof HttpFailure) || !mayRefuseTools(error.status, error.serverMessage)) throw error;
        const result = await this.chatTurn(request, 'text', started);
        this.toolsRefused = true;
        return result;
      }
    } catch (error) {
      throw this.failure(error, request);
    }
  }

  private async chatTurn(request: ChatRequest, toolMode: ToolMode, started: number): Promise<ChatResult> {
    const clock = this.options.chatClock ?? steadyClock;
    for (;;) {
      const streamUsage = !this.streamUsageRefused;
      const body = chatBody(request, this.options.model, { toolMode, streamUsage });
      const answer = new ChatAnswer(() => clock.now(), this.limits);
      try {
        await this.exchange('/chat/completions', body, request.signal, (json) => answer.add(json));
        return answer.result(request, body, this.name, toolMode, started);
      } catch (error) {
        if (!streamUsage || !(error instanceof HttpFailure) || !refusesStreamOptions(error.status, error.serverMessage)) throw error;
        this.streamUsageRefused = true;
      }
    }
  }

  /** POSTs `body` as JSON to `route`; an answer that is not 2xx throws HttpFailure with the server's words. */
  private async post(route: string, body: object, signal: AbortSignal): Promise<Response> {
    const response = await this.fetch(`${this.baseUrl}${route}`, { method: 'POST', headers: this.headers(), body: JSON.stringify(body), signal });
    if (!response.ok) throw new HttpFailure(response.status, await errorMessage(response));
    return response;
  }

  /**
   * POSTs `body` and hands each JSON payload of the answer to `onJson`: every SSE event, or the
   * one body of a server that does not stream. Aborting `signal` closes the connection.
   */
  private async exchange(route: string, body: object, signal: AbortSignal, onJson: (json: Json) => void): Promise<void> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    this.inFlight.add(controller);
    try {
      const response = await this.post(route, body, controller.signal);
      if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
        const json = parseJson(await this.wholeBody(response));
        throwStreamError(json);
        if (!Array.isArray(json.choices) || json.choices.length === 0) throw new Unreadable('an answer without choices');
        onJson(json);
        return;
      }
      if (!response.body) throw new Unreadable('an empty stream');
      for await (const data of sseData(response.body, this.limits)) {
        if (data === '[DONE]') break;
        const json = parseJson(data);
        throwStreamError(json);
        onJson(json);
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (controller.signal.reason instanceof Stopped) throw new LoomError('model_unavailable', `The openai provider for ${this.shownUrl} was closed.`);
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.inFlight.delete(controller);
      // Hangs up on a stream left unread (an error inside it), so the server stops generating.
      if (!controller.signal.aborted) controller.abort(new Stopped());
    }
  }

  /** The body of an answer that does not stream, up to `eventBytes`. */
  private async wholeBody(response: Response): Promise<string> {
    const { bytes, truncated } = await readCapped(response.body, this.limits.eventBytes);
    if (truncated) throw new AnswerTooLong(`a body of more than ${this.limits.eventBytes} bytes`);
    return new TextDecoder().decode(bytes);
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream, application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    return headers;
  }

  async close(): Promise<void> {
    for (const controller of this.inFlight) controller.abort(new Stopped('provider closed'));
    this.inFlight.clear();
  }

  private usesFim(): boolean {
    return this.options.fim === 'on' || (this.options.fim === 'auto' && !this.fimRefused);
  }

  /** `POST /completions` with the prefix as `prompt` and the code after the cursor as `suffix`. */
  private fim(request: ProviderRequest): Promise<ProviderResult> {
    const body = {
      model: this.options.model,
      prompt: request.prefix,
      suffix: request.suffix,
      max_tokens: request.maxTokens,
      temperature: 0,
      stream: true,
    };
    return this.stream('/completions', body, request, (choice) => stringOr((choice.text as unknown) ?? undefined), false);
  }

  /** `POST /chat/completions`: a FIM request as a file with a cursor marker, or an instruction. */
  private async completeByChat(request: ProviderRequest): Promise<ProviderResult> {
    const file = request.filePath ? ` (${request.filePath})` : '';
    const language = request.language || 'plain text';
    const messages =
      request.mode === 'instruct'
        ? instructionMessages(request)
        : [
            { role: 'system', content: FIM_SYSTEM },
            { role: 'user', content: `A ${language} file${file}; complete it at ${CURSOR_MARKER}:\n\n${request.prefix}${CURSOR_MARKER}${request.suffix}` },
          ];
    const body = { model: this.options.model, messages, max_tokens: request.maxTokens, temperature: 0, stream: true };
    try {
      return await this.stream(
        '/chat/completions',
        body,
        request,
        (choice) => stringOr((choice.delta as Json | undefined)?.content ?? (choice.message as Json | undefined)?.content),
        true,
      );
    } catch (error) {
      throw this.failure(error, request);
    }
  }

  /**
   * Sends the request and reads the answer: SSE chunks (or one JSON body from a server that does
   * not stream), calling `request.stop` after each piece and hanging up once it cuts.
   */
  private async stream(
    route: string,
    body: object,
    request: ProviderRequest,
    pieceOf: (choice: Json) => string | undefined,
    chat: boolean,
  ): Promise<ProviderResult> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal.reason);
    request.signal.addEventListener('abort', onAbort, { once: true });
    this.inFlight.add(controller);
    let raw = '';
    let chunks = 0;
    let usageTokens: number | undefined;
    let kept: string | undefined;
    // A server that ignores max_tokens: the completion is cut at this length, as if it had stopped there.
    const maxChars = Math.min(this.limits.answerChars, request.maxTokens * COMPLETION_CHARS_PER_TOKEN);
    let checkedAt = 0;
    const check = () => {
      checkedAt = raw.length;
      const view = chat ? streamingView(raw) : { text: raw, closed: false };
      const cut = request.stop(view.text);
      if (cut !== undefined || view.closed) kept = cut !== undefined ? view.text.slice(0, cut) : view.text;
    };
    const take = (piece: string) => {
      const room = maxChars - raw.length;
      raw += piece.length > room ? piece.slice(0, room) : piece;
      chunks++;
      if (raw.length < STOP_CHECK_EVERY_PIECE_CHARS || raw.length - checkedAt >= checkedAt / 4 || raw.length >= maxChars) check();
      if (kept === undefined && raw.length >= maxChars) kept = chat ? stripMarkdownFences(raw) : raw;
      if (kept !== undefined) controller.abort(new Stopped());
    };
    try {
      const response = await this.post(route, body, controller.signal);
      const type = response.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream')) {
        // A server that ignored `stream: true`: one JSON answer.
        const json = parseJson(await this.wholeBody(response));
        throwStreamError(json);
        const choice = (json?.choices as Json[] | undefined)?.[0];
        if (!choice) throw new Unreadable('an answer without choices');
        usageTokens = tokensOf(json);
        const piece = pieceOf(choice);
        if (piece) take(piece);
      } else {
        if (!response.body) throw new Unreadable('an empty stream');
        for await (const data of sseData(response.body, this.limits)) {
          if (data === '[DONE]') break;
          const json = parseJson(data);
          throwStreamError(json);
          usageTokens = tokensOf(json) ?? usageTokens;
          const choice = (json?.choices as Json[] | undefined)?.[0];
          const piece = choice ? pieceOf(choice) : undefined;
          if (piece) take(piece);
          if (kept !== undefined) break;
        }
      }
      // The pieces since the last check have not met the stop rule yet.
      if (kept === undefined && checkedAt < raw.length) check();
      const text = kept ?? (chat ? stripMarkdownFences(raw) : raw);
      return { text, tokens: usageTokens ?? chunks };
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason;
      if (kept !== undefined && controller.signal.reason instanceof Stopped) {
        return { text: kept, tokens: usageTokens ?? chunks };
      }
      if (controller.signal.reason instanceof Stopped) throw new LoomError('model_unavailable', `The openai provider for ${this.shownUrl} was closed.`);
      throw error;
    } finally {
      request.signal.removeEventListener('abort', onAbort);
      this.inFlight.delete(controller);
      if (!controller.signal.aborted) controller.abort(new Stopped());
    }
  }

  /** Any failure as the LoomError the engine expects, never quoting the API key. */
  private failure(error: unknown, request: Pick<ProviderRequest, 'signal'>): unknown {
    if (request.signal.aborted) return request.signal.reason;
    if (error instanceof LoomError) return error;
    if (error instanceof HttpFailure) {
      const hint =
        error.status === 401 || error.status === 403
          ? 'Check openai.apiKey (LOOM_OPENAI_API_KEY).'
          : error.status === 404
            ? `Check openai.model ("${this.options.model}") and openai.baseUrl (it usually ends in /v1).`
            : undefined;
      return new LoomError(
        'model_failed',
        `The OpenAI-compatible server at ${this.shownUrl} answered HTTP ${error.status}: ${this.redact(error.serverMessage)}`,
        hint,
      );
    }
    if (error instanceof Unreadable) {
      return new LoomError('model_failed', `The OpenAI-compatible server at ${this.shownUrl} sent ${this.redact(error.message)}.`);
    }
    if (error instanceof AnswerTooLong) {
      return new LoomError(
        'model_failed',
        `The answer of the OpenAI-compatible server at ${this.shownUrl} was too long: ${error.message}. It was cut off there.`,
        'The model ran on without end, or openai.baseUrl names something that is not a model server.',
      );
    }
    return new LoomError(
      'model_unavailable',
      `The OpenAI-compatible server at ${this.shownUrl} cannot be reached: ${this.redact(describeFetchFailure(error))}`,
      'Check openai.baseUrl and that the server is running.',
    );
  }

  private redact(text: string): string {
    const key = this.options.apiKey;
    const clean = key ? text.split(key).join('***') : text;
    return clean.length > MESSAGE_LIMIT ? `${clean.slice(0, MESSAGE_LIMIT)}…` : clean;
  }
}

type Json = Record<string, unknown>;

class Unreadable extends Error {
  override name = 'Unreadable';
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function parseJson(text: string): Json {
  try {
    const value = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Json;
  } catch {
    // reported below
  }
  throw new Unreadable(`something that is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
}

/** Some servers report a failure inside a 200 stream as `{"error": …}`. */
function throwStreamError(json: Json): void {
  if (json.error === undefined || json.error === null) return;
  throw new HttpFailure(502, messageOf(json) ?? 'an error inside the stream');
}

function tokensOf(json: Json): number | undefined {
  return tokenCount((json.usage as Json | undefined)?.completion_tokens);
}

/**
 * The `data:` payloads of an SSE stream, one per event. Reads each byte once (LineFramer), holds
 * at most one event, and throws AnswerTooLong for an event over `eventBytes` (a line without
 * end, or `data:` lines without the empty line that ends an event) or a stream over
 * `streamBytes`.
 */
async function* sseData(body: ReadableStream<Uint8Array>, limits: Pick<AnswerLimits, 'eventBytes' | 'streamBytes'>): AsyncGenerator<string> {
  const lines = new LineFramer({ maxMessageBytes: limits.eventBytes });
  let data: string[] = [];
  let dataChars = 0;
  let read = 0;
  const tooLongEvent = () => new AnswerTooLong(`an event of more than ${limits.eventBytes} bytes`);
  const feed = function* (frames: ReturnType<LineFramer['push']>, final: boolean): Generator<string> {
    for (const frame of frames) {
      if (frame.kind !== 'message') throw tooLongEvent();
      const line = frame.text;
      if (line === '') {
        if (data.length) yield data.join('\n');
        data = [];
        dataChars = 0;
      } else if (line.startsWith('data:')) {
        const payload = line.slice(line.startsWith('data: ') ? 6 : 5);
        dataChars += payload.length + 1;
        if (dataChars > limits.eventBytes) throw tooLongEvent();
        data.push(payload);
      }
      // comments (":…"), event:, id:, retry: carry nothing for us
    }
    if (final && data.length) {
      yield data.join('\n');
      data = [];
    }
  };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    read += chunk.byteLength;
    if (read > limits.streamBytes) throw new AnswerTooLong(`a stream of more than ${limits.streamBytes} bytes`);
    yield* feed(lines.push(chunk), false);
  }
  yield* feed(lines.end(), true);
}

/** The server's own words from an error response: `error.message`, `error`, `message`, `detail` or the text. */
async function errorMessage(response: Response): Promise<string> {
  let text = '';
  try {
    text = new TextDecoder().decode((await readCapped(response.body, ERROR_BODY_BYTES)).bytes);
  } catch {
    return response.statusText || 'no message';
  }
  try {
    const message = messageOf(JSON.parse(text));
    if (message) return message;
  } catch {
    // not JSON: the text itself
  }
  return text.trim().replace(/\s+/g, ' ') || response.statusText || 'no message';
}

function messageOf(json: unknown): string | undefined {
  if (!json || typeof json !== 'object') return undefined;
  const value = json as Json;
  const error = value.error;
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && typeof (error as Json).message === 'string') return (error as Json).message as string;
  if (typeof value.message === 'string') return value.message;
  if (typeof value.detail === 'string') return value.detail;
  if (Array.isArray(value.detail)) return JSON.stringify(value.detail);
  return undefined;
}

/**
 * A chat answer as it streams in: a leading markdown fence line is dropped (and the text held
 * back until that line is complete); a closing fence ends it (`closed`).
 */
export function streamingView(raw: string): { text: string; closed: boolean } {
  let text = raw;
  const opening = /^\s*```[^\n]*/.exec(text);
  if (opening) {
    const newline = text.indexOf('\n', opening.index + opening[0].length - 1);
    if (newline < 0) return { text: '', closed: false };
    text = text.slice(newline + 1);
    const closing = /(^|\n)```/.exec(text);
    if (closing) return { text: text.slice(0, closing.index), closed: true };
    // Hold back a fence that may be arriving (a line of only backticks so far).
    const partial = /(^|\n)`{1,2}$/.exec(text);
    return { text: partial ? text.slice(0, partial.index) : text, closed: false };
  }
  return { text, closed: false };
}

/** The code of a chat answer: the first fenced block's content when there is one, else the text. */
export function stripMarkdownFences(text: string): string {
  const block = /```[^\n]*\n([\s\S]*?)(?:\n```|$)/.exec(text);
  if (block) return block[1]!;
  return text;
}

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/+$/, '');
  } catch {
    return url;
  }
}
