// Per-client-IP limit on every response — operations, documents, 404s and router errors — with
// the draft-spec RateLimit-Limit / -Remaining / -Reset headers and, past the limit, a 429 with
// Retry-After. One onRequest hook; synchronous when counting in memory.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../../../core/clock.ts';
import { MemoryCounter, type Counter, type CountResult } from '../../../core/rate-limit/counters.ts';
import { applyRateLimit } from '../../../http/rate-limit-headers.ts';
import { RedisCounter } from './redis-counter.ts';

export interface RateLimitOptions {
  max: number;
  windowSeconds: number;
  clock: Clock;
  /** Count in Redis (shared by every process) instead of in memory. */
  redis?: Redis;
  redisPrefix?: string;
}

/** Counts a request and sets the headers; resolves, or rejects with a 429 LoomError. */
export type RateLimiter = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export function registerRateLimit(app: FastifyInstance, options: RateLimitOptions): RateLimiter {
  const windowMs = options.windowSeconds * 1000;
  const memory = new MemoryCounter(options.clock);
  let warned = false;
  const counter: Counter = options.redis
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
  options.redis?.on('ready', () => (warned = false));

  const enforce = (reply: FastifyReply, counted: CountResult) => applyRateLimit(reply, counted, options.max, options.windowSeconds);

  app.addHook('onRequest', (request, reply, done) => {
    const counted = counter.count(request.ip, windowMs);
    if (counted instanceof Promise) counted.then((result) => done(enforce(reply, result)), done);
    else done(enforce(reply, counted));
  });

  return async (request, reply) => {
    const refusal = enforce(reply, await counter.count(request.ip, windowMs));
    if (refusal) throw refusal;
  };
}
