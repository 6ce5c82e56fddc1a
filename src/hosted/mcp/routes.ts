// The hosted MCP server at /mcp: Streamable HTTP, stateless, POST only (a server that keeps no
// sessions has nothing to stream on a GET, so GET and DELETE are 405 with `Allow: POST`).
// Every request runs the app's own hooks first (rate limit, request framing); then the
// transport's header rules, the caller's credentials as the called tool's operation wants
// them, and the protocol itself.
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
import { authenticate, refuseQueryToken, type AuthenticationTarget } from '../plugins/authenticate.ts';
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
  'Tools of a Loom server, an open, self-hostable AI code editor: its downloadable builds, the open-source models it runs, product feedback, and tab completion. Each tool mirrors one operation of the hosted API and takes and returns what that operation takes and returns.';

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
  const credentials = credentialCheck(tools, scopes, options.tokens, urls);

  app.post(MCP_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    checkTransportHeaders(request, urls.publicUrl);
    refuseQueryToken(request);
    requireJsonBody(request, 'MCP messages are JSON.');
    const message = request.body;
    // Revisions since 2025-06-18 have no batches; refusing them keeps one tool call to one
    // request, counted once by the rate limit and judged once by the credentials check.
    if (Array.isArray(message)) throw new LoomError('bad_request', 'JSON-RPC batches are not accepted.', 'Send one message per request.');
    await credentials(message, request, reply);
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
  });

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
 * The credentials a message needs: a tool call, what the tool's operation accepts (so that a
 * tool needing a token is refused at the HTTP level, where clients look for the challenge);
 * anything else (initialize, ping, tools/list) needs none, but a token sent is still checked.
 * Checks are built once, one per tool.
 */
function credentialCheck(tools: ReadonlyMap<string, McpTool>, scopes: readonly Scope[], tokens: TokenService, urls: ServiceUrls) {
  // A 401 asks for every scope the tools use: one sign-in then serves every tool (clients of
  // today cannot reliably widen a grant later while they hold a refresh token).
  const target: AuthenticationTarget = { resource: 'mcp', challengeScope: scopes.join(' ') };
  const protocolMessages = authenticate({ anonymous: true, bearer: true }, tokens, urls, target);
  const perTool = new Map([...tools].map(([name, tool]) => [name, authenticate(tool.auth, tokens, urls, target)]));
  return (message: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const check = (isToolCall(message) && perTool.get(message.params.name)) || protocolMessages;
    return check(request, reply);
  };
}

function isToolCall(message: unknown): message is { params: { name: string } } {
  const candidate = message as { method?: unknown; params?: { name?: unknown } } | null;
  return candidate?.method === 'tools/call' && typeof candidate.params?.name === 'string';
}
