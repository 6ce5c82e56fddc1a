// Issues and verifies the bearer tokens of the hosted API and its MCP endpoint: OAuth access
// tokens (RFC 9068 JWTs, `typ: at+jwt`) for one resource each, ID tokens, and API keys (JWTs
// whose id is kept for revocation) for the whole service.
import { randomUUID } from 'node:crypto';
import { errors as joseErrors, type JWTPayload } from 'jose';
import { isScope, type Scope, type TokenResponse } from '../../contracts/auth.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { ServiceUrls } from '../urls.ts';
import { LoomError } from '../errors.ts';
import type { ApiKeyRepository, GrantRecord, GrantRepository, UserRecord, UserRepository } from './records.ts';
import { RESOURCES, resourceUri, type ResourceId } from './resources.ts';
import { hashToken, randomToken } from './secrets.ts';
import type { SigningKeys } from './signing-keys.ts';

export const ACCESS_TOKEN_TYP = 'at+jwt';
export const API_KEY_TYP = 'loom-api-key+jwt';

/** Who is calling, once a bearer token has been verified. */
export interface Principal {
  kind: 'oauth' | 'api_key';
  /** The user, or (client_credentials) the client. */
  subject: string;
  userId: string | null;
  clientId: string | null;
  scopes: ReadonlySet<Scope>;
}

export interface TokenServiceOptions {
  keys: SigningKeys;
  grants: GrantRepository;
  apiKeys: ApiKeyRepository;
  users: UserRepository;
  urls: ServiceUrls;
  accessTokenSeconds?: number;
  refreshTokenSeconds?: number;
  clock?: Clock;
}

export function parseScope(scope: string | undefined): string[] {
  return (scope ?? '').split(' ').filter(Boolean);
}

export class TokenService {
  readonly accessTokenSeconds: number;
  private readonly refreshTokenSeconds: number;
  private readonly clock: Clock;

  constructor(private readonly options: TokenServiceOptions) {
    this.accessTokenSeconds = options.accessTokenSeconds ?? 3600;
    this.refreshTokenSeconds = options.refreshTokenSeconds ?? 30 * 86_400;
    this.clock = options.clock ?? systemClock;
  }

  /** The token response for a grant: an access token, and optionally a refresh and an ID token. */
  async issue(grant: GrantRecord, extras: { refresh: boolean; nonce?: string | null }): Promise<TokenResponse> {
    const scopes = parseScope(grant.scope);
    const subject = grant.userId ?? grant.clientId;
    const accessToken = await this.options.keys.sign(
      {
        iss: this.options.urls.issuer,
        sub: subject,
        aud: resourceUri(this.options.urls, grant.resource),
        jti: randomUUID(),
        client_id: grant.clientId,
        scope: grant.scope,
        gid: grant.id,
      },
      ACCESS_TOKEN_TYP,
      this.accessTokenSeconds,
    );
    const response: TokenResponse = { access_token: accessToken, token_type: 'Bearer', expires_in: this.accessTokenSeconds, scope: grant.scope };
    if (extras.refresh) response.refresh_token = await this.newRefreshToken(grant.id);
    if (scopes.includes('openid') && grant.userId) {
      const user = await this.options.users.get(grant.userId);
      if (user) response.id_token = await this.idToken(user, grant, scopes, extras.nonce ?? null);
    }
    return response;
  }

  async newRefreshToken(grantId: string): Promise<string> {
    const token = randomToken(32);
    await this.options.grants.saveRefreshToken({
      tokenHash: hashToken(token),
      grantId,
      expiresAt: new Date(this.clock.now() + this.refreshTokenSeconds * 1000).toISOString(),
      usedAt: null,
    });
    return token;
  }

  /**
   * An API key: a JWT naming its record, which can be revoked at once. A key is the user's
   * credential for the whole service, so its `aud` names every resource of it.
   */
  async signApiKey(claims: { id: string; userId: string; scope: string }, expiresInSeconds: number): Promise<string> {
    const audiences = RESOURCES.map((resource) => resourceUri(this.options.urls, resource));
    return this.options.keys.sign(
      { iss: this.options.urls.issuer, sub: claims.userId, aud: audiences, jti: claims.id, scope: claims.scope },
      API_KEY_TYP,
      expiresInSeconds,
    );
  }

  /**
   * Verifies a bearer token presented to `resource` (access token or API key) and says who it
   * stands for. A token whose `aud` does not name that resource is refused (RFC 8707): an access
   * token for the API is no good at the MCP endpoint, and the other way round.
   */
  async verify(token: string, resource: ResourceId = 'api'): Promise<Principal> {
    const typ = headerTyp(token);
    if (typ !== ACCESS_TOKEN_TYP && typ !== API_KEY_TYP) throw invalidToken('The token is not a Loom access token or API key.');
    let payload: JWTPayload;
    try {
      payload = await this.options.keys.verify(token, { typ, issuer: this.options.urls.issuer, audience: resourceUri(this.options.urls, resource) });
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw invalidToken('The token has expired.');
      if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'aud') {
        throw invalidToken(`The token was issued for another resource, not ${resourceUri(this.options.urls, resource)}.`);
      }
      throw invalidToken('The token is not valid.');
    }
    const scopes = new Set(parseScope(typeof payload.scope === 'string' ? payload.scope : '').filter(isScope));
    if (typ === API_KEY_TYP) {
      const key = payload.jti ? await this.options.apiKeys.get(payload.jti) : undefined;
      if (!key || key.revokedAt) throw invalidToken('The API key has been revoked.');
      return { kind: 'api_key', subject: key.userId, userId: key.userId, clientId: null, scopes };
    }
    const grantId = typeof payload.gid === 'string' ? payload.gid : undefined;
    const grant = grantId ? await this.options.grants.getGrant(grantId) : undefined;
    if (!grant || grant.revokedAt) throw invalidToken('The token has been revoked.');
    return { kind: 'oauth', subject: payload.sub!, userId: grant.userId, clientId: grant.clientId, scopes };
  }

  private async idToken(user: UserRecord, grant: GrantRecord, scopes: string[], nonce: string | null): Promise<string> {
    const claims: JWTPayload = { iss: this.options.urls.issuer, sub: user.id, aud: grant.clientId, auth_time: Math.floor(Date.parse(grant.createdAt) / 1000) };
    if (nonce) claims.nonce = nonce;
    if (scopes.includes('profile')) Object.assign(claims, { preferred_username: user.login, ...(user.name ? { name: user.name } : {}) });
    if (scopes.includes('email') && user.email) Object.assign(claims, { email: user.email });
    return this.options.keys.sign(claims, 'JWT', this.accessTokenSeconds);
  }
}

function headerTyp(token: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8'));
    return typeof header.typ === 'string' ? header.typ.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

function invalidToken(message: string): LoomError {
  return new LoomError('invalid_token', message);
}
