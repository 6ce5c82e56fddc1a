// Talking to the hosted MCP server in tests: the SDK's own client over Streamable HTTP (with a
// token, or signing in as an MCP client does), and raw JSON-RPC posts for the transport's rules.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { ClientRecord } from '../../src/core/identity/records.ts';
import type { TestHosted } from './hosted.ts';
import { getCode, redeem, registerClient, signedInUser, type Tokens } from './oauth.ts';

/** The headers every Streamable HTTP POST carries. */
export const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' } as const;

/** An initialize request, as a client's first message. */
export function initializeMessage(protocolVersion: string = LATEST_PROTOCOL_VERSION, id: number | string = 1) {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'loom-test', version: '1.0.0' } } };
}

/** One JSON-RPC request (`tools/call`, `tools/list`, …). */
export function rpc(method: string, params: Record<string, unknown> = {}, id: number | string = 2) {
  return { jsonrpc: '2.0', id, method, params };
}

/** POSTs a message (or any raw body) to /mcp with the transport's headers and any others. */
export function postMcp(baseUrl: string, message: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers },
    body: typeof message === 'string' ? message : JSON.stringify(message),
    redirect: 'manual',
  });
}

/** The SDK's client, connected to `${baseUrl}/mcp`, sending `token` as a bearer token when given. */
export async function connectMcp(
  baseUrl: string,
  options: { token?: string; authProvider?: OAuthClientProvider } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    authProvider: options.authProvider,
    requestInit: options.token ? { headers: { authorization: `Bearer ${options.token}` } } : undefined,
  });
  const client = new Client({ name: 'loom-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/**
 * What an MCP client keeps while it signs in, in memory: its registration, PKCE verifier and
 * tokens. The browser's part is the test's: `authorizationUrl` is where the client would send
 * the user.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private information: OAuthClientInformationMixed | undefined;
  private stored: OAuthTokens | undefined;
  private verifier = '';

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadata: OAuthClientMetadata = {
      client_name: 'Test MCP client',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
  ) {}

  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/**
 * Tokens for the MCP endpoint (`resource` = its URL) from an operator's client, for a fresh
 * user or the one whose dashboard cookie is given.
 */
export async function mcpTokens(hosted: TestHosted, scope: string, cookie?: string): Promise<Tokens & { client: ClientRecord }> {
  const { client } = await registerClient(hosted);
  const session = cookie ?? (await signedInUser(hosted)).cookie;
  const grant = await getCode(hosted, client, session, { scope, resource: `${hosted.url}/mcp` });
  return { ...(await redeem(hosted, client, grant)), client };
}

/** The hidden fields of the consent page's form, unescaped. */
export function consentFields(html: string): Record<string, string> {
  const unescape = (text: string) =>
    text.replace(/&(amp|lt|gt|quot|#39);/g, (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!);
  return Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(([, name, value]) => [unescape(name!), unescape(value!)]),
  );
}
