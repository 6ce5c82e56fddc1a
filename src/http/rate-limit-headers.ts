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
export function rateLimitVerdict({ current, ttl }: CountResult, max: number, windowSeconds: number): RateLimitVerdict {
  const reset = Math.max(1, Math.ceil(ttl / 1000));
  const headers: Record<string, number> = { 'ratelimit-limit': max, 'ratelimit-remaining': Math.max(0, max - current), 'ratelimit-reset': reset };
  if (current <= max) return { headers };
  headers['retry-after'] = reset;
  return { headers, refusal: new LoomError('rate_limited', `Rate limit of ${max} requests per ${windowSeconds} s exceeded.`, `Retry after ${reset} s.`) };
}

/**
 * Sets the draft-spec RateLimit-Limit / -Remaining / -Reset headers for a counted request and,
 * past the limit, Retry-After; returns the 429 to answer with, or undefined when it may go on.
 */
export function applyRateLimit(reply: FastifyReply, counted: CountResult, max: number, windowSeconds: number): LoomError | undefined {
  const { headers, refusal } = rateLimitVerdict(counted, max, windowSeconds);
  reply.headers(headers);
  return refusal;
}
