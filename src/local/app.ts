// The desktop application's local API as a Fastify app: guard, rate limits, the local error
// envelope, and every route of the local route table over the services it is given. Listening
// and building the services is server.ts's job.
import type { IncomingMessage } from 'node:http';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ConnectionLimits } from '../config/load.ts';
import { hashToken } from '../core/identity/secrets.ts';
import { guardConnections, timeoutOptions } from '../http/connections.ts';
import { registerRequestFraming } from '../http/request-framing.ts';
import { serverLog, type LogDestination } from '../http/server-log.ts';
import { registerValidation } from '../http/validation.ts';
import { localFrameworkErrors, localRawAnswers, registerLocalErrors } from './errors.ts';
import { createEventHub, type EventHub } from './events-socket.ts';
import { registerGuard } from './guard.ts';
import { createLocalHandlers, type LocalServices } from './handlers/index.ts';
import { localOpenApi } from './openapi.ts';
import { registerLocalRateLimit, type LocalLimits } from './rate-limit.ts';
import { registerLocalRoutes } from './routes.ts';
import { Terminals } from './terminal/terminals.ts';
import { TicketBook } from './tickets.ts';
import { refuseStrayUpgrades, trackUpgrades, type Upgrades } from './upgrades.ts';
import { WindowSignIn } from './window/sign-in.ts';
import { registerWindowPage, type WindowPageOptions } from './window/page.ts';
import { createShellLauncher } from '../compose/terminal.ts';

export interface LocalAppOptions {
  /** What the routes work on. */
  services: LocalServices;
  token: () => string;
  /** Calls the listener whenever the settings (and so perhaps the token) change; the token is then re-read. */
  onSettingsChange?: (listener: () => void) => void;
  limits: () => LocalLimits;
  /** The settings.json the limits come from, named in a 429's hint (its budget is the way out). */
  settingsFile?: string;
  /** Timeouts and the per-client connection cap. */
  http: ConnectionLimits;
  /** The port listened on; known after listen. */
  port: () => number;
  logLevel: string;
  /** Where log lines go; stdout by default (tests read them from here). */
  logDestination?: LogDestination;
  /** How the window's bundle is found or built (window/page.ts); built when missing or stale by default. */
  window?: WindowPageOptions;
  /**
   * The window's sign-in: where its sessions are saved (a restart keeps them) and the data dir's
   * link key a request for a sign-in link carries (window/link-key.ts). Without them, sessions
   * live in memory and no link is given on request.
   */
  signIn?: { sessionsFile?: string; linkKey?: string };
}

/**
 * The local API's app, every route of the table registered, not listening yet.
 *
 * @example
 *   const { app, events } = await buildLocalApp({ services, token: () => settings.apiToken, limits, http, port: () => port, logLevel: 'info' });
 *   await app.listen({ port, host: 'localhost' });
 */
export async function buildLocalApp(options: LocalAppOptions): Promise<{ app: FastifyInstance; events: EventHub; signIn: WindowSignIn; terminals: Terminals }> {
  const raw = localRawAnswers();
  // Router errors are answered before any hook runs; an upgrade's socket is closed after them.
  let upgrades: Upgrades | undefined;
  const log = serverLog({ level: options.logLevel, destination: options.logDestination });
  const app = Fastify({
    ...log.fastifyOptions,
    bodyLimit: 20 * 1024 * 1024,
    // Path segments are agent task ids (29 characters): a longer one is URI_TOO_LONG.
    routerOptions: { maxParamLength: 100 },
    ...timeoutOptions(options.http),
    frameworkErrors: localFrameworkErrors((request, reply) => upgrades?.closeWhenAnswered(request, reply)),
    clientErrorHandler: raw.clientError,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // On close, end keep-alive connections too: the desktop app quits promptly.
    forceCloseConnections: true,
  });
  log.attach(app, { upgrades: true });
  // Every caller shares the loopback address: the cap bounds what all of them hold together.
  guardConnections(app.server, { limits: options.http, raw, acceptsUpgrades: true });
  registerValidation(app);
  registerLocalErrors(app);
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  app.websocketServer.on('connection', (_socket: unknown, request: IncomingMessage) => log.upgraded(request));
  upgrades = trackUpgrades(app, { settleMs: options.http.requestTimeoutMs });

  // Hooks run in the order they are added: HTTP's own rules, then the front door, then the
  // rules of the route that answers (which may take an upgrade, which budget it draws on).
  registerRequestFraming(app);
  const { services } = options;
  const tickets = new TicketBook(services.clock);
  const signIn = new WindowSignIn(services.clock, options.token, { file: options.signIn?.sessionsFile, linkKey: options.signIn?.linkKey });
  registerGuard(app, { port: options.port, token: options.token, tickets, upgrades, signIn });
  refuseStrayUpgrades(app, upgrades);
  registerLocalRateLimit(app, options.limits, services.clock, options.settingsFile);

  const currentGrant = () => hashToken(options.token());
  const events = createEventHub(services.events, services.version, currentGrant);
  const terminals = new Terminals({
    cwd: services.paths.root,
    secrets: services.secrets,
    trusted: () => services.extensions.workspaceTrusted,
    currentGrant,
    shells: createShellLauncher(),
  });
  // Every shell ends with the server (before the upgrade sockets are dropped in preClose).
  app.addHook('preClose', async () => terminals.close());
  // Built on first request, when the port is known.
  let openApi: ReturnType<typeof localOpenApi> | undefined;
  const handlers = createLocalHandlers(services, {
    tickets,
    token: options.token,
    openApi: () => (openApi ??= localOpenApi(services.version, options.port())),
    signIn,
    terminals,
    port: options.port,
  });
  registerLocalRoutes(app, handlers, { openEventStream: events.accept, openTerminal: (socket, grant) => terminals.accept(socket, grant) }, options.port);
  await registerWindowPage(app, options.window);
  // Rotating the token closes what the old one opened (tickets bought with it are refused on redemption).
  options.onSettingsChange?.(() => {
    events.hub.revokeExcept(currentGrant());
    terminals.revokeExcept(currentGrant());
  });
  return { app, events: events.hub, signIn, terminals };
}
