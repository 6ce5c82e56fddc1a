// The authorization server's grants (RFC 6749 + OAuth 2.1 + RFC 9700): authorization codes
// with PKCE (S256 only), refresh token rotation with reuse detection, client credentials.
// Every grant is for one resource (RFC 8707): the one its authorization request named.
import { randomUUID } from 'node:crypto';
import { CLIENT_CREDENTIALS_SCOPES, GRANT_TYPES, isGrantType, isScope, type Scope, type TokenRequest, type TokenResponse } from '../../contracts/auth.ts';
import { systemClock, type Clock } from '../clock.ts';
import { LoomError } from '../errors.ts';
import type { ClientRegistry } from './clients.ts';
import { redirectUriMatches } from './clients.ts';
import type { ClientRecord, GrantRecord, GrantRepository } from './records.ts';
import { RESOURCES, resourceNamed, resourceUri, type ResourceId } from './resources.ts';
import { constantTimeEqual, hashToken, isValidVerifier, pkceChallenge, randomToken } from './secrets.ts';
import { parseScope, type TokenService } from './tokens.ts';
import type { ServiceUrls } from '../urls.ts';

export const CODE_LIFETIME_SECONDS = 60;

/** Attached to a code by a replay that came before the first redemption attached its grant. */
const REPLAYED_CODE = 'replayed';

/** An authorization request that passed every check, ready for the user's consent. */
export interface AuthorizationRequest {
  client: ClientRecord;
  redirectUri: string;
  scope: string;
  /** The resource the tokens will be for. */
  resource: ResourceId;
  state: string | null;
  codeChallenge: string;
  nonce: string | null;
}

/** Problems with client_id or redirect_uri: shown on an error page, never redirected (RFC 9700 §4.11). */
export class AuthorizePageError extends Error {}

/** Problems reported back to the client's redirect URI (RFC 6749 §4.1.2.1). */
export class AuthorizeRedirectError extends Error {
  constructor(
    readonly code: 'invalid_request' | 'invalid_scope' | 'invalid_target' | 'unauthorized_client' | 'unsupported_response_type' | 'access_denied',
    message: string,
    readonly request: { redirectUri: string; state: string | null },
  ) {
    super(message);
  }
}

function oauthError(
  code: 'invalid_request' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope' | 'invalid_target',
  message: string,
) {
  return new LoomError(code, message);
}

export class OAuthServer {
  private readonly clock: Clock;

  constructor(
    private readonly clients: ClientRegistry,
    private readonly grants: GrantRepository,
    private readonly tokens: TokenService,
    private readonly urls: ServiceUrls,
    clock?: Clock,
  ) {
    this.clock = clock ?? systemClock;
  }

  /** Checks an authorization request (GET /auth/authorize). */
  async checkAuthorization(query: Record<string, string | undefined>): Promise<AuthorizationRequest> {
    const client = query.client_id ? await this.clients.get(query.client_id) : undefined;
    if (!client) throw new AuthorizePageError('Unknown client_id.');
    const redirectUri = query.redirect_uri;
    if (!redirectUri) throw new AuthorizePageError('redirect_uri is required.');
    if (!redirectUriMatches(client.redirectUris, redirectUri)) throw new AuthorizePageError('redirect_uri is not registered for this client.');
    const back = { redirectUri, state: query.state ?? null };
    if (!query.response_type) throw new AuthorizeRedirectError('invalid_request', 'response_type is required (code).', back);
    if (query.response_type !== 'code') {
      throw new AuthorizeRedirectError('unsupported_response_type', 'Only response_type=code is supported (no implicit grant).', back);
    }
    if (!client.grantTypes.includes('authorization_code'))
      throw new AuthorizeRedirectError('unauthorized_client', 'This client may not use the authorization code flow.', back);
    if (!query.code_challenge)
      throw new AuthorizeRedirectError('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.', back);
    if (query.code_challenge_method !== 'S256') throw new AuthorizeRedirectError('invalid_request', 'Only code_challenge_method=S256 is supported.', back);
    if (!/^[A-Za-z0-9_-]{43}$/.test(query.code_challenge))
      throw new AuthorizeRedirectError('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters).', back);
    const scope = this.grantableScope(query.scope, client.scopes);
    if (scope instanceof Error) throw new AuthorizeRedirectError('invalid_scope', scope.message, back);
    const resource = resourceNamed(this.urls, query.resource);
    if (!resource) throw new AuthorizeRedirectError('invalid_target', this.unknownResource(query.resource!), back);
    return { client, redirectUri, scope, resource, state: back.state, codeChallenge: query.code_challenge, nonce: query.nonce ?? null };
  }

  /** Issues a single-use code bound to the client, redirect URI, challenge and user, for a resource (the API by default). */
  async issueCode(
    request: Omit<AuthorizationRequest, 'state' | 'client' | 'resource'> & { clientId: string; userId: string; resource?: ResourceId },
  ): Promise<string> {
    const code = randomToken(32);
    await this.grants.saveCode({
      codeHash: hashToken(code),
      clientId: request.clientId,
      userId: request.userId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scope: request.scope,
      resource: request.resource ?? 'api',
      nonce: request.nonce,
      expiresAt: new Date(this.clock.now() + CODE_LIFETIME_SECONDS * 1000).toISOString(),
      usedAt: null,
      grantId: null,
    });
    return code;
  }

  /** POST /auth/token. `client` is already authenticated (ClientRegistry.authenticate). */
  async token(request: TokenRequest, client: ClientRecord): Promise<TokenResponse> {
    if (!isGrantType(request.grant_type))
      throw oauthError('unsupported_grant_type', `Unsupported grant_type ${JSON.stringify(request.grant_type.slice(0, 40))}; use ${GRANT_TYPES.join(', ')}.`);
    if (!client.grantTypes.includes(request.grant_type)) throw oauthError('unauthorized_client', `This client may not use the ${request.grant_type} grant.`);
    switch (request.grant_type) {
      case 'authorization_code':
        return this.redeemCode(request, client);
      case 'refresh_token':
        return this.refresh(request, client);
      case 'client_credentials':
        return this.clientCredentials(request, client);
    }
  }

  private async redeemCode(request: TokenRequest, client: ClientRecord): Promise<TokenResponse> {
    if (!request.code) throw oauthError('invalid_request', 'code is required for the authorization_code grant.');
    const now = new Date(this.clock.now()).toISOString();
    const claim = await this.grants.claimCode(hashToken(request.code), now);
    if (!claim) throw oauthError('invalid_grant', 'The authorization code is not valid.');
    const code = claim.record;
    if (!claim.firstUse) {
      // A code presented twice was intercepted: revoke what the first redemption issued. If
      // that one is still under way (no grant attached yet), mark the code: it then revokes
      // its own grant.
      const attached = await this.grants.attachGrantToCode(code.codeHash, REPLAYED_CODE);
      if (attached && attached !== REPLAYED_CODE) await this.grants.revokeGrant(attached, now);
      throw oauthError('invalid_grant', 'The authorization code was already used; the tokens issued for it are revoked.');
    }
    if (code.expiresAt <= now) throw oauthError('invalid_grant', 'The authorization code has expired.');
    if (code.clientId !== client.clientId) throw oauthError('invalid_grant', 'The authorization code was issued to another client.');
    if (request.redirect_uri !== code.redirectUri) throw oauthError('invalid_grant', 'redirect_uri does not match the authorization request.');
    if (code.codeChallenge && !request.code_verifier)
      throw oauthError('invalid_grant', 'code_verifier is required: the authorization request had a code_challenge.');
    if (!code.codeChallenge && request.code_verifier)
      throw oauthError('invalid_grant', 'code_verifier was sent but the authorization request had no code_challenge.');
    if (code.codeChallenge) {
      const verifier = request.code_verifier!;
      if (!isValidVerifier(verifier) || !constantTimeEqual(pkceChallenge(verifier), code.codeChallenge)) {
        throw oauthError('invalid_grant', 'code_verifier does not match the code_challenge.');
      }
    }
    // RFC 8707 §2.2: the token request may name the resource again; it must be the one authorized.
    if (request.resource !== undefined && resourceNamed(this.urls, request.resource) !== code.resource) {
      throw oauthError('invalid_target', `The authorization was for ${this.uriOf(code.resource)}, not ${request.resource.slice(0, 200)}.`);
    }
    const grant = await this.newGrant(client.clientId, code.userId, code.scope, code.resource);
    if ((await this.grants.attachGrantToCode(code.codeHash, grant.id)) !== grant.id) {
      await this.grants.revokeGrant(grant.id, now);
      throw oauthError('invalid_grant', 'The authorization code was presented twice; the tokens issued for it are revoked.');
    }
    return this.tokens.issue(grant, { refresh: client.grantTypes.includes('refresh_token'), nonce: code.nonce });
  }

  private async refresh(request: TokenRequest, client: ClientRecord): Promise<TokenResponse> {
    if (!request.refresh_token) throw oauthError('invalid_request', 'refresh_token is required for the refresh_token grant.');
    const now = new Date(this.clock.now()).toISOString();
    const claim = await this.grants.claimRefreshToken(hashToken(request.refresh_token), now);
    if (!claim) throw oauthError('invalid_grant', 'The refresh token is not valid.');
    const grant = await this.grants.getGrant(claim.record.grantId);
    if (!grant || grant.clientId !== client.clientId) throw oauthError('invalid_grant', 'The refresh token was issued to another client.');
    if (!claim.firstUse) {
      // Reuse of a rotated token: someone else holds a copy. Revoke the whole family.
      await this.grants.revokeGrant(grant.id, now);
      throw oauthError('invalid_grant', 'The refresh token was already used; every token of this sign-in is revoked.');
    }
    if (grant.revokedAt) throw oauthError('invalid_grant', 'This sign-in has been revoked.');
    if (claim.record.expiresAt <= now) throw oauthError('invalid_grant', 'The refresh token has expired.');
    if (request.resource !== undefined && resourceNamed(this.urls, request.resource) !== grant.resource) {
      // The token was spent by the claim above: the family lives on through a new one.
      throw oauthError('invalid_target', `This sign-in is for ${this.uriOf(grant.resource)}, not ${request.resource.slice(0, 200)}.`);
    }
    let scope = grant.scope;
    if (request.scope) {
      const asked = parseScope(request.scope);
      const held = parseScope(grant.scope);
      const extra = asked.filter((s) => !held.includes(s));
      if (extra.length) throw oauthError('invalid_scope', `A refresh cannot add scopes: ${extra.join(' ')}.`);
      scope = asked.join(' ');
    }
    // The family stays the same grant; a narrowed scope applies to the new access token only.
    return this.tokens.issue({ ...grant, scope }, { refresh: true });
  }

  private async clientCredentials(request: TokenRequest, client: ClientRecord): Promise<TokenResponse> {
    if (client.type !== 'confidential') throw oauthError('unauthorized_client', 'client_credentials needs a confidential client.');
    const allowed = client.scopes.filter((s) => CLIENT_CREDENTIALS_SCOPES.includes(s));
    const scope = this.grantableScope(request.scope, allowed);
    if (scope instanceof Error) throw oauthError('invalid_scope', scope.message);
    const resource = resourceNamed(this.urls, request.resource);
    if (!resource) throw oauthError('invalid_target', this.unknownResource(request.resource!));
    const grant = await this.newGrant(client.clientId, null, scope, resource);
    return this.tokens.issue(grant, { refresh: false });
  }

  private uriOf(resource: ResourceId): string {
    return resourceUri(this.urls, resource);
  }

  private unknownResource(asked: string): string {
    return `Unknown resource ${JSON.stringify(asked.slice(0, 200))}; this server issues tokens for ${RESOURCES.map((r) => this.uriOf(r)).join(' and ')}.`;
  }

  /** The requested scopes if all are known and allowed (all allowed ones when none are asked for). */
  private grantableScope(requested: string | undefined, allowed: readonly Scope[]): string | Error {
    const asked = parseScope(requested);
    if (asked.length === 0) return allowed.join(' ');
    const unknown = asked.filter((s) => !isScope(s));
    if (unknown.length) return new Error(`Unknown scope: ${unknown.join(' ')}.`);
    const refused = asked.filter((s) => !allowed.includes(s as Scope));
    if (refused.length) return new Error(`Scope not allowed here: ${refused.join(' ')}.`);
    return [...new Set(asked)].join(' ');
  }

  private async newGrant(clientId: string, userId: string | null, scope: string, resource: ResourceId): Promise<GrantRecord> {
    const grant: GrantRecord = { id: randomUUID(), clientId, userId, scope, resource, createdAt: new Date(this.clock.now()).toISOString(), revokedAt: null };
    await this.grants.createGrant(grant);
    return grant;
  }
}
