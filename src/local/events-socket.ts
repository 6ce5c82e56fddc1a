// The event WebSocket (/events). Each event is serialised once and written to every client
// (batched per turn of the event loop);
// a client that reads too slowly has events dropped while its send buffer is full (it sees the
// gap in `seq`), so it can neither slow the editor nor grow memory without bound.
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { EventBus, LoomEvent } from '../core/events/bus.ts';

/** Bytes a client may have waiting in its send buffer before its events are dropped. */
export const MAX_BUFFERED_BYTES = 1024 * 1024;

export interface EventHub {
  clients(): number;
  /** Events not sent to a client because its send buffer was full, over all clients. */
  dropped(): number;
  /** The largest send buffer of any client right now, in bytes. */
  maxBuffered(): number;
  close(): void;
}

/** The TCP socket under a `ws` connection (not in ws's public API; absent, frames go out one by one). */
function rawSocket(socket: WebSocket): Socket | undefined {
  const raw = (socket as unknown as { _socket?: Socket })._socket;
  return raw && typeof raw.cork === 'function' ? raw : undefined;
}

export function registerEventSocket(app: FastifyInstance, bus: EventBus, version: string): EventHub {
  const clients = new Set<WebSocket>();
  let dropped = 0;
  // Frames written in one turn of the event loop leave in one system call per client: each
  // socket is corked at its first frame and uncorked once the turn is over.
  const corked = new Set<Socket>();
  const uncorkAll = () => {
    for (const raw of corked) raw.uncork();
    corked.clear();
  };
  const broadcast = (event: LoomEvent) => {
    if (clients.size === 0) return;
    const message = JSON.stringify(event);
    for (const socket of clients) {
      if (socket.readyState !== socket.OPEN) continue;
      if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
        dropped += 1;
        continue;
      }
      const raw = rawSocket(socket);
      if (raw && !corked.has(raw)) {
        if (corked.size === 0) setImmediate(uncorkAll);
        raw.cork();
        corked.add(raw);
      }
      socket.send(message);
    }
  };
  const unsubscribe = bus.subscribe(broadcast);

  app.get('/events', { websocket: true }, (socket) => {
    clients.add(socket);
    socket.on('close', () => clients.delete(socket));
    socket.on('error', () => clients.delete(socket));
    // The stream is one-way; what clients send is ignored (pings are answered by ws itself).
    socket.on('message', () => {});
    socket.send(JSON.stringify({ type: 'hello', seq: bus.lastSeq, version }));
  });

  return {
    clients: () => clients.size,
    dropped: () => dropped,
    maxBuffered: () => Math.max(0, ...[...clients].map((socket) => socket.bufferedAmount)),
    close() {
      unsubscribe();
      for (const socket of clients) socket.close(1001, 'server shutting down');
    },
  };
}
