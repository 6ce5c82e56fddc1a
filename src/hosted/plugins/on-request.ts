// The hosted app's one onRequest hook. Deprecation headers, the rate limit and HTTP's framing
// rules run in it, in that order, rather than as three hooks: every hook Fastify runs costs
// every request, and these three do little each.
import type { FastifyInstance, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { LoomError } from '../../core/errors.ts';
import { checkRequestFraming } from '../../http/request-framing.ts';
import { announceDeprecation } from './deprecation.ts';
import type { RateLimiter } from './rate-limit/index.ts';

/**
 * Adds the hook. The deprecation headers come first, so that every answer under /api carries
 * them, a 429 included; then the rate limit, so that every answer counts; then the framing
 * check (one Host header, an absolute-form target naming it, an Expect that can be met).
 * Synchronous when the rate limit counts in memory.
 *
 * @example
 *   registerOnRequest(app, createRateLimiter(app, options));
 */
export function registerOnRequest(app: FastifyInstance, limiter: RateLimiter): void {
  app.addHook('onRequest', (request, reply, done) => {
    announceDeprecation(request, reply);
    const refusal = limiter.admit(request, reply);
    if (refusal instanceof Promise) refusal.then((settled) => checkFraming(request, settled, done), done);
    else checkFraming(request, refusal, done);
  });
}

/** Answers a request the rate limit refused, or else one that breaks HTTP's framing rules. */
function checkFraming(request: FastifyRequest, refusal: LoomError | undefined, done: HookHandlerDoneFunction): void {
  if (refusal) return done(refusal);
  try {
    checkRequestFraming(request);
  } catch (error) {
    return done(error as Error);
  }
  done();
}
