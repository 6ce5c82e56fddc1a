// The server card served at /.well-known/mcp.json and /mcp.json: what a client or a registry
// needs to know before it connects (name, version, endpoint, transport, protocol revisions, how
// to authorize, the tools and their schemas), from the same tools the endpoint serves.
import type { Scope } from '../../contracts/auth.ts';
import { MCP_PATH } from '../../contracts/mcp.ts';
import { resourceMetadataPath } from '../../core/identity/resources.ts';
import type { ServiceUrls } from '../../core/urls.ts';
import { REGISTRATION_PATH } from '../oauth/metadata.ts';
import { PROTOCOL_VERSIONS } from './guard.ts';
import type { McpTool } from './tools.ts';

export const SERVER_DESCRIPTION =
  "Loom's hosted operations as MCP tools: its downloadable builds (IDE, Omni, CLI), the open-source models it runs, product feedback, tab completion, and composer sessions (multi-file edits made on the server).";

/**
 * The server card.
 *
 * @example
 * serverCard(urls, '0.1.0', tools, ['read:tab']).endpoint; // 'https://loom.example.com/mcp'
 */
export function serverCard(urls: ServiceUrls, version: string, tools: ReadonlyMap<string, McpTool>, scopes: readonly Scope[]) {
  return {
    name: 'loom',
    title: 'Loom',
    version,
    description: SERVER_DESCRIPTION,
    endpoint: urls.publicUrl + MCP_PATH,
    transport: { type: 'streamable-http', sessions: false, methods: ['POST'] },
    protocolVersions: PROTOCOL_VERSIONS,
    capabilities: { tools: { listChanged: false } },
    authorization: {
      // Some tools work without credentials; those that need a token answer 401 with a challenge.
      required: false,
      schemes: ['oauth2', 'bearer'],
      protectedResourceMetadata: urls.publicUrl + resourceMetadataPath('mcp'),
      authorizationServers: [urls.issuer],
      scopes,
      clientRegistration: { dynamic: urls.issuer + REGISTRATION_PATH, clientIdMetadataDocuments: false },
    },
    documentation: `${urls.publicUrl}/llms.txt`,
    tools: [...tools.values()].map(({ definition, auth }) => ({
      ...definition,
      authorization: { anonymous: Boolean(auth.anonymous), scopes: auth.oauth2 ?? [], apiKeys: Boolean(auth.bearer) },
    })),
  };
}
