// The local server's front door (docs/security.md, "The local server's front door"): the Host must name this
// machine's loopback on our port (DNS rebinding), a present Origin must be the editor's own
// page, and every request — WebSocket upgrades included — carries the API token, compared in
// constant time. Who may call a route is the route's own rule (route-rules.ts): a route with
// `access: 'ticket'` (the event stream) also takes a single-use ticket, on a real WebSocket
// upgrade only, since a browser page cannot set headers on a WebSocket; a route with
// `access: 'window'` (what runs code) takes only the session of a window signed in by its
// one-time link, never the token, and on a WebSocket upgrade (the terminal) also a single-use
// ticket that same session bought (docs/security.md, "Who may run code").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LoomError } from '../core/errors.ts';
import { constantTimeEqual, hashToken } from '../core/identity/secrets.ts';
import { routeRules } from './route-rules.ts';
import { terminalTicketPurpose, type TicketBook } from './tickets.ts';
import type { Upgrades } from './upgrades.ts';
import { CSRF_HEADER, readCookie, windowCookieName, type WindowSignIn } from './window/sign-in.ts';

export interface GuardOptions {
  /** The port actually listened on (known after listen). */
  port: () => number;
  token: () => string;
  tickets: TicketBook;
  upgrades: Upgrades;
  /** The window's sessions (its cookie and CSRF value). */
  signIn: WindowSignIn;
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
    const verdict = access === 'window' ? authorizeWindow(request, token, options, port) : authorize(request, access, token, options, port);
    if (verdict === 'no_origin') {
      refuse(reply, new LoomError('forbidden', "A window's WebSocket opens only from its own page: the upgrade must carry this server's Origin."));
    }
    if (verdict === 'no_csrf') {
      refuse(
        reply,
        new LoomError('forbidden', `A request with the window's session cookie must carry its CSRF value in ${CSRF_HEADER}.`, 'GET /api/session gives it.'),
      );
    }
    if (verdict === 'token' || verdict === 'token_session') {
      refuse(
        reply,
        new LoomError(
          'window_required',
          verdict === 'token'
            ? 'Only the signed-in window may do this: it runs code on this machine, and the API token (which scripts, extensions and MCP clients hold) never may.'
            : 'This window signed in with the API token, which anything holding the token can do; only a window opened by its one-time link may run code.',
          'Open the window with its one-time link: loom open (or loom serve --open, loom up --open), and answer there.',
        ),
      );
    }
    if (verdict !== 'ok') {
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

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function authorize(request: FastifyRequest, access: 'token' | 'ticket', token: string, options: GuardOptions, port: number): 'ok' | 'no' | 'no_csrf' {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    return match && constantTimeEqual(match[1]!, token) ? 'ok' : 'no';
  }
  const sessionId = readCookie(request.headers.cookie, windowCookieName(port));
  const session = sessionId === undefined ? undefined : options.signIn.session(sessionId);
  if (session) return windowRequest(request, session.csrf, options);
  return ticketUpgrade(request, access, token, options) ? 'ok' : 'no';
}

/**
 * A route that runs code (`access: 'window'`): only a session started by the one-time link, with
 * its CSRF value, or on a WebSocket upgrade, from this Origin with a ticket the same session
 * bought. The token, or a session traded for it, is `token` / `token_session` (403): whatever
 * holds the token could have sent it.
 */
function authorizeWindow(
  request: FastifyRequest,
  token: string,
  options: GuardOptions,
  port: number,
): 'ok' | 'no' | 'no_csrf' | 'no_origin' | 'token' | 'token_session' {
  const sessionId = readCookie(request.headers.cookie, windowCookieName(port));
  const session = sessionId === undefined ? undefined : options.signIn.session(sessionId);
  if (session?.viaLink && options.upgrades.isUpgrade(request)) return windowUpgrade(request, sessionId!, token, options);
  if (session?.viaLink) return windowRequest(request, session.csrf, options);
  if (session) return 'token_session';
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header.trim()) : null;
  return match && constantTimeEqual(match[1]!, token) ? 'token' : 'no';
}

/**
 * A request of the window, let in by its session cookie. A cookie travels with any request the
 * browser makes to this origin, so what changes state must also prove it comes from the page:
 * the CSRF value, which only a script of this origin can have read (GET /api/session). The
 * event socket's upgrade is a GET a browser sends with its Origin: that Origin must be present
 * (the guard has already refused a foreign one).
 */
function windowRequest(request: FastifyRequest, csrf: string, options: GuardOptions): 'ok' | 'no_csrf' {
  if (options.upgrades.isUpgrade(request)) return request.headers.origin === undefined ? 'no_csrf' : 'ok';
  if (SAFE_METHODS.has(request.method)) return 'ok';
  const proof = request.headers[CSRF_HEADER];
  return typeof proof === 'string' && constantTimeEqual(proof, csrf) ? 'ok' : 'no_csrf';
}

/**
 * A window-only WebSocket (the terminal). A browser sends the cookie with any upgrade to this
 * host, and SameSite does not cover every way a page can cause one: the upgrade must carry this
 * server's Origin (a foreign one was refused already) and a ticket the session bought over HTTP
 * with its CSRF value, which only a script of the page can have read. Redeeming spends it.
 */
function windowUpgrade(request: FastifyRequest, sessionId: string, token: string, options: GuardOptions): 'ok' | 'no' | 'no_origin' {
  if (request.headers.origin === undefined) return 'no_origin';
  const ticket = new URL(request.url, 'http://localhost').searchParams.get('ticket');
  return ticket !== null && options.tickets.redeem(ticket, token, terminalTicketPurpose(sessionId)) ? 'ok' : 'no';
}

function ticketUpgrade(request: FastifyRequest, access: 'token' | 'ticket', token: string, options: GuardOptions): boolean {
  // A browser's WebSocket cannot send headers: it proves itself with a ticket bought over HTTP,
  // on the one route that takes one, and only as a real upgrade (an Upgrade header on a plain
  // request does not make it one).
  if (access === 'ticket' && options.upgrades.isUpgrade(request)) {
    const ticket = new URL(request.url, 'http://localhost').searchParams.get('ticket');
    return ticket !== null && options.tickets.redeem(ticket, token);
  }
  return false;
}
