// OAuth clients: the built-in public client of the CLI and desktop app, and the clients an
// operator registers (`loom admin clients`). Redirect URIs match exactly, except for the port
// of a loopback redirect (RFC 8252 §7.3).
import { randomUUID } from 'node:crypto';
import { ALL_SCOPES, CLIENT_CREDENTIALS_SCOPES, GRANT_TYPES, SCOPES, isScope, type GrantType, type Scope } from '../../contracts/auth.ts';
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
  createdAt: '1970-01-01T00:00:00.000Z',
};

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]']);

function parse(uri: string): URL | undefined {
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** Exact match, or the same loopback redirect on another port. */
export function redirectUriMatches(registered: readonly string[], candidate: string): boolean {
  if (registered.includes(candidate)) return true;
  const url = parse(candidate);
  if (!url || !isLoopbackHttp(url)) return false;
  return registered.some((entry) => {
    const known = parse(entry);
    if (!known || !isLoopbackHttp(known)) return false;
    return known.hostname === url.hostname && known.pathname === url.pathname && known.search === url.search && !url.hash && !url.username && !url.password;
  });
}

/** Registered redirect URIs: https, loopback http, or a private-use scheme of a native app. No fragments. */
export function checkRedirectUri(uri: string): string | undefined {
  const url = parse(uri);
  if (!url) return `${uri} is not a URL`;
  if (url.hash) return `${uri} has a fragment`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return isLoopbackHttp(url) ? undefined : `${uri}: http is allowed only for 127.0.0.1 and [::1]`;
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol)) return undefined; // com.example.app:/callback
  return `${uri}: use https, loopback http, or a reverse-domain private-use scheme`;
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
      clientId: `loom_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      name,
      type: input.type,
      secretHash: clientSecret ? hashToken(clientSecret) : null,
      redirectUris,
      grantTypes: input.grantTypes,
      scopes,
      createdAt: new Date(this.clock.now()).toISOString(),
    };
    await this.repository.add(client);
    return { client, clientSecret };
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
