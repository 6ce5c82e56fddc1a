// Following a composer session's events (streamComposerEvents, Server-Sent Events) to the end,
// across dropped connections: each event's `id:` is its number in the session, so after a drop
// the stream is asked again with `Last-Event-ID` and the server replays only what came after.
// The stream ends after the `status` event that ends the session; a connection that closes
// before it is a drop, not the end.
import { LineFramer, readCapped } from '../contracts/framing.ts';
import { API_PREFIX } from '../contracts/versioning.ts';
import { HostedApiError } from './hosted.ts';

/** One event, as the stream carries it: `seq` from `id:`, `type` from `event:`, `data` the JSON of `data:`. */
export interface ComposerStreamEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

export interface FollowOptions {
  /** The server's public URL (the API is under /api/v1). */
  url: string;
  token: string;
  sessionId: string;
  /** Start after this event (0: from the first). */
  after?: number;
  /** Connections in a row that may fail (refused, cut, an error answer of 5xx) before giving up; 8 by default. */
  retries?: number;
  /** Wait before the n-th reconnection (1-based); doubling from 200 ms up to 5 s by default. */
  backoffMs?: (attempt: number) => number;
  /** Hears of each reconnection: the seq it resumes after, and why the last connection ended. */
  onReconnect?: (after: number, why: string) => void;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

/** The largest event read (its lines together); a server that sends a longer one is not followed. */
export const MAX_EVENT_BYTES = 16 * 1024 * 1024;
/** Bytes of an error answer read for its message. */
const MAX_REFUSAL_BYTES = 64 * 1024;

/** Statuses a session ends in; the `status` event carrying one is the stream's last. */
const ENDED = new Set(['completed', 'failed', 'cancelled']);

/**
 * The session's events from `after` on, until the one that ends it; reconnects with
 * `Last-Event-ID` when a connection drops. Throws HostedApiError for an answer that is a
 * refusal (401, 403, 404 …: retrying would not change it) or when the retries run out.
 *
 * @example
 * for await (const event of followComposerEvents({ url: 'http://127.0.0.1:8080', token, sessionId })) console.log(event.type, event.data);
 */
export async function* followComposerEvents(options: FollowOptions): AsyncGenerator<ComposerStreamEvent, void, undefined> {
  const doFetch = options.fetch ?? fetch;
  const retries = options.retries ?? 8;
  const backoff = options.backoffMs ?? ((attempt: number) => Math.min(5_000, 200 * 2 ** (attempt - 1)));
  const base = options.url.replace(/\/+$/, '');
  const address = `${base}${API_PREFIX}/composer/session/${encodeURIComponent(options.sessionId)}/events`;
  let last = options.after ?? 0;
  let failures = 0;
  for (;;) {
    let why: string;
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${options.token}` };
      if (last > 0) headers['last-event-id'] = String(last);
      const response = await doFetch(address, { headers, signal: options.signal, redirect: 'manual' });
      if (!response.ok || !response.body) {
        const refusal = await refusalOf(response, address);
        // A server error or an overloaded server may pass; anything else is the answer.
        if (response.status < 500 && response.status !== 429) throw refusal;
        why = refusal.message;
      } else {
        for await (const event of readEvents(response.body)) {
          last = event.seq;
          failures = 0;
          yield event;
          if (event.type === 'status' && ENDED.has(String(event.data.status))) return;
        }
        why = 'the connection closed before the session ended';
      }
    } catch (error) {
      if (error instanceof HostedApiError || options.signal?.aborted) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      why = cause?.code ?? cause?.message ?? (error as Error).message;
    }
    failures++;
    if (failures > retries) {
      throw new HostedApiError(
        0,
        'unreachable',
        `Lost the event stream of session ${options.sessionId} at ${base}: ${why}.`,
        'Follow it again: loom composer watch ID.',
      );
    }
    options.onReconnect?.(last, why);
    await pause(backoff(failures), options.signal);
  }
}

/**
 * Parses a `text/event-stream` body: events with an `id:`, comments and retry hints skipped.
 * Each byte is read once and an event is held only until it ends; one over `maxEventBytes`
 * throws HostedApiError `invalid_answer` (it would come again on every reconnection).
 */
export async function* readEvents(body: ReadableStream<Uint8Array>, maxEventBytes = MAX_EVENT_BYTES): AsyncGenerator<ComposerStreamEvent, void, undefined> {
  const lines = new LineFramer({ maxMessageBytes: maxEventBytes });
  let block: string[] = [];
  let size = 0;
  const tooLong = () => new HostedApiError(0, 'invalid_answer', `The event stream sent an event of more than ${maxEventBytes} bytes; is it a Loom server?`);
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    for (const frame of lines.push(chunk)) {
      if (frame.kind !== 'message') throw tooLong();
      // Events end with a blank line.
      if (frame.text === '') {
        const event = parseBlock(block);
        if (event) yield event;
        block = [];
        size = 0;
        continue;
      }
      size += frame.text.length + 1;
      if (size > maxEventBytes) throw tooLong();
      block.push(frame.text);
    }
  }
}

function parseBlock(block: string[]): ComposerStreamEvent | undefined {
  let id: string | undefined;
  let type = 'message';
  const data: string[] = [];
  for (const line of block) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
  }
  const seq = Number(id);
  if (id === undefined || !Number.isSafeInteger(seq) || seq < 1 || data.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.join('\n'));
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  return { seq, type, data: parsed as Record<string, unknown> };
}

async function refusalOf(response: Response, address: string): Promise<HostedApiError> {
  let envelope: { error?: unknown; message?: unknown; hint?: unknown } | undefined;
  try {
    envelope = JSON.parse(new TextDecoder().decode((await readCapped(response.body, MAX_REFUSAL_BYTES)).bytes)) as typeof envelope;
  } catch {
    envelope = undefined;
  }
  if (typeof envelope?.error === 'string' && typeof envelope.message === 'string') {
    const retryAfter = Number(response.headers.get('retry-after')) || undefined;
    return new HostedApiError(response.status, envelope.error, envelope.message, typeof envelope.hint === 'string' ? envelope.hint : undefined, retryAfter);
  }
  return new HostedApiError(response.status, 'invalid_answer', `${address} answered ${response.status} without an event stream; is it a Loom server?`);
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
