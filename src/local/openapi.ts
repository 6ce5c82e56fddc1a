// The OpenAPI 3.1 document of the local API, derived from the local route table; the server
// serves it at GET /api/openapi.json (behind its token, as every route).
import type { ErrorCode } from '../contracts/errors.ts';
import { localCode, LocalErrorBody, type OpenApiDocument } from '../contracts/local-resources.ts';
import { bodyOptional, LOCAL_TAGS, localRoutes, type LocalRoute, type LocalRouteAccess } from '../contracts/local-routes.ts';
import { plainSchema } from '../contracts/schema-helpers.ts';
import { errorResponses, parametersOf, pathsOf, RATE_LIMIT_HEADERS, rateLimitHeaders, type Json } from '../http/openapi.ts';
import { bodyErrors, UNIVERSAL_ERRORS } from '../contracts/operation-errors.ts';
import { windowCookieName } from './window/sign-in.ts';

/**
 * The document for a server on `port` (the one address it names).
 *
 * @example
 *   const document = localOpenApi(LOOM_VERSION, 27432);
 *   document.paths['/api/editor/open'].post.operationId; // 'openDocument'
 */
export function localOpenApi(version: string, port: number): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Loom local API',
      version,
      description:
        "The local API of Loom's desktop application: the editor's documents, AI completion, agent tasks, git, the event stream and the webhook log, for one workspace. It listens on the loopback addresses only; every route but those marked otherwise needs `Authorization: Bearer <apiToken>` (from settings.json) or the window's session cookie (with `X-Loom-CSRF` on anything but a GET), and answers a Host or Origin other than its own with 403. Every answer carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (`x-loom-limit` names the budget a route draws on); every error has the LocalError shape. `x-loom-emits` lists the events a route emits.",
    },
    servers: [{ url: `http://127.0.0.1:${port}`, description: 'This server (also at localhost and [::1] on the same port).' }],
    tags: Object.entries(LOCAL_TAGS).map(([name, description]) => ({ name, description })),
    paths: pathsOf(localRoutes as readonly LocalRoute[], describeRoute),
    components: {
      schemas: { LocalError: plainSchema(LocalErrorBody) },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API token of settings.json (`loom token` prints it).' },
        eventTicket: {
          type: 'apiKey',
          in: 'query',
          name: 'ticket',
          description: 'A single-use ticket from POST /api/events/ticket; opens the event stream once, as a WebSocket upgrade only.',
        },
        windowSession: {
          type: 'apiKey',
          in: 'cookie',
          name: windowCookieName(port),
          description: "The window's session (HttpOnly, SameSite=Strict), bought with a one-time code or the token at POST /api/session (docs/window.md).",
        },
        windowCsrf: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Loom-CSRF',
          description: "The window session's CSRF value (from POST or GET /api/session): required with the session cookie on every request but a GET.",
        },
      },
      headers: RATE_LIMIT_HEADERS,
    },
  };
}

/**
 * Every error code a route may answer with: its own, those its shape implies (credentials, input
 * to validate, a POST's body, a WebSocket, events queued durably for webhooks), a Host or Origin
 * that is not this server's, and those every route of either API may answer. The OpenAPI
 * document says it per route; the docs and the fuzz test read it from there.
 */
export function localRouteErrors(route: LocalRoute): ErrorCode[] {
  const { request } = route;
  const codes: ErrorCode[] = [...route.errors];
  if ((route.access ?? 'token') !== 'public') codes.push('unauthorized');
  if (route.access === 'window') codes.push('window_required');
  if (request.params || request.query || request.body) codes.push('validation_error');
  // A path segment names a resource (not_found when it cannot exist); one longer than the router takes is uri_too_long.
  if (request.params) codes.push('not_found', 'uri_too_long');
  codes.push(...bodyErrors(route));
  if (route.websocket) codes.push('upgrade_required');
  if (route.emits?.length) codes.push('store_unavailable');
  codes.push('forbidden', ...UNIVERSAL_ERRORS);
  return [...new Set(codes)];
}

function describeRoute(route: LocalRoute): Json {
  const { params, query, body } = route.request;
  const success: Json =
    route.success.status === 101
      ? { description: route.success.description, 'x-loom-messages': plainSchema(route.success.schema) }
      : {
          description: route.success.description,
          headers: rateLimitHeaders(),
          content: { 'application/json': { schema: plainSchema(route.success.schema) } },
        };
  return {
    operationId: route.id,
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    security: securityOf(route.access ?? 'token', route.method),
    parameters: [...parametersOf(params, 'path'), ...parametersOf(query, 'query')],
    ...(body ? { requestBody: { required: !bodyOptional(route), content: { 'application/json': { schema: plainSchema(body) } } } } : {}),
    responses: {
      [route.success.status]: success,
      ...errorResponses(localRouteErrors(route), 'local', localCode, '#/components/schemas/LocalError'),
    },
    'x-loom-limit': route.limit ?? 'default',
    ...(route.emits?.length ? { 'x-loom-emits': [...route.emits] } : {}),
  };
}

/**
 * The accepted schemes as OpenAPI security requirements; none for a public route. The window's
 * session cookie stands in for the token, with its CSRF value on anything but a GET.
 */
function securityOf(access: LocalRouteAccess, method: LocalRoute['method']): Json[] {
  if (access === 'public') return [];
  const window = method === 'GET' ? { windowSession: [] } : { windowSession: [], windowCsrf: [] };
  // What runs code: the window's session (from its one-time link) only, never the token.
  if (access === 'window') return [window];
  if (access === 'ticket') return [{ bearerAuth: [] }, { eventTicket: [] }, window];
  return [{ bearerAuth: [] }, window];
}
