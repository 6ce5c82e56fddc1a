// The event WebSocket (/events). Each event is serialised once and written to every client
// (batched per turn of the event loop);
// a client that reads too slowly has events dropped while its send buffer is full (it sees the
// gap in `seq`), so it can neither slow the editor nor grow memory without bound. A client is
// tied to the token that let it in: when the token is rotated, it is closed.
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { EventBus, LoomEvent } from '../core/events/bus.ts';

/** Bytes a client may have waiting in its send buffer before its events are dropped. */
export const MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * How a client opened with a token that was since rotated is closed: a private-use close code
 * mirroring HTTP 401, and a reason that says what to do.
 */
export const TOKEN_ROTATED_CLOSE = { code: 4401, reason: 'TOKEN_ROTATED: the API token changed; reconnect with the new one' } as const;

export interface EventHub {
  clients(): number;
  /** Events not sent to a client because its send buffer was full, over all clients. */
  dropped(): number;
  /** The largest send buffer of any client right now, in bytes. */
  maxBuffered(): number;
  /** Closes every client let in by another token than the one with this fingerprint. */
  revokeExcept(grantedBy: string): void;
  close(): void;
}

/** The TCP socket under a `ws` connection (not in ws's public API; absent, frames go out one by one). */
function rawSocket(socket: WebSocket): Socket | undefined {
  const raw = (socket as unknown as { _socket?: Socket })._socket;
  return raw && typeof raw.cork === 'function' ? raw : undefined;
}

/**
 * Takes a socket the route let in, with the fingerprint of the token that let it in (guard.ts
 * `grantedBy`) and the window session's cookie id, when a window opened it.
 */
export type AcceptSocket = (socket: WebSocket, grant: { grantedBy: string | undefined; session: string | undefined }) => void;

/**
 * The event stream's clients: `accept` is the `/events` route's WebSocket handler (routes.ts
 * mounts it from the route table). `currentGrant` is the fingerprint of the token in force: a
 * socket let in by a token that was rotated while its handshake completed is closed at once.
 */
export function createEventHub(bus: EventBus, version: string, currentGrant: () => string): { hub: EventHub; accept: AcceptSocket } {
  /** Each client, with the fingerprint of the token that let it in. */
  const clients = new Map<WebSocket, string | undefined>();
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
    for (const socket of clients.keys()) {
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

  const accept: AcceptSocket = (socket, { grantedBy }) => {
    if (grantedBy !== currentGrant()) {
      socket.close(TOKEN_ROTATED_CLOSE.code, TOKEN_ROTATED_CLOSE.reason);
      return;
    }
    clients.set(socket, grantedBy);
    socket.on('close', () => clients.delete(socket));
    socket.on('error', () => clients.delete(socket));
    // The stream is one-way; what clients send is ignored (pings are answered by ws itself).
    socket.on('message', () => {});
    socket.send(JSON.stringify({ type: 'hello', seq: bus.lastSeq, version }));
  };

  const hub: EventHub = {
    clients: () => clients.size,
    dropped: () => dropped,
    maxBuffered: () => Math.max(0, ...[...clients.keys()].map((socket) => socket.bufferedAmount)),
    revokeExcept(grantedBy) {
      for (const [socket, granted] of clients) {
        if (granted === grantedBy) continue;
        // No event reaches it from now on, whether or not it answers the close.
        clients.delete(socket);
        socket.close(TOKEN_ROTATED_CLOSE.code, TOKEN_ROTATED_CLOSE.reason);
      }
    },
    close() {
      unsubscribe();
      for (const socket of clients.keys()) socket.close(1001, 'server shutting down');
    },
  };
  return { hub, accept };
}
