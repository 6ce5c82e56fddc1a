// The deprecated unversioned /api alias: every response under it — operations, 404s, 405s,
// router errors and 429s alike — carries Deprecation, Sunset and a Link to its /api/v1 successor.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_PREFIX, DEPRECATED_PREFIX, DEPRECATION_HEADERS } from '../../contracts/versioning.ts';
import { requestPath } from '../../http/request-framing.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route is the deprecated alias of an /api/v1 operation. */
    deprecatedAlias?: boolean;
  }
}

const VERSIONED = new RegExp(`^${DEPRECATED_PREFIX}/v\\d+(/|$)`);

/**
 * Sets the deprecation headers when the route that answers is a deprecated alias or, when no
 * route answers (404, 405, a malformed URL), when the path lies under the deprecated prefix and
 * is not a versioned one. Documents served at /api/… (/api/openapi.json) are not aliases.
 */
export function announceDeprecation(request: FastifyRequest, reply: FastifyReply): void {
  const path = requestPath(request.url);
  const deprecated =
    request.routeOptions.url !== undefined
      ? request.routeOptions.config.deprecatedAlias === true
      : (path === DEPRECATED_PREFIX || path.startsWith(`${DEPRECATED_PREFIX}/`)) && !VERSIONED.test(path);
  if (!deprecated) return;
  reply.headers({ ...DEPRECATION_HEADERS, link: `<${API_PREFIX}${path.slice(DEPRECATED_PREFIX.length)}>; rel="successor-version"` });
}

/** Runs first, so that nothing answered later (a 429 included) goes without the headers. */
export function registerDeprecation(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    announceDeprecation(request, reply);
    done();
  });
}
