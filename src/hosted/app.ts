// The hosted API as a Fastify app. Takes ready-made services; opening stores and listening
// is the composition root's job (server.ts), so tests can build the app around anything.
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { TrustProxy } from '../config/load.ts';
import type { Clock } from '../core/clock.ts';
import type { ServiceUrls } from '../core/urls.ts';
import { createHandlers, type HandlerServices } from './handlers/index.ts';
import { registerOAuthRoutes } from './oauth/routes.ts';
import { onClientError } from '../http/client-errors.ts';
import { frameworkErrorHandler, registerErrorHandling } from './plugins/errors.ts';
import { registerRateLimit } from './plugins/rate-limit/index.ts';
import { registerValidation } from '../http/validation.ts';
import { registerDiscoveryRoutes } from './routes/discovery.ts';
import { registerOperationRoutes } from './routes/operations.ts';
import { registerDashboard } from './web/dashboard.ts';

export interface HostedAppOptions {
  services: HandlerServices;
  version: string;
  urls: ServiceUrls;
  rateLimit: { max: number; windowSeconds: number };
  trustProxy: TrustProxy;
  bodyLimit: number;
  logLevel: string;
  clock: Clock;
  redis?: Redis;
  /** Prefix of rate limit keys in Redis (tests isolate themselves with it). */
  redisPrefix?: string;
}

export async function buildHostedApp(options: HostedAppOptions): Promise<FastifyInstance> {
  const frameworkErrors = frameworkErrorHandler();
  const app = Fastify({
    // Silent means no logger at all: a pino child logger per request costs time even when it writes nothing.
    logger: options.logLevel === 'silent' ? false : { level: options.logLevel },
    // A hop count is valid at run time (proxy-addr), though Fastify's types omit it.
    trustProxy: options.trustProxy as boolean | string[],
    bodyLimit: options.bodyLimit,
    // Path segments longer than this are 414; below it, schemas decide (e.g. asset keys ≤ 100).
    routerOptions: { maxParamLength: 200 },
    frameworkErrors,
    clientErrorHandler: onClientError,
    // The 'proto' and 'constructor' keys of a JSON body are rejected, not merged into objects.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: false,
  });

  registerValidation(app);
  const limiter = registerRateLimit(app, { ...options.rateLimit, clock: options.clock, redis: options.redis, redisPrefix: options.redisPrefix });
  frameworkErrors.bind(limiter);
  registerErrorHandling(app);
  await app.register(formbody, { bodyLimit: options.bodyLimit });

  const { identity } = options.services;
  registerOperationRoutes(app, createHandlers(options.services), identity.tokens, options.urls);
  registerOAuthRoutes(app, identity);
  registerDashboard(app, identity, options.clock);
  registerDiscoveryRoutes(app, options.urls, options.version);
  return app;
}
