// The local server's front door (docs/security.md, "The local server's front door"): the Host must name this
// machine's loopback on our port (DNS rebinding), a present Origin must be the editor's own
// page, and every request — WebSocket upgrades included — carries the API token, compared in
// constant time. Who may call a route is the route's own rule (route-rules.ts): a route with
// `access: 'ticket'` (the event stream) also takes a single-use ticket, on a real WebSocket
// upgrade only, since a browser page cannot set headers on a WebSocket.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LoomError } from '../core/errors.ts';
import { constantTimeEqual, hashToken } from '../core/identity/secrets.ts';
import { routeRules } from './route-rules.ts';
import type { TicketBook } from './tickets.ts';
import type { Upgrades } from './upgrades.ts';

export interface GuardOptions {
  /** The port actually listened on (known after listen). */
  port: () => number;
  token: () => string;
  tickets: TicketBook;
  upgrades: Upgrades;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * A fingerprint of the token in force when the request was let in (hashed: a request object
     * may end up in a log); what it opens is closed when the token changes.
     */
    grantedBy: string | undefined;
  }
}

export function allowedHosts(port: number): Set<string> {
  return new Set([`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
}

export function allowedOrigins(port: number): Set<string> {
  return new Set([`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]);
}

/**
 * Adds the front door as an onRequest hook: a Host or Origin that is not this server's
 * loopback is 403 forbidden, a request without the token (or, where the route allows it, a
 * ticket on a WebSocket upgrade) 401 unauthorized, and a refused request's connection is closed.
 */
export function registerGuard(app: FastifyInstance, options: GuardOptions): void {
  app.decorateRequest('grantedBy', undefined);
  app.addHook('onRequest', async (request, reply) => {
    const port = options.port();
    const host = request.headers.host;
    if (typeof host !== 'string' || !allowedHosts(port).has(host.toLowerCase())) {
      refuse(reply, new LoomError('forbidden', 'This server answers only to localhost, 127.0.0.1 and [::1] on its own port.'));
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !allowedOrigins(port).has(String(origin).toLowerCase())) {
      refuse(reply, new LoomError('forbidden', 'Requests from other origins are refused.'));
    }
    const { access } = routeRules(request);
    if (access === 'public') return;
    const token = options.token();
    if (!authorized(request, access, token, options)) {
      refuse(reply, new LoomError('unauthorized', 'The local API token is required: Authorization: Bearer <token>.', 'loom token prints it.'));
    }
    request.grantedBy = hashToken(token);
  });
}

/**
 * A refused request ends its connection: whatever body it still sends is not read, and the
 * client cannot keep the connection for another try.
 */
function refuse(reply: FastifyReply, error: LoomError): never {
  reply.header('connection', 'close');
  throw error;
}

function authorized(request: FastifyRequest, access: 'token' | 'ticket', token: string, options: GuardOptions): boolean {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    return Boolean(match && constantTimeEqual(match[1]!, token));
  }
  // A browser's WebSocket cannot send headers: it proves itself with a ticket bought over HTTP,
  // on the one route that takes one, and only as a real upgrade (an Upgrade header on a plain
  // request does not make it one).
  if (access === 'ticket' && options.upgrades.isUpgrade(request)) {
    const ticket = new URL(request.url, 'http://localhost').searchParams.get('ticket');
    return ticket !== null && options.tickets.redeem(ticket, token);
  }
  return false;
}
