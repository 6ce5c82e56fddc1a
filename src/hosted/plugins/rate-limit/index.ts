// Per-client-IP limit on every response — operations, documents, 404s, router errors and the
// answers written straight to a socket (malformed HTTP) — with the draft-spec RateLimit-Limit /
// -Remaining / -Reset headers and, past the limit, a 429 with Retry-After. The app's onRequest
// hook (plugins/on-request.ts) calls `admit`, which is synchronous when counting in memory.
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../../../core/clock.ts';
import type { LoomError } from '../../../core/errors.ts';
import { MemoryCounter, type Counter, type CountResult } from '../../../core/rate-limit/counters.ts';
import { applyRateLimit, rateLimitVerdict, type RateLimitVerdict } from '../../../http/rate-limit-headers.ts';
import { RedisCounter } from './redis-counter.ts';

export interface RateLimitOptions {
  max: number;
  windowSeconds: number;
  clock: Clock;
  /** Count in Redis (shared by every process) instead of in memory. */
  redis?: Redis;
  redisPrefix?: string;
}

export interface RateLimiter {
  /**
   * Counts a request and sets the headers; gives the 429 to answer with, or undefined when the
   * request may go on. Synchronous when counting in memory (no promise, no extra tick).
   */
  admit(request: FastifyRequest, reply: FastifyReply): LoomError | undefined | Promise<LoomError | undefined>;
  /** Counts a request and sets the headers; resolves, or rejects with a 429 LoomError. */
  check(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /**
   * Counts an answer written straight to a socket, before any header could be read: against
   * the peer's address, or, for a trusted proxy, against a budget of its own for what comes
   * through it unattributed (counting it as the proxy would let one client use up everyone's).
   */
  countSocket(socket: Socket): Promise<RateLimitVerdict>;
}

/**
 * The hosted API's rate limiter: in Redis when given one (falling back to memory while Redis is
 * down, with one warning in the app's log), else in memory.
 *
 * @example
 *   const limiter = createRateLimiter(app, { max: 120, windowSeconds: 60, clock: systemClock, trustedProxy: () => false });
 *   const refusal = await limiter.admit(request, reply); // a 429 LoomError past the limit
 */
export function createRateLimiter(app: FastifyInstance, options: RateLimitOptions & { trustedProxy: (address: string) => boolean }): RateLimiter {
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
  const admit: RateLimiter['admit'] = (request, reply) => {
    const counted = counter.count(request.ip, windowMs);
    return counted instanceof Promise ? counted.then((result) => enforce(reply, result)) : enforce(reply, counted);
  };

  return {
    admit,
    async check(request, reply) {
      const refusal = await admit(request, reply);
      if (refusal) throw refusal;
    },
    async countSocket(socket) {
      const peer = socket.remoteAddress ?? 'unknown';
      const key = options.trustedProxy(peer) ? `unattributed:${peer}` : peer;
      return rateLimitVerdict(await counter.count(key, windowMs), options.max, options.windowSeconds);
    },
  };
}
