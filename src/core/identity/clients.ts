// OAuth clients: the built-in public client of the CLI and desktop app, the clients an
// operator registers (`loom admin clients`), and those that register themselves (RFC 7591:
// MCP clients, public only). Redirect URIs match exactly, except for the port of a loopback
// redirect (RFC 8252 §7.3).
import { randomUUID } from 'node:crypto';
import { ALL_SCOPES, CLIENT_CREDENTIALS_SCOPES, GRANT_TYPES, SCOPES, isScope, type GrantType, type Scope } from '../../contracts/scopes.ts';
import { systemClock, type Clock } from '../clock.ts';
import { LoomError } from '../errors.ts';
import type { ClientRecord, ClientRepository, GrantRepository } from './records.ts';
import { constantTimeEqual, hashToken, randomToken } from './secrets.ts';

export const CLI_CLIENT_ID = 'loom-cli';

const AUTHORIZATION_CODE_SCOPES = ALL_SCOPES.filter((s) => SCOPES[s].authorizationCode);

/** The CLI's and desktop app's client: public, PKCE, loopback redirects on any port. */
export const CLI_CLIENT: ClientRecord = {
  clientId: CLI_CLIENT_ID,
  name: 'Loom CLI and desktop app',
  type: 'public',
  secretHash: null,
  redirectUris: ['http://127.0.0.1/callback', 'http://[::1]/callback'],
  grantTypes: ['authorization_code', 'refresh_token'],
  scopes: AUTHORIZATION_CODE_SCOPES,
  registration: 'operator',
  createdAt: '1970-01-01T00:00:00.000Z',
};

const LOOPBACK_ADDRESSES = new Set(['127.0.0.1', '[::1]']);

/** Bounds on what a self-registering client may send. */
const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;

function parse(uri: string): URL | undefined {
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
}

/**
 * http on a loopback address. `localhost` counts only where asked: a name can resolve elsewhere
 * (RFC 8252 §8.3), but the MCP clients that register themselves use it (the MCP specification
 * allows "localhost URLs"), and it is accepted for them alone.
 */
function isLoopbackHttp(url: URL, { localhost = false } = {}): boolean {
  return url.protocol === 'http:' && (LOOPBACK_ADDRESSES.has(url.hostname) || (localhost && url.hostname === 'localhost'));
}

/** Exact match, or the same loopback redirect (same host name and path) on another port. */
export function redirectUriMatches(registered: readonly string[], candidate: string): boolean {
  if (registered.includes(candidate)) return true;
  const url = parse(candidate);
  if (!url || !isLoopbackHttp(url, { localhost: true })) return false;
  return registered.some((entry) => {
    const known = parse(entry);
    if (!known || !isLoopbackHttp(known, { localhost: true })) return false;
    return known.hostname === url.hostname && known.pathname === url.pathname && known.search === url.search && !url.hash && !url.username && !url.password;
  });
}

/**
 * Why `uri` is not a URL as it is written, or undefined. A URL parser forgives what a redirect
 * URI must not carry: it drops tabs and newlines anywhere, spaces and control characters around
 * it, and reads `https:/x` as `https://x/`. A registered URI is compared as text with the one
 * each authorization request sends (RFC 6749 §3.1.2.3, RFC 8252 §8.4), so it is taken only as
 * its parse writes it: no control character, no whitespace around it, and the same text as its
 * serialization (`https://x/` written `https://x` aside), which also means an authority
 * (`//host`) for https and http, a lower-case scheme and host, and no fragment.
 */
function notAsWritten(uri: string): string | undefined {
  const shown = JSON.stringify(uri.length > 100 ? `${uri.slice(0, 100)}…` : uri);
  if (/[\u0000-\u001f\u007f-\u009f]/.test(uri)) return `${shown} contains control characters`;
  if (uri !== uri.trim()) return `${shown} has whitespace around it`;
  const url = uri.length <= MAX_URI_LENGTH ? parse(uri) : undefined;
  if (!url) return `${shown} is not a URL`;
  if (url.hash || uri.includes('#')) return `${shown} has a fragment`;
  const rootWithoutSlash = url.pathname === '/' && !url.search && `${uri}/` === url.href;
  if (url.href !== uri && !rootWithoutSlash) return `${shown} is not written as a URL is: write ${JSON.stringify(url.href)}`;
  return undefined;
}

/** Registered redirect URIs: https, loopback http, or a private-use scheme of a native app, each as written (notAsWritten). No fragments. */
export function checkRedirectUri(uri: string): string | undefined {
  const malformed = notAsWritten(uri);
  if (malformed) return malformed;
  const url = parse(uri)!;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return isLoopbackHttp(url) ? undefined : `${uri}: http is allowed only for 127.0.0.1 and [::1]`;
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol)) return undefined; // com.example.app:/callback
  return `${uri}: use https, loopback http, or a reverse-domain private-use scheme`;
}

/**
 * Redirect URIs of a self-registered client: https, or http on 127.0.0.1, [::1] or localhost,
 * as written (notAsWritten). No fragments, no user info. `malformed` says whether the problem
 * is the text itself rather than a kind of URI Loom does not take for such clients.
 */
export function checkDynamicRedirectUri(uri: string): { problem: string; malformed: boolean } | undefined {
  const malformed = notAsWritten(uri);
  if (malformed) return { problem: malformed, malformed: true };
  const problem = dynamicRedirectProblem(parse(uri)!, uri);
  return problem === undefined ? undefined : { problem, malformed: false };
}

function dynamicRedirectProblem(url: URL, uri: string): string | undefined {
  if (url.username || url.password) return `${uri} carries user info`;
  if (url.protocol === 'https:' || isLoopbackHttp(url, { localhost: true })) return undefined;
  return `${uri}: a client that registers itself may use https, or http on 127.0.0.1, [::1] or localhost`;
}

/** What a client sends to register itself (RFC 7591 §2); members Loom does not use are ignored. */
export interface ClientMetadata {
  redirect_uris?: unknown;
  client_name?: unknown;
  grant_types?: unknown;
  response_types?: unknown;
  token_endpoint_auth_method?: unknown;
  [member: string]: unknown;
}

/** The registration response (RFC 7591 §3.2.1): what was registered, which may differ from what was asked. */
export interface ClientInformation {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: GrantType[];
  response_types: ['code'];
  token_endpoint_auth_method: 'none';
  scope: string;
}

function newClientId(): string {
  return `loom_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
}

export interface NewClient {
  name: string;
  type: 'public' | 'confidential';
  redirectUris?: string[];
  grantTypes: GrantType[];
  scopes?: Scope[];
}

export class ClientRegistry {
  constructor(
    private readonly repository: ClientRepository,
    private readonly grants: Pick<GrantRepository, 'revokeGrantsOfClient'>,
    private readonly clock: Clock = systemClock,
  ) {}

  async get(clientId: string): Promise<ClientRecord | undefined> {
    if (clientId === CLI_CLIENT_ID) return CLI_CLIENT;
    return this.repository.get(clientId);
  }

  async list(): Promise<ClientRecord[]> {
    return [CLI_CLIENT, ...(await this.repository.list())];
  }

  /** Registers a client; a confidential one gets a secret, returned here once and stored hashed. */
  async register(input: NewClient): Promise<{ client: ClientRecord; clientSecret?: string }> {
    const problems: string[] = [];
    const name = input.name.trim();
    if (!name || name.length > 100) problems.push('the name must be 1 to 100 characters');
    for (const grant of input.grantTypes) if (!(GRANT_TYPES as readonly string[]).includes(grant)) problems.push(`unknown grant ${grant}`);
    if (input.grantTypes.length === 0) problems.push('at least one grant type is needed');
    if (input.type === 'public' && input.grantTypes.includes('client_credentials')) problems.push('a public client cannot use client_credentials');
    const redirectUris = input.redirectUris ?? [];
    if (input.grantTypes.includes('authorization_code') && redirectUris.length === 0) problems.push('authorization_code needs at least one redirect URI');
    for (const uri of redirectUris) {
      const problem = checkRedirectUri(uri);
      if (problem) problems.push(problem);
    }
    const allowed = input.grantTypes.includes('authorization_code') ? AUTHORIZATION_CODE_SCOPES : CLIENT_CREDENTIALS_SCOPES;
    const scopes = input.scopes ?? allowed;
    for (const scope of scopes) if (!isScope(scope) || !allowed.includes(scope)) problems.push(`scope ${scope} is not available to this client`);
    if (problems.length) throw new LoomError('validation_error', `Cannot register the client: ${problems.join('; ')}.`);

    const clientSecret = input.type === 'confidential' ? randomToken(32) : undefined;
    const client: ClientRecord = {
      clientId: newClientId(),
      name,
      type: input.type,
      secretHash: clientSecret ? hashToken(clientSecret) : null,
      redirectUris,
      grantTypes: input.grantTypes,
      scopes,
      registration: 'operator',
      createdAt: new Date(this.clock.now()).toISOString(),
    };
    await this.repository.add(client);
    return { client, clientSecret };
  }

  /**
   * Dynamic client registration (RFC 7591), for MCP clients that sign in without an operator.
   * What registers is always a public client (no secret: `token_endpoint_auth_method` none,
   * PKCE as for every client) of the authorization code and refresh token grants, with every
   * authorization-code scope; the user consents to each authorization it asks for. Redirect
   * URIs Loom does not take for such clients (private-use schemes, http elsewhere than
   * loopback) are left out of the registration, as §3.2.1 allows: a client that lists several
   * (Cursor lists three) keeps those that qualify. None left is `invalid_redirect_uri`, and so
   * is any URI that is not a URL as written (control characters, whitespace around it,
   * `https:/x`): a client that sends one is broken, and nothing is registered.
   *
   * @example
   * await clients.registerDynamic({ redirect_uris: ['http://127.0.0.1:33418/callback'], client_name: 'VS Code' });
   */
  async registerDynamic(metadata: ClientMetadata): Promise<ClientInformation> {
    const invalid = (message: string) => new LoomError('invalid_client_metadata', message);
    const uris = metadata.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((uri) => typeof uri === 'string')) {
      throw new LoomError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of URLs.');
    }
    if (uris.length > MAX_REDIRECT_URIS) throw new LoomError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect_uris.`);
    const problems = (uris as string[]).map((uri) => checkDynamicRedirectUri(uri));
    const malformed = problems.find((problem) => problem?.malformed);
    if (malformed) throw new LoomError('invalid_redirect_uri', `Every redirect URI must be a URL as written: ${malformed.problem}.`);
    const redirectUris = (uris as string[]).filter((_uri, index) => problems[index] === undefined);
    if (redirectUris.length === 0)
      throw new LoomError('invalid_redirect_uri', `No redirect URI Loom accepts: ${problems.map((problem) => problem!.problem).join('; ')}.`);
    const grantTypes = metadata.grant_types ?? ['authorization_code'];
    if (!Array.isArray(grantTypes) || !grantTypes.includes('authorization_code')) throw invalid('grant_types must include authorization_code.');
    const responseTypes = metadata.response_types ?? ['code'];
    if (!Array.isArray(responseTypes) || !responseTypes.includes('code')) throw invalid('response_types must include code.');
    const name = metadata.client_name ?? 'MCP client';
    if (typeof name !== 'string' || name.trim().length === 0 || name.length > 100) throw invalid('client_name must be 1 to 100 characters.');

    const client: ClientRecord = {
      clientId: newClientId(),
      name: name.trim(),
      type: 'public',
      secretHash: null,
      redirectUris,
      grantTypes: ['authorization_code', 'refresh_token'],
      scopes: AUTHORIZATION_CODE_SCOPES,
      registration: 'dynamic',
      createdAt: new Date(this.clock.now()).toISOString(),
    };
    await this.repository.add(client);
    return {
      client_id: client.clientId,
      client_id_issued_at: Math.floor(this.clock.now() / 1000),
      client_name: client.name,
      redirect_uris: client.redirectUris,
      grant_types: client.grantTypes,
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: client.scopes.join(' '),
    };
  }

  /** Removes a client and revokes every token issued to it, at once. */
  async remove(clientId: string): Promise<boolean> {
    if (clientId === CLI_CLIENT_ID) throw new LoomError('validation_error', 'The built-in client loom-cli cannot be removed.');
    const removed = await this.repository.remove(clientId);
    if (removed) await this.grants.revokeGrantsOfClient(clientId, new Date(this.clock.now()).toISOString());
    return removed;
  }

  /** Token endpoint client authentication: a confidential client must prove its secret. */
  async authenticate(clientId: string | undefined, secret: string | undefined): Promise<ClientRecord> {
    const fail = (message: string) => new LoomError('invalid_client', message);
    if (!clientId) throw fail('client_id is required.');
    const client = await this.get(clientId);
    if (!client) throw fail('Unknown client.');
    if (client.type === 'confidential') {
      if (!secret || !client.secretHash || !constantTimeEqual(hashToken(secret), client.secretHash)) throw fail('Client authentication failed.');
    } else if (secret) {
      throw fail('A public client has no secret.');
    }
    return client;
  }
}
