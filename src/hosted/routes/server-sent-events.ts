// A stream operation's events as Server-Sent Events (text/event-stream): `id:` the event's
// seq (what a client resuming sends back as Last-Event-ID), `event:` its type, `data:` its
// JSON; a comment line every KEEP_ALIVE_MS so proxies keep an idle stream open. The stream
// ends when the events end, and stops reading them when the client goes away.
import { PassThrough, type Readable } from 'node:stream';

/** Time between keep-alive comments. */
export const KEEP_ALIVE_MS = 15_000;

export interface StreamEvent {
  seq: number;
  type: string;
  data: unknown;
}

/**
 * The body of an SSE answer.
 *
 * @example
 * return reply.type('text/event-stream').send(serverSentEvents(events, context.signal));
 */
export function serverSentEvents(events: AsyncIterable<StreamEvent>, signal: AbortSignal, keepAliveMs = KEEP_ALIVE_MS): Readable {
  const body = new PassThrough();
  const keepAlive = setInterval(() => body.write(': keep-alive\n\n'), keepAliveMs);
  const stop = () => {
    clearInterval(keepAlive);
    if (!body.writableEnded) body.end();
  };
  body.on('close', stop);
  signal.addEventListener('abort', stop, { once: true });
  // Sent at once: a client knows the stream is open before the first event.
  body.write(': stream open\n\n');
  void (async () => {
    try {
      for await (const event of events) {
        if (body.writableEnded) break;
        // JSON has no raw newlines, so `data:` is one line.
        body.write(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
      }
    } catch {
      // The store went away mid-stream: end it; the client resumes with Last-Event-ID.
    } finally {
      signal.removeEventListener('abort', stop);
      stop();
    }
  })();
  return body;
}
