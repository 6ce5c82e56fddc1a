// How long a client may take to send a request, how long an idle keep-alive connection stays
// open, and how many connections one client may hold: so that a few slow or greedy clients
// cannot exhaust a server's sockets. Shared by the hosted and the local server.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { ConnectionLimits } from '../config/load.ts';
import type { RawAnswers } from './raw-answers.ts';
import { passUnmetExpectations } from './request-framing.ts';

export type { ConnectionLimits };

/**
 * What both servers settle before Fastify sees a request: the per-client connection cap,
 * CONNECT refused in the server's envelope (Node would drop it without a word), and an unmet
 * Expect handed on to Fastify's hooks.
 */
export function guardConnections(
  server: Server,
  options: {
    limits: ConnectionLimits;
    raw: RawAnswers;
    exempt?: (address: string) => boolean;
    /** Whether the app takes WebSocket upgrades (see ConnectionCap.acceptsUpgrades). */
    acceptsUpgrades: boolean;
  },
): { connections(address: string): number } {
  const max = options.limits.maxConnectionsPerClient;
  const cap = capConnectionsPerClient(server, {
    max,
    acceptsUpgrades: options.acceptsUpgrades,
    exempt: options.exempt ?? (() => false),
    refuse: (socket) =>
      options.raw.refuse(
        socket,
        'too_many_connections',
        `At most ${max} connections per client are open at once, and none of yours is idle.`,
        'Reuse your connections, or wait for one to finish.',
      ),
  });
  server.on('connect', (_request, socket: Socket) => options.raw.refuse(socket, 'method_not_allowed', 'CONNECT is not served: this server is not a proxy.'));
  passUnmetExpectations(server);
  return cap;
}

/**
 * Fastify's constructor options for these limits. Node checks the headers and request deadlines
 * on a timer (every 30 s by default, so a slow client could outstay its deadline by that much):
 * the check runs often enough here that a deadline holds to within a quarter of itself, at
 * most a second late.
 */
export function timeoutOptions(limits: ConnectionLimits): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout' | 'connectionTimeout'> & {
  http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number; requireHostHeader: boolean };
} {
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // No idle timeout on a connection whose answer is being worked on: a git push may take
    // two minutes to answer, and that is not the client's doing.
    connectionTimeout: 0,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(shortest / 4))),
      // A request without Host is refused by our own hook, in the server's envelope, rather
      // than by Node with an empty 400.
      requireHostHeader: false,
    },
  };
}

const UPGRADED = Symbol('upgraded');
/**
 * On each connection: its latest request's response, or UPGRADED; absent until its first
 * request arrives. Responses go out in order, so the connection is idle once the latest one is
 * done: asked when a connection must be closed to make room, never kept up per request (a
 * listener on every response cost more than the rest of this guard). A property of the socket
 * rather than a WeakMap entry: it is written on every request.
 */
const LATEST = Symbol('latestResponse');

type TrackedSocket = Socket & { [LATEST]?: ServerResponse | typeof UPGRADED };

export interface ConnectionCap {
  max: number;
  /**
   * Whether the server takes upgrades (someone else listens for 'upgrade'): an upgraded
   * connection is then busy for as long as it lives. Node hands an upgrade's socket to the
   * 'upgrade' listeners whenever there is one, so the cap listens only where upgrades are taken;
   * elsewhere Node answers an upgrade request as an ordinary one (a listener there would leave
   * it unanswered and its socket held forever).
   */
  acceptsUpgrades: boolean;
  /** Peers that are not capped: trusted proxies carry the connections of many clients. */
  exempt(address: string): boolean;
  /** Answers a connection that cannot be let in, and closes it. */
  refuse(socket: Socket): void;
}

/**
 * At most `max` connections per client address. A connection over the cap makes room by
 * closing that client's oldest idle keep-alive connection (one that was answered and waits for
 * its next request); when there is none, the new connection is refused. A connection that has
 * not sent a whole request yet is never closed to make room (its request may be on the wire):
 * the headers timeout ends it if it stalls.
 *
 * The HTTP server reads a connection through its 'connection' listeners (Node's parser setup
 * among them): they are moved behind the cap, so a refused connection never gets a parser and
 * nothing it sends is served.
 */
export function capConnectionsPerClient(server: Server, cap: ConnectionCap): { connections(address: string): number } {
  const byPeer = new Map<string, Set<Socket>>();
  const idle = (socket: TrackedSocket): boolean => {
    const response = socket[LATEST];
    return response !== undefined && response !== UPGRADED && (response.writableFinished || response.destroyed);
  };

  const admit = (socket: Socket): boolean => {
    const address = socket.remoteAddress;
    if (address === undefined || cap.exempt(address)) return true;
    let sockets = byPeer.get(address);
    if (!sockets) byPeer.set(address, (sockets = new Set()));
    if (sockets.size >= cap.max) {
      const oldestIdle = [...sockets].find(idle);
      if (!oldestIdle) return false;
      sockets.delete(oldestIdle);
      oldestIdle.destroy();
    }
    const held = sockets;
    held.add(socket);
    socket.once('close', () => {
      held.delete(socket);
      if (held.size === 0 && byPeer.get(address) === held) byPeer.delete(address);
    });
    return true;
  };

  const readers = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    if (!admit(socket)) {
      cap.refuse(socket);
      return;
    }
    for (const read of readers) read.call(server, socket);
  });
  // Noted in front of the server's own handler rather than as a second listener: an event with
  // several listeners copies their list on every emit.
  const handlers = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    (request.socket as TrackedSocket)[LATEST] = response;
    for (const handle of handlers) handle.call(server, request, response);
  });
  // An upgraded connection is busy for as long as it lives; a refused upgrade is closed at once.
  if (cap.acceptsUpgrades) server.on('upgrade', (_request, socket: TrackedSocket) => (socket[LATEST] = UPGRADED));

  return { connections: (address) => byPeer.get(address)?.size ?? 0 };
}
