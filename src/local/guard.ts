// The local server's front door (SECURITY.md, local server 2 and 3): the Host must name this
// machine's loopback on our port (DNS rebinding), a present Origin must be the editor's own
// page, and every request — WebSocket upgrades included — carries the API token, compared in
// constant time. The WebSocket may instead present a single-use ticket, since a browser page
// cannot set headers on it.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LoomError } from '../core/errors.ts';
import { constantTimeEqual } from '../core/identity/secrets.ts';
import type { TicketBook } from './tickets.ts';

export interface GuardOptions {
  /** The port actually listened on (known after listen). */
  port: () => number;
  token: () => string;
  tickets: TicketBook;
  /** Paths served without a token: the editor page and its assets (they hold no data). */
  publicPaths?: (path: string) => boolean;
}

export function allowedHosts(port: number): Set<string> {
  return new Set([`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
}

export function allowedOrigins(port: number): Set<string> {
  return new Set([`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]);
}

export function registerGuard(app: FastifyInstance, options: GuardOptions): void {
  app.addHook('onRequest', async (request) => {
    const port = options.port();
    const host = request.headers.host;
    if (typeof host !== 'string' || !allowedHosts(port).has(host.toLowerCase())) {
      throw new LoomError('forbidden', 'This server answers only to localhost, 127.0.0.1 and [::1] on its own port.');
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !allowedOrigins(port).has(String(origin).toLowerCase())) {
      throw new LoomError('forbidden', 'Requests from other origins are refused.');
    }
    const path = request.url.split('?')[0] ?? '/';
    if (options.publicPaths?.(path)) return;
    if (!authorized(request, options)) {
      throw new LoomError('unauthorized', 'The local API token is required: Authorization: Bearer <token>.', 'loom token prints it.');
    }
  });
}

function authorized(request: FastifyRequest, options: GuardOptions): boolean {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    return Boolean(match && constantTimeEqual(match[1]!, options.token()));
  }
  // A browser's WebSocket cannot send headers: it proves itself with a ticket bought over HTTP.
  if (request.headers.upgrade?.toLowerCase() === 'websocket') {
    const ticket = new URL(request.url, 'http://localhost').searchParams.get('ticket');
    return ticket !== null && options.tickets.redeem(ticket);
  }
  return false;
}
