// The hosted app's one onRequest hook. Deprecation headers, the rate limit, HTTP's framing rules
// and an operation's own checks (version, credentials, content type) run in it, in that order,
// rather than as four hooks: every hook Fastify runs costs every request, and these do little each.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { LoomError } from '../../core/errors.ts';
import { checkRequestFraming } from '../../http/request-framing.ts';
import { announceDeprecation } from './deprecation.ts';
import type { RateLimiter } from './rate-limit/index.ts';

type Route = FastifyRequest['routeOptions'];

/**
 * Adds the hook. The deprecation headers come first, so that every answer under /api carries
 * them, a 429 included; then the rate limit, so that every answer counts; then the framing
 * check (one Host header, an absolute-form target naming it, an Expect that can be met); then,
 * on an operation's route, the operation's checks (routes/operations.ts), before the body is
 * read. Synchronous when the rate limit counts in memory and the operation checks no credentials.
 *
 * @example
 *   registerOnRequest(app, createRateLimiter(app, options));
 */
export function registerOnRequest(app: FastifyInstance, limiter: RateLimiter): void {
  app.addHook('onRequest', (request, reply, done) => {
    // Read once: each read of routeOptions builds a new object.
    const route = request.routeOptions;
    announceDeprecation(request, reply, route);
    const refusal = limiter.admit(request, reply);
    if (refusal instanceof Promise) refusal.then((settled) => admitted(request, reply, route, settled, done), done);
    else admitted(request, reply, route, refusal, done);
  });
}

/** Past the rate limit: answers its refusal, or else checks framing and the operation's own rules. */
function admitted(request: FastifyRequest, reply: FastifyReply, route: Route, refusal: LoomError | undefined, done: HookHandlerDoneFunction): void {
  if (refusal) return done(refusal);
  let prepared: void | Promise<void>;
  try {
    checkRequestFraming(request);
    prepared = route.config.prepareOperation?.(request, reply);
  } catch (error) {
    return done(error as Error);
  }
  if (prepared) prepared.then(() => done(), done);
  else done();
}
