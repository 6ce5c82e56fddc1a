// Mounts every operation of the table under the current prefix, the docs mirror and the
// deprecated unversioned alias, with validation and versioning (the alias's headers: plugins/deprecation.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { operations, type AnyOperation } from '../../contracts/operations.ts';
import { API_PREFIX, DEPRECATED_PREFIX, DOCS_MIRROR_PREFIX, type ApiVersion } from '../../contracts/versioning.ts';
import { LoomError } from '../../core/errors.ts';
import type { TokenService } from '../../core/identity/tokens.ts';
import type { ServiceUrls } from '../../core/urls.ts';
import { answeredNobody } from '../../http/client-gone.ts';
import type { HandlerContext, Handlers } from '../handlers/index.ts';
import { authenticate, refuseQueryToken } from '../plugins/authenticate.ts';
import { RequestContext } from './handler-context.ts';
import { serverSentEvents, type StreamEvent } from './server-sent-events.ts';
import type { OperationAuth } from '../../contracts/auth.ts';

interface Mount {
  prefix: string;
  deprecated: boolean;
}

export const MOUNTS: readonly Mount[] = [
  { prefix: API_PREFIX, deprecated: false },
  { prefix: DOCS_MIRROR_PREFIX, deprecated: false },
  { prefix: DEPRECATED_PREFIX, deprecated: true },
];

declare module 'fastify' {
  interface FastifyRequest {
    /** The effective API version of an operation request. */
    apiVersion: ApiVersion;
  }
  interface FastifyContextConfig {
    /** The operation's checks of version, credentials and content type (plugins/on-request.ts runs them). */
    prepareOperation?: PrepareOperation;
  }
}

/** Throws, or rejects, with the error a request gets before its body is read; sync when no credentials are checked. */
export type PrepareOperation = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

/**
 * Mounts every operation of the table (src/contracts/operations.ts) at each prefix (and its
 * aliases), each route calling the handler named after its operationId.
 *
 * @example
 * registerOperationRoutes(app, createHandlers(services), identity.tokens, urls);
 */
export function registerOperationRoutes(app: FastifyInstance, handlers: Handlers, tokens: TokenService, urls: ServiceUrls): void {
  app.decorateRequest('apiVersion', 'v1');
  app.decorateRequest('principal', undefined);
  app.decorateRequest('basicAuth', undefined);
  const routes = operations.flatMap((operation) => [
    ...MOUNTS.map((mount) => ({ operation, mount, url: mount.prefix + operation.path })),
    ...(operation.aliases ?? []).map((url) => ({ operation, mount: undefined, url })),
  ]);
  for (const { operation, mount, url } of routes) {
    const handler = handlers[operation.operationId] as (input: unknown, context: HandlerContext) => Promise<unknown>;
    app.route({
      method: operation.method,
      url,
      // An operation that takes files (composer's attachments) may take more than the server's limit.
      ...(operation.bodyLimit === undefined ? {} : { bodyLimit: Math.max(operation.bodyLimit, app.initialConfig.bodyLimit ?? 0) }),
      schema: {
        ...(requestSchema(operation) as object),
        ...(operation.success.status === 302 || isStream(operation) ? {} : { response: { [operation.success.status]: operation.success.schema } }),
      },
      // Both read by the app's onRequest hook (plugins/on-request.ts): the Deprecation, Sunset
      // and Link headers are set by plugins/deprecation.ts; the checks run after the rate limit.
      config: {
        deprecatedAlias: mount?.deprecated === true,
        prepareOperation: prepare(operation, tokens, urls),
        // Read by the body parsers (http/validation.ts): an empty body of any type is no body.
        takesNoBody: (operation.request as { body?: unknown }).body === undefined,
      },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const context = new RequestContext(request, reply);
        const output = await handler({ params: request.params, query: request.query, body: request.body }, context);
        // Done, but for a client that has gone: there is no one to answer.
        if (answeredNobody(request, reply)) return reply;
        if (isStream(operation)) {
          reply.headers({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
          return reply.send(serverSentEvents(output as AsyncIterable<StreamEvent>, context.signal));
        }
        if (operation.noStore) reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' });
        if (operation.success.status === 302) {
          const { location, setCookies } = output as { location: string; setCookies?: string[] };
          for (const cookie of setCookies ?? []) reply.header('set-cookie', cookie);
          return reply.redirect(location, 302);
        }
        reply.code(operation.success.status);
        return output;
      },
    });
  }
}

function isStream(operation: AnyOperation): boolean {
  return (operation as { stream?: string }).stream === 'sse';
}

/**
 * Settles version, credentials and content type before the body is read: a body in a type the
 * operation does not take is 415 whatever it holds (not a parse error of the wrong parser), and
 * the body of a request refused for its credentials is never parsed. Operations that take no
 * credentials skip token verification: nothing presented to them is used (but a token in the
 * query string is refused everywhere), and their checks are synchronous (no promise, no tick).
 */
function prepare(operation: AnyOperation, tokens: TokenService, urls: ServiceUrls): PrepareOperation {
  const { auth } = operation as { auth: OperationAuth };
  const authenticateRequest = auth.oauth2?.length || auth.bearer || auth.clientBasic || !auth.anonymous ? authenticate(auth, tokens, urls) : undefined;
  const contentTypes = (operation.request as { contentTypes?: readonly string[] }).contentTypes;
  if (!authenticateRequest) {
    return (request, reply) => {
      negotiateVersion(operation, request, reply);
      refuseQueryToken(request);
      if (contentTypes) checkContentType(contentTypes, request);
    };
  }
  return async (request, reply) => {
    negotiateVersion(operation, request, reply);
    refuseQueryToken(request);
    await authenticateRequest(request, reply);
    if (contentTypes) checkContentType(contentTypes, request);
  };
}

function requestSchema(operation: AnyOperation) {
  const { params, query, body } = operation.request as { params?: object; query?: object; body?: object };
  // Only the parts an operation declares: Fastify warns about parts set to undefined.
  return { ...(params && { params }), ...(query && { querystring: query }), ...(body && { body }) };
}

/**
 * Picks the effective version from `API-Version` (the operation's first version by default)
 * and reports it in the response header; an unsupported one is a 400 unsupported_version.
 */
function negotiateVersion(operation: AnyOperation, request: FastifyRequest, reply: FastifyReply): void {
  const asked = request.headers['api-version'];
  const supported = operation.versions as readonly ApiVersion[];
  const value = typeof asked === 'string' ? asked.trim().toLowerCase() : undefined;
  const version = value === undefined || value === '' ? supported[0]! : (supported.find((v) => v === value) ?? null);
  if (!version) {
    throw new LoomError(
      'unsupported_version',
      `${operation.operationId} does not serve API-Version ${JSON.stringify(String(asked).slice(0, 20))}.`,
      `Supported: ${supported.join(', ')}.`,
    );
  }
  reply.header('api-version', version);
  request.apiVersion = version;
}

/** Bodies must come in a content type the operation declares; anything else is a 415. */
function checkContentType(accepted: readonly string[], request: FastifyRequest): void {
  const header = request.headers['content-type'];
  if (header === undefined) return;
  const mediaType = header.split(';')[0]!.trim().toLowerCase();
  if (!accepted.includes(mediaType)) {
    throw new LoomError('unsupported_media_type', `Content-Type ${mediaType || '(empty)'} is not accepted here.`, `Send ${accepted.join(' or ')}.`);
  }
}
