import type { FastifyReply } from 'fastify';
import { LoomError } from '../core/errors.ts';
import type { CountResult } from '../core/rate-limit/counters.ts';

export interface RateLimitVerdict {
  /** RateLimit-Limit / -Remaining / -Reset, and Retry-After past the limit. */
  headers: Record<string, number>;
  /** The 429 to answer with, or undefined when the request may go on. */
  refusal?: LoomError;
}

/** The draft-spec RateLimit headers of a counted request and, past the limit, its 429. */
export function rateLimitVerdict(counted: CountResult, max: number, windowSeconds: number): RateLimitVerdict {
  const reset = resetSeconds(counted);
  const headers: Record<string, number> = { 'ratelimit-limit': max, 'ratelimit-remaining': Math.max(0, max - counted.current), 'ratelimit-reset': reset };
  if (counted.current <= max) return { headers };
  headers['retry-after'] = reset;
  return { headers, refusal: refusal(max, windowSeconds, reset) };
}

/**
 * Sets the draft-spec RateLimit-Limit / -Remaining / -Reset headers for a counted request and,
 * past the limit, Retry-After; returns the 429 to answer with, or undefined when it may go on.
 * The same headers as rateLimitVerdict's, set one by one: it runs on every request, and the
 * record of them would be garbage at once.
 */
export function applyRateLimit(reply: FastifyReply, counted: CountResult, max: number, windowSeconds: number): LoomError | undefined {
  const reset = resetSeconds(counted);
  reply
    .header('ratelimit-limit', max)
    .header('ratelimit-remaining', Math.max(0, max - counted.current))
    .header('ratelimit-reset', reset);
  if (counted.current <= max) return undefined;
  reply.header('retry-after', reset);
  return refusal(max, windowSeconds, reset);
}

function resetSeconds({ ttl }: CountResult): number {
  return Math.max(1, Math.ceil(ttl / 1000));
}

function refusal(max: number, windowSeconds: number, reset: number): LoomError {
  return new LoomError('rate_limited', `Rate limit of ${max} requests per ${windowSeconds} s exceeded.`, `Retry after ${reset} s.`);
}
