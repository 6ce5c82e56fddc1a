// Mounts every operation of the table under the current prefix, the docs mirror and the
// deprecated unversioned alias, with validation and versioning (the alias's headers: plugins/deprecation.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { operations, type AnyOperation } from '../../contracts/operations.ts';
import { API_PREFIX, DEPRECATED_PREFIX, DOCS_MIRROR_PREFIX, type ApiVersion } from '../../contracts/versioning.ts';
import { LoomError } from '../../core/errors.ts';
import type { TokenService } from '../../core/identity/tokens.ts';
import type { ServiceUrls } from '../../core/urls.ts';
import { clientGone } from '../../http/client-gone.ts';
import type { HandlerContext, Handlers } from '../handlers/index.ts';
import { authenticate, refuseQueryToken } from '../plugins/authenticate.ts';
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
}

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
      schema: {
        ...(requestSchema(operation) as object),
        ...(operation.success.status === 302 ? {} : { response: { [operation.success.status]: operation.success.schema } }),
      },
      // The Deprecation, Sunset and Link headers are set by plugins/deprecation.ts.
      config: { deprecatedAlias: mount?.deprecated === true },
      preParsing: prepare(operation, tokens, urls),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        let gone: AbortSignal | undefined;
        const context: HandlerContext = {
          version: request.apiVersion,
          client: { ip: request.ip, userAgent: request.headers['user-agent'] },
          principal: request.principal,
          basicAuth: request.basicAuth,
          // Made on first use: most handlers never wait long enough to care.
          get signal() {
            return (gone ??= clientGone(reply));
          },
        };
        const output = await handler({ params: request.params, query: request.query, body: request.body }, context);
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

/**
 * Settles version, credentials and content type before the body is read, in one hook (each
 * hook Fastify runs costs time on every request): a body in a type the operation does not take
 * is 415 whatever it holds (not a parse error of the wrong parser), and the body of a request
 * refused for its credentials is never parsed. Operations that take no credentials skip token
 * verification: nothing presented to them is used (but a token in the query string is refused
 * everywhere).
 */
function prepare(operation: AnyOperation, tokens: TokenService, urls: ServiceUrls) {
  const { auth } = operation as { auth: OperationAuth };
  const authenticateRequest = auth.oauth2?.length || auth.bearer || auth.clientBasic || !auth.anonymous ? authenticate(auth, tokens, urls) : undefined;
  const contentTypes = (operation.request as { contentTypes?: readonly string[] }).contentTypes;
  return async <Payload>(request: FastifyRequest, reply: FastifyReply, payload: Payload): Promise<Payload> => {
    negotiateVersion(operation, request, reply);
    refuseQueryToken(request);
    if (authenticateRequest) await authenticateRequest(request, reply);
    if (contentTypes) checkContentType(contentTypes, request);
    return payload;
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
