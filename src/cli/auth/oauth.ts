// The CLI as an OAuth client of a Loom hosted server: which server, its metadata (RFC 8414),
// token requests, and reading the claims of a token for display.
import type { TokenResponse } from '../../contracts/auth.ts';
import { loadConfig, publicUrlFor } from '../../config/load.ts';
import { CLI_CLIENT_ID } from '../../core/identity/clients.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import type { ServerCredentials } from './credentials.ts';

export { CLI_CLIENT_ID };

type Env = Record<string, string | undefined>;

const REQUEST_TIMEOUT_MS = 30_000;

/** `http(s)://host[:port][/path]` without a trailing slash, or undefined when not such a URL. */
export function normalizeServerUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) return undefined;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The hosted server: --server, else LOOM_SERVER, else the configured hosted API (default http://127.0.0.1:8080). */
export function resolveServer(flag: string | undefined, env: Env = process.env): string {
  if (flag !== undefined) {
    const server = normalizeServerUrl(flag);
    if (!server) throw new CliError(`--server: "${flag}" is not an http or https URL`, 2);
    return server;
  }
  if (env.LOOM_SERVER) {
    const server = normalizeServerUrl(env.LOOM_SERVER);
    if (!server) throw new CliError(`LOOM_SERVER: "${env.LOOM_SERVER}" is not an http or https URL`, 2);
    return server;
  }
  return normalizeServerUrl(publicUrlFor(loadConfig({ env }))) ?? 'http://127.0.0.1:8080';
}

export interface ServerMetadata {
  issuer: string;
  token_endpoint: string;
  /** RFC 9207: the server puts `iss` on every authorization response. */
  issParameter: boolean;
  /** The sign-in providers the server has (`loom_sign_in_providers`); undefined from a server that does not say. */
  signInProviders?: string[];
}

/** `{server}/.well-known/oauth-authorization-server`. */
export async function discover(server: string): Promise<ServerMetadata> {
  const url = `${server}/.well-known/oauth-authorization-server`;
  const response = await send(url, { headers: { accept: 'application/json' } });
  const body = (await readJson(response)) as Record<string, unknown> | undefined;
  if (!response.ok || !body) throw new CliError(`${server} does not look like a Loom server: GET ${url} answered ${response.status}`);
  const issuer = typeof body.issuer === 'string' ? body.issuer : undefined;
  const tokenEndpoint = typeof body.token_endpoint === 'string' ? normalizeServerUrl(body.token_endpoint) : undefined;
  if (!issuer || !tokenEndpoint) throw new CliError(`the metadata at ${url} has no issuer or token_endpoint`);
  const providers = body.loom_sign_in_providers;
  const signInProviders = Array.isArray(providers) ? providers.filter((p): p is string => typeof p === 'string') : undefined;
  return { issuer, token_endpoint: tokenEndpoint, issParameter: body.authorization_response_iss_parameter_supported === true, signInProviders };
}

/** An OAuth error answer of the token endpoint (RFC 6749 §5.2). */
export class OAuthError extends Error {
  override name = 'OAuthError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** POSTs a form to the token endpoint as the CLI's public client. */
export async function tokenRequest(endpoint: string, params: Record<string, string>): Promise<TokenResponse> {
  const response = await send(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ ...params, client_id: CLI_CLIENT_ID }).toString(),
  });
  const body = (await readJson(response)) as Record<string, unknown> | undefined;
  if (!response.ok) {
    const code = typeof body?.error === 'string' ? body.error : `http_${response.status}`;
    const description = [body?.error_description, body?.message].find((v): v is string => typeof v === 'string');
    throw new OAuthError(response.status, code, description ? `${code}: ${description}` : `${endpoint} answered ${response.status}`);
  }
  if (!body || typeof body.access_token !== 'string' || typeof body.expires_in !== 'number') {
    throw new CliError(`${endpoint} answered without an access_token and expires_in`);
  }
  return body as unknown as TokenResponse;
}

/** What to store after a token response; a refresh answer may leave out what did not change. */
export function credentialsFrom(
  tokens: TokenResponse,
  metadata: Pick<ServerMetadata, 'issuer' | 'token_endpoint'>,
  previous?: ServerCredentials,
  now = Date.now(),
): ServerCredentials {
  const next: ServerCredentials = {
    access_token: tokens.access_token,
    expires_at: new Date(now + tokens.expires_in * 1000).toISOString(),
    scope: tokens.scope ?? previous?.scope ?? '',
    token_endpoint: metadata.token_endpoint,
    issuer: metadata.issuer,
  };
  const refreshToken = tokens.refresh_token ?? previous?.refresh_token;
  if (refreshToken) next.refresh_token = refreshToken;
  const idToken = tokens.id_token ?? previous?.id_token;
  if (idToken) next.id_token = idToken;
  return next;
}

/** The payload of a JWT, unverified: for display only, never for a decision about access. */
export function jwtClaims(token: string | undefined): Record<string, unknown> | undefined {
  const payload = token?.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return claims && typeof claims === 'object' && !Array.isArray(claims) ? claims : undefined;
  } catch {
    return undefined;
  }
}

/** What to do when the hosted server does not answer (every URL the sign-in commands call is its). */
const UNREACHABLE_HINT = 'is `loom hosted` (or `loom up`) running there? --server or LOOM_SERVER names another';

/** fetch with a timeout, turning network failures into one readable line. */
export async function send(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError')
      throw new CliError(`no answer from ${url} within ${REQUEST_TIMEOUT_MS / 1000} s; ${UNREACHABLE_HINT}`, EXIT.unreachable);
    const cause = (error as { cause?: { message?: string } }).cause;
    throw new CliError(`cannot reach ${url}: ${cause?.message ?? (error as Error).message}; ${UNREACHABLE_HINT}`, EXIT.unreachable);
  }
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}
