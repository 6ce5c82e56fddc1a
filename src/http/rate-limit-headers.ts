import type { FastifyReply } from 'fastify';
import { LoomError } from '../core/errors.ts';
import type { CountResult } from '../core/rate-limit/counters.ts';

/**
 * Sets the draft-spec RateLimit-Limit / -Remaining / -Reset headers for a counted request and,
 * past the limit, Retry-After; returns the 429 to answer with, or undefined when it may go on.
 */
export function applyRateLimit(reply: FastifyReply, { current, ttl }: CountResult, max: number, windowSeconds: number): LoomError | undefined {
  const reset = Math.max(1, Math.ceil(ttl / 1000));
  reply.headers({ 'ratelimit-limit': max, 'ratelimit-remaining': Math.max(0, max - current), 'ratelimit-reset': reset });
  if (current <= max) return undefined;
  reply.header('retry-after', reset);
  return new LoomError('rate_limited', `Rate limit of ${max} requests per ${windowSeconds} s exceeded.`, `Retry after ${reset} s.`);
}
