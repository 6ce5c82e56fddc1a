// Sign-in through any OpenID Connect provider, found by its discovery document: authorization
// code flow with PKCE and a nonce; the ID token is verified against the provider's JWKS.
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { LoomError } from '../errors.ts';
import { fetchProvider, type SignInProvider } from './codehost.ts';
import type { ExternalIdentity } from './records.ts';
import { pkceChallenge } from './secrets.ts';

export interface OidcOptions {
  /** The issuer; its discovery document is at `{issuer}/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  timeoutMs?: number;
}

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

const DISCOVERY_TTL_MS = 3_600_000;

export class OidcProvider implements SignInProvider {
  readonly id = 'oidc';
  private discovery?: { document: Discovery; jwks: ReturnType<typeof createRemoteJWKSet>; at: number };

  constructor(private readonly options: OidcOptions) {}

  async authorizeUrl(params: { state: string; redirectUri: string; codeVerifier: string; nonce: string }): Promise<string> {
    const { document } = await this.discover();
    const url = new URL(document.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.options.clientId,
      redirect_uri: params.redirectUri,
      scope: this.options.scope ?? 'openid profile email',
      state: params.state,
      nonce: params.nonce,
      code_challenge: pkceChallenge(params.codeVerifier),
      code_challenge_method: 'S256',
    }).toString();
    return url.toString();
  }

  async identify(params: { code: string; redirectUri: string; codeVerifier: string; nonce: string }): Promise<ExternalIdentity> {
    const { document, jwks } = await this.discover();
    const response = await this.request(document.token_endpoint, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: params.code,
        redirect_uri: params.redirectUri,
        code_verifier: params.codeVerifier,
        client_id: this.options.clientId,
        client_secret: this.options.clientSecret,
      }).toString(),
    });
    const body = (await response.json().catch(() => ({}))) as { id_token?: string; error?: string; error_description?: string };
    if (!response.ok || !body.id_token) {
      throw new LoomError('invalid_grant', `The identity provider refused the sign-in: ${body.error_description ?? body.error ?? response.status}.`);
    }
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(body.id_token, jwks, { issuer: document.issuer, audience: this.options.clientId }));
    } catch (error) {
      throw new LoomError('invalid_grant', `The identity provider's ID token is not valid: ${(error as Error).message}.`);
    }
    if (claims.nonce !== params.nonce) throw new LoomError('invalid_grant', "The identity provider's ID token does not carry our nonce.");
    const text = (value: unknown) => (typeof value === 'string' && value ? value : null);
    const email = text(claims.email);
    return {
      provider: this.id,
      subject: claims.sub!,
      login: text(claims.preferred_username) ?? email ?? claims.sub!,
      name: text(claims.name),
      email,
      emailVerified: claims.email_verified === true,
    };
  }

  private async discover(): Promise<NonNullable<OidcProvider['discovery']>> {
    if (this.discovery && Date.now() - this.discovery.at < DISCOVERY_TTL_MS) return this.discovery;
    const issuer = this.options.issuer.replace(/\/+$/, '');
    const response = await this.request(`${issuer}/.well-known/openid-configuration`, { headers: { accept: 'application/json' } });
    const document = (await response.json().catch(() => undefined)) as Partial<Discovery> | undefined;
    if (!response.ok || !document?.authorization_endpoint || !document.token_endpoint || !document.jwks_uri || document.issuer !== issuer) {
      throw new LoomError('upstream_unavailable', 'The identity provider has no usable discovery document.', `Check LOOM_OIDC_ISSUER (${issuer}).`);
    }
    this.discovery = { document: document as Discovery, jwks: createRemoteJWKSet(new URL(document.jwks_uri)), at: Date.now() };
    return this.discovery;
  }

  private request(url: string, init: RequestInit): Promise<Response> {
    return fetchProvider(url, init, this.options.timeoutMs ?? 10_000, 'identity provider');
  }
}
