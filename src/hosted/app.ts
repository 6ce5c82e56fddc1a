// The hosted API as a Fastify app. Takes ready-made services; opening stores and listening
// is the composition root's job (server.ts), so tests can build the app around anything.
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { ConnectionLimits, TrustProxy } from '../config/load.ts';
import type { Clock } from '../core/clock.ts';
import type { ServiceUrls } from '../core/urls.ts';
import { createHandlers, type HandlerServices } from './handlers/index.ts';
import { registerOAuthRoutes } from './oauth/routes.ts';
import { guardConnections, timeoutOptions } from '../http/connections.ts';
import { trustedProxy } from '../http/trusted-proxies.ts';
import { serverLog, type LogDestination } from '../http/server-log.ts';
import { registerValidation } from '../http/validation.ts';
import { hostedFrameworkErrors, registerErrorHandling } from './plugins/errors.ts';
import { registerOnRequest } from './plugins/on-request.ts';
import { createRateLimiter } from './plugins/rate-limit/index.ts';
import { registerDiscoveryRoutes } from './routes/discovery.ts';
import { registerOperationRoutes } from './routes/operations.ts';
import { registerDashboard } from './web/dashboard.ts';
import { registerMcpRoutes } from './mcp/routes.ts';

export interface HostedAppOptions {
  services: HandlerServices;
  version: string;
  urls: ServiceUrls;
  rateLimit: { max: number; windowSeconds: number };
  trustProxy: TrustProxy;
  bodyLimit: number;
  /** Timeouts and the per-client connection cap. */
  http: ConnectionLimits;
  logLevel: string;
  /** Where log lines go; stdout by default (tests read them from here). */
  logDestination?: LogDestination;
  clock: Clock;
  redis?: Redis;
  /** Prefix of rate limit keys in Redis (tests isolate themselves with it). */
  redisPrefix?: string;
}

export async function buildHostedApp(options: HostedAppOptions): Promise<FastifyInstance> {
  const errors = hostedFrameworkErrors();
  const log = serverLog({ level: options.logLevel, destination: options.logDestination });
  const app = Fastify({
    ...log.fastifyOptions,
    // A hop count is valid at run time (proxy-addr), though Fastify's types omit it.
    trustProxy: options.trustProxy as boolean | string[],
    bodyLimit: options.bodyLimit,
    // Path segments longer than this are 414; below it, schemas decide (e.g. asset keys ≤ 100).
    routerOptions: { maxParamLength: 200 },
    ...timeoutOptions(options.http),
    frameworkErrors: errors.frameworkErrors,
    clientErrorHandler: errors.raw.clientError,
    // The 'proto' and 'constructor' keys of a JSON body are rejected, not merged into objects.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: false,
  });
  log.attach(app);

  const trusted = trustedProxy(options.trustProxy);
  // Behind a proxy every client arrives from its address: capping clients is the proxy's job.
  // No WebSocket is served here: an upgrade request is answered as an ordinary request.
  guardConnections(app.server, { limits: options.http, raw: errors.raw, exempt: trusted, acceptsUpgrades: false });

  registerValidation(app);
  const limiter = createRateLimiter(app, {
    ...options.rateLimit,
    clock: options.clock,
    redis: options.redis,
    redisPrefix: options.redisPrefix,
    trustedProxy: trusted,
  });
  errors.bind(limiter);
  // Deprecation headers, rate limit and framing check, in one hook.
  registerOnRequest(app, limiter);
  registerErrorHandling(app);
  await app.register(formbody, { bodyLimit: options.bodyLimit });

  const { identity } = options.services;
  const handlers = createHandlers(options.services);
  registerOperationRoutes(app, handlers, identity.tokens, options.urls);
  registerMcpRoutes(app, { handlers, tokens: identity.tokens, urls: options.urls, version: options.version });
  registerOAuthRoutes(app, identity);
  registerDashboard(app, identity, options.clock);
  registerDiscoveryRoutes(app, options.urls, options.version);
  return app;
}
