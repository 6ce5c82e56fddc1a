// Per-client-IP limit on every response — operations, documents, 404s and router errors — with
// the draft-spec RateLimit-Limit / -Remaining / -Reset headers and, past the limit, a 429 with
// Retry-After. One onRequest hook; synchronous when counting in memory.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../../../core/clock.ts';
import { LoomError } from '../../../core/errors.ts';
import { MemoryCounter, type Counter, type CountResult } from '../../../core/rate-limit/counters.ts';
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

  /** Sets the headers and returns the refusal when the client is over the limit. */
  const enforce = (reply: FastifyReply, { current, ttl }: CountResult): LoomError | undefined => {
    const reset = Math.max(1, Math.ceil(ttl / 1000));
    reply.headers({ 'ratelimit-limit': options.max, 'ratelimit-remaining': Math.max(0, options.max - current), 'ratelimit-reset': reset });
    if (current <= options.max) return undefined;
    reply.header('retry-after', reset);
    return new LoomError('rate_limited', `Rate limit of ${options.max} requests per ${options.windowSeconds} s exceeded.`, `Retry after ${reset} s.`);
  };

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
