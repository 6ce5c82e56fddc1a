// The desktop application's local API as a Fastify app: guard, rate limits, the local error
// envelope, the routes and the event socket. Listening and wiring services is server.ts's job.
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ConnectionLimits } from '../config/load.ts';
import type { LocalLimitClass, LocalRouteRules } from '../contracts/local-routes.ts';
import type { Clock } from '../core/clock.ts';
import type { EventBus } from '../core/events/bus.ts';
import { hashToken } from '../core/identity/secrets.ts';
import type { Documents } from '../core/workspace/documents.ts';
import { guardConnections, timeoutOptions } from '../http/connections.ts';
import { registerRequestFraming } from '../http/request-framing.ts';
import { serverLogOptions, type LogDestination } from '../http/server-log.ts';
import { registerValidation } from '../http/validation.ts';
import { localFrameworkErrors, localRawAnswers, registerLocalErrors } from './errors.ts';
import { registerEventSocket, type EventHub } from './events-socket.ts';
import { registerGuard } from './guard.ts';
import { registerLocalRateLimit, type LocalLimits } from './rate-limit.ts';
import { registerEditorRoutes } from './routes/editor.ts';
import { TicketBook } from './tickets.ts';
import { refuseStrayUpgrades, trackUpgrades, type Upgrades } from './upgrades.ts';

export interface LocalAppOptions {
  version: string;
  clock: Clock;
  startedAt: number;
  bus: EventBus;
  documents: Documents;
  token: () => string;
  /** Calls the listener whenever the settings (and so perhaps the token) change; the token is then re-read. */
  onSettingsChange?: (listener: () => void) => void;
  limits: () => LocalLimits;
  /** Timeouts and the per-client connection cap. */
  http: ConnectionLimits;
  /** The port listened on; known after listen. */
  port: () => number;
  logLevel: string;
  /** Where log lines go; stdout by default (tests read them from here). */
  logDestination?: LogDestination;
  /** More routes (git, webhooks), registered after the guard. */
  extraRoutes?: (app: FastifyInstance) => void;
}

/** A route as registered: method, URL and request schemas (what tests of every route read). */
export interface LocalRoute {
  method: string;
  url: string;
  schema?: { body?: unknown; querystring?: unknown; params?: unknown };
  websocket: boolean;
  /** The rate limit budget it draws on. */
  limit: LocalLimitClass;
}

export async function buildLocalApp(options: LocalAppOptions): Promise<{ app: FastifyInstance; events: EventHub; routes: readonly LocalRoute[] }> {
  const raw = localRawAnswers();
  // Router errors are answered before any hook runs; an upgrade's socket is closed after them.
  let upgrades: Upgrades | undefined;
  const app = Fastify({
    ...serverLogOptions({ level: options.logLevel, destination: options.logDestination }),
    bodyLimit: 20 * 1024 * 1024,
    ...timeoutOptions(options.http),
    frameworkErrors: localFrameworkErrors((request, reply) => upgrades?.closeWhenAnswered(request, reply)),
    clientErrorHandler: raw.clientError,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // On close, end keep-alive connections too: the desktop app quits promptly.
    forceCloseConnections: true,
  });
  // Every caller shares the loopback address: the cap bounds what all of them hold together.
  guardConnections(app.server, { limits: options.http, raw });
  const routes: LocalRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, schema: route.schema as LocalRoute['schema'], websocket: Boolean(route.websocket), limit: (route.config as LocalRouteRules | undefined)?.limit ?? 'default' });
  });
  registerValidation(app);
  registerLocalErrors(app);
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  upgrades = trackUpgrades(app, { settleMs: options.http.requestTimeoutMs });

  // Hooks run in the order they are added: HTTP's own rules, then the front door, then the
  // rules of the route that answers (which may take an upgrade, which budget it draws on).
  registerRequestFraming(app);
  const tickets = new TicketBook(options.clock);
  registerGuard(app, { port: options.port, token: options.token, tickets, upgrades });
  refuseStrayUpgrades(app, upgrades);
  registerLocalRateLimit(app, options.limits, options.clock);

  app.get('/api/health', async () => ({
    status: 'ok',
    version: options.version,
    uptime: Math.round((options.clock.now() - options.startedAt) / 10) / 100,
  }));
  app.post('/api/events/ticket', async () => tickets.issue(options.token()));
  registerEditorRoutes(app, options.documents);
  options.extraRoutes?.(app);
  const currentGrant = () => hashToken(options.token());
  const events = registerEventSocket(app, options.bus, options.version, currentGrant);
  // Rotating the token closes what the old one opened (tickets bought with it are refused on redemption).
  options.onSettingsChange?.(() => events.revokeExcept(currentGrant()));
  return { app, events, routes };
}
