// The deprecated unversioned /api alias: every response under it — operations, 404s, 405s,
// router errors and 429s alike — carries Deprecation, Sunset and a Link to its /api/v1 successor.
import type { FastifyReply, FastifyRequest } from 'fastify';
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
export function announceDeprecation(request: FastifyRequest, reply: FastifyReply, route = request.routeOptions): void {
  // Most requests match a route that is no alias, and end here without working out their path.
  if (route.url !== undefined && route.config.deprecatedAlias !== true) return;
  const path = requestPath(request.url);
  if (route.url === undefined && !((path === DEPRECATED_PREFIX || path.startsWith(`${DEPRECATED_PREFIX}/`)) && !VERSIONED.test(path))) return;
  reply.headers({ ...DEPRECATION_HEADERS, link: `<${API_PREFIX}${path.slice(DEPRECATED_PREFIX.length)}>; rel="successor-version"` });
}
