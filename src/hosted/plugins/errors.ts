// Every hosted error leaves in one shape, {error, message, hint?, details?} (src/http/errors.ts),
// with 404 and 405 told apart and router errors counted by the rate limit.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { ERROR_CODES, type ErrorCode } from '../../contracts/errors.ts';
import { describeError, errorBody } from '../../http/errors.ts';
import type { RateLimiter } from './rate-limit/index.ts';

export function sendError(reply: FastifyReply, code: ErrorCode, message: string, hint?: string): FastifyReply {
  return reply.code(ERROR_CODES[code].status).type('application/json; charset=utf-8').send(errorBody(code, message, hint));
}

/**
 * Errors the router raises before any hook runs (a malformed or over-long URL). They still
 * count against the rate limit and leave in the Error shape with the RateLimit headers.
 * Passed to Fastify's constructor; bound to the app's limiter once it exists.
 */
export function frameworkErrorHandler() {
  let limit: RateLimiter | undefined;
  const handler = async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    try {
      await limit?.(request, reply);
    } catch (limited) {
      error = limited as FastifyError;
    }
    const { status, body } = describeError(error);
    return reply.code(status).type('application/json; charset=utf-8').send(body);
  };
  return Object.assign(handler, {
    bind(limiter: RateLimiter) {
      limit = limiter;
    },
  });
}

export function registerErrorHandling(app: FastifyInstance): void {
  // A router mirroring the real one, used only to tell 405 (path exists) from 404.
  const methodsByPath = FindMyWay();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      try {
        methodsByPath.on(method as 'GET', route.url, () => {});
      } catch {
        // Already known (e.g. the same path under two prefixes registering HEAD twice).
      }
    }
  });

  app.setErrorHandler((error, request, reply) => {
    const { status, body, internal } = describeError(error);
    if (internal) request.log.error({ err: error }, 'unhandled error');
    // RFC 6749 §5.2: a failed Basic client authentication answers with the Basic challenge.
    if (body.error === 'invalid_client' && request.basicAuth) reply.header('www-authenticate', 'Basic realm="loom"');
    reply.code(status).type('application/json; charset=utf-8').send(body);
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = allowedMethods(methodsByPath, path);
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

function allowedMethods(router: ReturnType<typeof FindMyWay>, path: string): string[] {
  const found: string[] = [];
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    if (router.find(method, path)) found.push(method);
  }
  if (found.includes('GET')) found.push('HEAD');
  return found;
}
