// The hosted MCP server at /mcp: Streamable HTTP, stateless, POST only (a server that keeps no
// sessions has nothing to stream on a GET, so GET and DELETE are 405 with `Allow: POST`).
// Every request runs the app's own hooks first (rate limit, request framing); then, before its
// body is read, the transport's header rules and the verification of the credentials it sent;
// once the message is read, the called tool's rule for who may call it; then the protocol itself.
import { Transform, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ALL_SCOPES, type Scope } from '../../contracts/auth.ts';
import { MCP_MANIFEST_PATHS, MCP_PATH } from '../../contracts/mcp.ts';
import { resourceMetadataPath } from '../../core/identity/resources.ts';
import { LoomError } from '../../core/errors.ts';
import type { TokenService } from '../../core/identity/tokens.ts';
import type { ServiceUrls } from '../../core/urls.ts';
import { clientGone } from '../../http/client-gone.ts';
import { requireJsonBody } from '../../http/json-body.ts';
import type { Handlers } from '../handlers/index.ts';
import { admitPrincipal, refuseQueryToken, verifyBearer, type AuthenticationTarget } from '../plugins/authenticate.ts';
import { protectedResourceMetadata } from '../oauth/metadata.ts';
import { checkTransportHeaders } from './guard.ts';
import { serverCard } from './manifest.ts';
import { protocolServer } from './protocol-server.ts';
import { buildTools, type McpTool } from './tools.ts';

export interface McpOptions {
  handlers: Handlers;
  tokens: TokenService;
  urls: ServiceUrls;
  version: string;
}

/** Said to clients on initialize. */
const INSTRUCTIONS =
  'Tools of a Loom server, an open, self-hostable AI code editor: its downloadable builds, the open-source models it runs, product feedback, tab completion, and composer sessions (multi-file edits the server makes with its model: start one, then read or cancel it). Each tool mirrors one operation of the hosted API and takes and returns what that operation takes and returns.';

/**
 * Mounts POST /mcp, the MCP resource's metadata (RFC 9728, at its path-suffixed well-known URL)
 * and the server card.
 *
 * @example
 * registerMcpRoutes(app, { handlers, tokens: identity.tokens, urls, version });
 */
export function registerMcpRoutes(app: FastifyInstance, options: McpOptions): void {
  const { urls } = options;
  const tools = buildTools(options.handlers);
  const scopes = toolScopes(tools);
  const protocol = protocolServer({ name: 'loom', title: 'Loom', version: options.version }, tools, INSTRUCTIONS);
  // A 401 asks for every scope the tools use: one sign-in then serves every tool (clients of
  // today cannot reliably widen a grant later while they hold a refresh token).
  const target: AuthenticationTarget = { resource: 'mcp', challengeScope: scopes.join(' ') };
  const verify = verifyBearer(options.tokens, urls, target);
  const admitters = new Map([...tools].map(([name, tool]) => [name, admitPrincipal(tool.auth, urls, target)]));
  const limits = bodyLimits(tools, app.initialConfig.bodyLimit ?? 1024 * 1024);

  app.post(
    MCP_PATH,
    {
      bodyLimit: limits.signedIn,
      config: {
        // Run by the app's onRequest hook (plugins/on-request.ts), after the rate limit and
        // before the body is read: a request refused for its headers or its credentials is
        // never parsed.
        prepareOperation: async (request: FastifyRequest, reply: FastifyReply) => {
          checkTransportHeaders(request, urls.publicUrl);
          refuseQueryToken(request);
          requireJsonBody(request, 'MCP messages are JSON.');
          // A token sent is checked whatever the message (an invalid one is a 401 even for ping).
          request.principal = await verify(request, reply);
        },
      },
      // The tool is known only once the body is read. A tool may take more than the server's
      // limit (composer's attachments), and its operation then needs credentials: so a caller
      // with a valid token may send that much, and an anonymous one the server's limit.
      preParsing: async (request: FastifyRequest, reply: FastifyReply, payload: Readable) =>
        request.principal ? payload : capBody(payload, limits.anonymous, request, reply),
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const message = request.body;
      // Revisions since 2025-06-18 have no batches; refusing them keeps one tool call to one
      // request, counted once by the rate limit and judged once by the credentials check.
      if (Array.isArray(message)) throw new LoomError('bad_request', 'JSON-RPC batches are not accepted.', 'Send one message per request.');
      // A tool call is judged by its operation's rule, at the HTTP level, where clients look
      // for the challenge; anything else (initialize, ping, tools/list) needs no credentials.
      if (isToolCall(message)) admitters.get(message.params.name)?.(request.principal, request, reply);
      const answer = await protocol.answer({
        message,
        headers: request.headers,
        url: urls.publicUrl + MCP_PATH,
        context: {
          client: { ip: request.ip, userAgent: request.headers['user-agent'] },
          principal: request.principal,
          signal: clientGone(reply),
        },
      });
      reply.code(answer.status);
      if (answer.contentType) reply.type(answer.contentType);
      return reply.send(answer.body || undefined);
    },
  );

  // Documents, made on each request: the public URL is known only once the server listens.
  const document = (path: string, build: () => unknown) =>
    app.get(path, async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(build()));
  document(resourceMetadataPath('mcp'), () =>
    protectedResourceMetadata(urls, 'mcp', { name: 'Loom MCP server', scopes, documentation: urls.publicUrl + MCP_MANIFEST_PATHS[0] }),
  );
  for (const path of MCP_MANIFEST_PATHS) document(path, () => serverCard(urls, options.version, tools, scopes));
}

/** The scopes the tools' operations accept, in the order of the scope table. */
function toolScopes(tools: ReadonlyMap<string, McpTool>): Scope[] {
  const used = new Set([...tools.values()].flatMap((tool) => tool.auth.oauth2 ?? []));
  return ALL_SCOPES.filter((scope) => used.has(scope));
}

/**
 * Bytes a message may have: with verified credentials, as much as the largest operation among
 * the tools takes (their REST routes take as much); without, the server's `bodyLimit`.
 */
function bodyLimits(tools: ReadonlyMap<string, McpTool>, serverLimit: number): { signedIn: number; anonymous: number } {
  const largest = Math.max(...[...tools.values()].map((tool) => tool.operation.bodyLimit ?? 0));
  return { signedIn: Math.max(serverLimit, largest), anonymous: serverLimit };
}

/**
 * `payload`, refused with 413 once it passes `limit` bytes (at once when its Content-Length says
 * it will). The connection is closed after the answer, as Fastify does past a route's limit: the
 * rest of the body is never read.
 */
function capBody(payload: Readable, limit: number, request: FastifyRequest, reply: FastifyReply): Readable {
  const tooLarge = () => {
    reply.header('connection', 'close');
    return new LoomError('payload_too_large', `An MCP message sent without credentials may have ${limit} bytes.`, 'Send a bearer token, or a smaller message.');
  };
  if (Number(request.headers['content-length']) > limit) throw tooLarge();
  let received = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      callback(received > limit ? tooLarge() : null, chunk);
    },
  });
  // pipe() does not pass a failure of the request on (a client that went away mid-body).
  payload.once('error', (error) => capped.destroy(error));
  return payload.pipe(capped);
}

function isToolCall(message: unknown): message is { params: { name: string } } {
  const candidate = message as { method?: unknown; params?: { name?: unknown } } | null;
  return candidate?.method === 'tools/call' && typeof candidate.params?.name === 'string';
}
