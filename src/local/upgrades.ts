// WebSocket upgrades on the local server. Node hands an upgrade's socket to whoever listens for
// 'upgrade' and forgets it: no parser, no timeout, nobody reads its peer's FIN. An upgrade that
// Fastify answers over HTTP instead (a foreign Origin, no token, a spent ticket, a path that is
// no WebSocket) must therefore be closed by us, at once: any web page can open thousands of them
// in a second, and each socket would otherwise outlive its client.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LoomError } from '../core/errors.ts';
import { closeAfterWriting } from '../http/raw-answers.ts';
import { routeRules } from './route-rules.ts';

export interface Upgrades {
  /** Whether the request arrived as a WebSocket upgrade (not merely carrying an Upgrade header). */
  isUpgrade(request: FastifyRequest): boolean;
  /** For answers sent outside the hooks (router errors): closes the upgrade's socket once answered. */
  closeWhenAnswered(request: FastifyRequest, reply: FastifyReply): void;
}

/**
 * Tracks every upgrade from the moment Node hands it over. Call after @fastify/websocket is
 * registered (its server tells when an upgrade succeeded) and before the hooks that refuse
 * requests. An upgrade is settled — upgraded, or answered and closed — within `settleMs`
 * whatever path it took; closing the app ends every upgrade socket.
 */
export function trackUpgrades(app: FastifyInstance, options: { settleMs: number }): Upgrades {
  const socketOf = new WeakMap<IncomingMessage, Duplex>();
  const upgraded = new WeakSet<Duplex>();
  const open = new Set<Duplex>();

  // First in line, so that the hooks the upgrade runs through already know it is one.
  app.server.prependListener('upgrade', (request: IncomingMessage, socket: Duplex) => {
    socketOf.set(request, socket);
    open.add(socket);
    const timer = setTimeout(() => {
      if (!upgraded.has(socket)) socket.destroy();
    }, options.settleMs).unref();
    socket.once('close', () => {
      clearTimeout(timer);
      open.delete(socket);
    });
  });
  app.websocketServer.on('connection', (_socket: unknown, request: IncomingMessage) => {
    const socket = socketOf.get(request);
    if (socket) upgraded.add(socket);
  });

  const isUpgrade = (request: FastifyRequest) => socketOf.has(request.raw);
  app.addHook('onRequest', (request, reply, done) => {
    // The answer to a refused upgrade ends the connection; say so.
    if (isUpgrade(request)) reply.header('connection', 'close');
    done();
  });
  // An upgrade answered over HTTP was refused: nothing else will ever be sent on its socket.
  app.addHook('onResponse', (request, _reply, done) => {
    const socket = socketOf.get(request.raw);
    if (socket && !upgraded.has(socket)) closeAfterWriting(socket);
    done();
  });
  app.addHook('preClose', (done) => {
    for (const socket of open) socket.destroy();
    done();
  });

  return {
    isUpgrade,
    closeWhenAnswered(request, reply) {
      const socket = socketOf.get(request.raw);
      if (socket) reply.raw.once('finish', () => closeAfterWriting(socket));
    },
  };
}

/** Refuses an upgrade to a route that is no WebSocket (run after the guard: strangers get 401/403 first). */
export function refuseStrayUpgrades(app: FastifyInstance, upgrades: Upgrades): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (upgrades.isUpgrade(request) && !routeRules(request).websocket) {
      done(new LoomError('bad_request', `${request.method} ${request.url.split('?')[0]} is not a WebSocket; only /events and /terminal accept an upgrade.`));
      return;
    }
    done();
  });
}
