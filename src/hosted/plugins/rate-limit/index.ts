import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../../../core/clock.ts';
import { LoomError } from '../../../core/errors.ts';
import { MemoryCounter, RedisCounter, type RateLimitStore } from './counters.ts';

export interface RateLimitOptions {
  max: number;
  windowSeconds: number;
  clock: Clock;
  /** Count in Redis (shared by every process) instead of in memory. */
  redis?: Redis;
  redisPrefix?: string;
}

/**
 * Per-client-IP limit on every route, the not-found handler included, with the draft-spec
 * RateLimit-* headers on every response and Retry-After on 429.
 */
export async function registerRateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  const memory = new MemoryCounter(options.clock);
  let warned = false;
  const store: RateLimitStore = options.redis
    ? new RedisCounter({
        redis: options.redis,
        prefix: options.redisPrefix ?? 'loom:ratelimit:',
        fallback: memory,
        onFallback: (error) => {
          if (!warned) app.log.warn({ err: error.message }, 'Redis unavailable: counting rate limits in memory');
          warned = true;
        },
      })
    : memory;
  if (options.redis) options.redis.on('ready', () => (warned = false));

  await app.register(rateLimit, {
    global: true,
    max: options.max,
    timeWindow: options.windowSeconds * 1000,
    enableDraftSpec: true,
    // The plugin instantiates the store class with its own parameters; ours is already built.
    store: function SharedStore() {
      return store;
    } as never,
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      const error = new LoomError(
        'rate_limited',
        `Rate limit of ${context.max} requests per ${options.windowSeconds} s exceeded.`,
        `Retry after ${seconds} s.`,
      );
      return Object.assign(error, { statusCode: 429 });
    },
  });
}
