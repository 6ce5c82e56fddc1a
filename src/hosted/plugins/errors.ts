// Every hosted error leaves in one shape, {error, message, hint?, details?} (src/http/errors.ts),
// with 404 and 405 told apart, and router errors and malformed HTTP counted by the rate limit.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, type ErrorCode } from '../../contracts/errors.ts';
import { trackAllowedMethods } from '../../http/allowed-methods.ts';
import { answeredNobody } from '../../http/client-gone.ts';
import { describeError, errorBody } from '../../http/errors.ts';
import { rawAnswers, type RawAnswers } from '../../http/raw-answers.ts';
import { requestPath } from '../../http/request-framing.ts';
import { announceDeprecation } from './deprecation.ts';
import type { RateLimiter } from './rate-limit/index.ts';

export function sendError(reply: FastifyReply, code: ErrorCode, message: string, hint?: string): FastifyReply {
  return reply
    .code(ERROR_CODES[code].status)
    .type('application/json; charset=utf-8')
    .send(errorBody(code, message, hint));
}

/**
 * Errors the router raises before any hook runs (a malformed or over-long URL), and HTTP that
 * never becomes a request (malformed, oversized headers, too slow, CONNECT). They still count
 * against the rate limit and leave in the Error shape with the RateLimit headers (and, under
 * /api, the deprecation headers). Made before the app, since Fastify's constructor takes the
 * handlers; bound to the app's limiter once it exists.
 */
export function hostedFrameworkErrors(): {
  frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
  raw: RawAnswers;
  bind(limiter: RateLimiter): void;
} {
  let limiter: RateLimiter | undefined;
  const frameworkErrors = async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    announceDeprecation(request, reply);
    try {
      await limiter?.check(request, reply);
    } catch (limited) {
      error = limited as FastifyError;
    }
    const { status, body } = describeError(error);
    return reply.code(status).type('application/json; charset=utf-8').send(body);
  };
  const raw = rawAnswers({
    envelope: errorBody,
    admit: async (socket) => (limiter ? limiter.countSocket(socket) : { headers: {} }),
  });
  return {
    frameworkErrors,
    raw,
    bind(bound) {
      limiter = bound;
    },
  };
}

/**
 * Answers every failure in the hosted Error shape: a handler's or a hook's error (a 500 logged,
 * its details kept from the client), no route (404, or 400 unsupported_version under another
 * /api/vN), a wrong method (405, with Allow).
 */
export function registerErrorHandling(app: FastifyInstance): void {
  const allowedMethods = trackAllowedMethods(app);

  app.setErrorHandler((error, request, reply) => {
    if (answeredNobody(request, reply)) return;
    const { status, body, internal } = describeError(error);
    if (internal) request.log.error({ err: error }, 'unhandled error');
    // A limit that says when to come back (composer's per-user limit), like the rate limit's 429.
    const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
    if (status === 429 && typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
    // RFC 6749 §5.2: a failed Basic client authentication answers with the Basic challenge.
    if (body.error === 'invalid_client' && request.basicAuth) reply.header('www-authenticate', 'Basic realm="loom"');
    reply.code(status).type('application/json; charset=utf-8').send(body);
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = requestPath(request.url);
    const allowed = allowedMethods(path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header('allow', allowed.join(', '));
      return sendError(reply, 'method_not_allowed', `${request.method} is not allowed on ${path}.`, `Use ${allowed.join(' or ')}.`);
    }
    const otherVersion = /^\/api\/(v\d+)(\/|$)/.exec(path);
    if (otherVersion && otherVersion[1] !== 'v1') {
      return sendError(reply, 'unsupported_version', `API version ${otherVersion[1]} is not served.`, 'The current version is /api/v1.');
    }
    return sendError(reply, 'not_found', `No route ${request.method} ${path}.`, 'GET /openapi.json lists every operation.');
  });
}
