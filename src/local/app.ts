// The desktop application's local API as a Fastify app: guard, rate limits, the local error
// envelope, the routes and the event socket. Listening and wiring services is server.ts's job.
import type { Duplex } from 'node:stream';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Clock } from '../core/clock.ts';
import type { EventBus } from '../core/events/bus.ts';
import type { Documents } from '../core/workspace/documents.ts';
import { onClientError } from '../http/client-errors.ts';
import { registerValidation } from '../http/validation.ts';
import { registerLocalErrors } from './errors.ts';
import { registerEventSocket, type EventHub } from './events-socket.ts';
import { registerGuard } from './guard.ts';
import { registerLocalRateLimit, type LocalLimits } from './rate-limit.ts';
import { registerEditorRoutes } from './routes/editor.ts';
import { TicketBook } from './tickets.ts';

export interface LocalAppOptions {
  version: string;
  clock: Clock;
  startedAt: number;
  bus: EventBus;
  documents: Documents;
  token: () => string;
  limits: () => LocalLimits;
  /** The port listened on; known after listen. */
  port: () => number;
  logLevel: string;
  /** More routes (git, webhooks), registered after the guard. */
  extraRoutes?: (app: FastifyInstance) => void;
}

/**
 * Sockets of WebSocket upgrades, refused ones included, are no longer the HTTP server's to
 * close, and a refused one may never read its peer's FIN: closing the app ends them all.
 */
function endUpgradeSocketsOnClose(app: FastifyInstance): void {
  const sockets = new Set<Duplex>();
  app.server.on('upgrade', (_request, socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.addHook('preClose', async () => {
    for (const socket of sockets) socket.destroy();
  });
}

export async function buildLocalApp(options: LocalAppOptions): Promise<{ app: FastifyInstance; events: EventHub }> {
  const app = Fastify({
    logger: options.logLevel === 'silent' ? false : { level: options.logLevel },
    bodyLimit: 20 * 1024 * 1024,
    clientErrorHandler: onClientError,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // On close, end keep-alive connections too: the desktop app quits promptly.
    forceCloseConnections: true,
  });
  registerValidation(app);
  registerLocalErrors(app);
  const tickets = new TicketBook(options.clock);
  registerGuard(app, { port: options.port, token: options.token, tickets });
  registerLocalRateLimit(app, options.limits, options.clock);
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  endUpgradeSocketsOnClose(app);

  app.get('/api/health', async () => ({
    status: 'ok',
    version: options.version,
    uptime: Math.round((options.clock.now() - options.startedAt) / 10) / 100,
  }));
  app.post('/api/events/ticket', async () => tickets.issue());
  registerEditorRoutes(app, options.documents);
  options.extraRoutes?.(app);
  const events = registerEventSocket(app, options.bus, options.version);
  return { app, events };
}
