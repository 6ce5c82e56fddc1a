// Sign-in through any OpenID Connect provider, found by its discovery document: the
// authorization code flow with PKCE and a nonce. The ID token is verified against the
// provider's JWKS; the profile and the email come from its UserInfo endpoint (Core §5.4:
// with the code flow, spec-following providers put them there and not in the ID token).
// Every answer is read through provider-answers.ts (bounded, typed).
import { createLocalJWKSet, errors as joseErrors, importJWK, jwtVerify, type JWK, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { Type, type Static } from 'typebox';
import { systemClock, type Clock } from '../clock.ts';
import { LoomError } from '../errors.ts';
import type { SignInProvider } from './codehost.ts';
import { answerShape, DEFAULT_PROVIDER_TIMEOUT_MS, printable, providerUnavailable, readProviderJson, type ProviderRequest } from './provider-answers.ts';
import type { ExternalIdentity } from './records.ts';
import { pkceChallenge } from './secrets.ts';

export interface OidcOptions {
  /** The issuer; its discovery document is at `{issuer}/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  timeoutMs?: number;
  clock?: Clock;
}

/** How Loom proves itself at the provider's token endpoint (RFC 6749 §2.3.1). */
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

const DISCOVERY_TTL_MS = 3_600_000;
const JWKS_TTL_MS = 600_000;
/** An ID token signed by a key we do not have refetches the JWKS, at most this often. */
const JWKS_REFRESH_COOLDOWN_MS = 60_000;
/** ID tokens are signed with the provider's private key; never a shared secret, never `none`. */
const ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

const Url = Type.String({ minLength: 1, maxLength: 2048 });

const DiscoveryDocument = Type.Object({
  issuer: Url,
  authorization_endpoint: Url,
  token_endpoint: Url,
  jwks_uri: Url,
  userinfo_endpoint: Type.Optional(Url),
  token_endpoint_auth_methods_supported: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
});
type DiscoveryDocument = Static<typeof DiscoveryDocument>;
const DiscoveryAnswer = answerShape(DiscoveryDocument);

const JwksAnswer = answerShape(
  Type.Object({
    keys: Type.Array(Type.Object({ kty: Type.String({ minLength: 1, maxLength: 10 }) }), { maxItems: 100 }),
  }),
);

/** RFC 6749 §5.1 and §5.2: tokens, or an OAuth error. */
const TokenAnswer = answerShape(
  Type.Object({
    access_token: Type.Optional(Type.String({ minLength: 1, maxLength: 16_384 })),
    id_token: Type.Optional(Type.String({ minLength: 1, maxLength: 65_536 })),
    error: Type.Optional(Type.String()),
    error_description: Type.Optional(Type.String()),
  }),
);

const Claim = (maxLength: number) => Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));

/**
 * The claims Loom reads, in the ID token and in UserInfo alike. Absent claims may be left out
 * or (against Core §5.3.2's advice, but seen) sent as null; `email_verified` is a boolean, or
 * from some providers the string "true".
 */
const UserClaims = Type.Object({
  sub: Type.String({ minLength: 1, maxLength: 255 }),
  name: Claim(512),
  preferred_username: Claim(255),
  nickname: Claim(255),
  email: Claim(320),
  email_verified: Type.Optional(Type.Union([Type.Boolean(), Type.String({ maxLength: 10 }), Type.Null()])),
});
export type UserClaims = Static<typeof UserClaims>;
const ClaimsShape = answerShape(UserClaims);

export class OidcProvider implements SignInProvider {
  readonly id = 'oidc';
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private discovery?: { document: DiscoveryDocument; at: number };
  private jwks?: { uri: string; keys: JWTVerifyGetKey; at: number };

  constructor(private readonly options: OidcOptions) {
    this.clock = options.clock ?? systemClock;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  }

  async authorizeUrl(params: { state: string; redirectUri: string; codeVerifier: string; nonce: string }): Promise<string> {
    const document = await this.discover();
    // Refused here, before the user signs in at the provider for nothing.
    chooseClientAuth(document.token_endpoint_auth_methods_supported);
    // Core §3.1.2.1: a query the endpoint already has is kept.
    const url = new URL(document.authorization_endpoint);
    const query = {
      response_type: 'code',
      client_id: this.options.clientId,
      redirect_uri: params.redirectUri,
      scope: this.options.scope ?? 'openid profile email',
      state: params.state,
      nonce: params.nonce,
      code_challenge: pkceChallenge(params.codeVerifier),
      code_challenge_method: 'S256',
    };
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url.toString();
  }

  async identify(params: { code: string; redirectUri: string; codeVerifier: string; nonce: string }): Promise<ExternalIdentity> {
    const document = await this.discover();
    const tokens = await this.exchange(document, params);
    const idClaims = await this.verifyIdToken(document, tokens.idToken, params.nonce);
    const userInfo = document.userinfo_endpoint ? await this.userInfo(document.userinfo_endpoint, tokens.accessToken, idClaims.sub) : undefined;
    return identityFrom(this.id, mergeClaims(idClaims, userInfo));
  }

  private async exchange(
    document: DiscoveryDocument,
    params: { code: string; redirectUri: string; codeVerifier: string },
  ): Promise<{ idToken: string; accessToken?: string }> {
    const method = chooseClientAuth(document.token_endpoint_auth_methods_supported);
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.code,
      redirect_uri: params.redirectUri,
      code_verifier: params.codeVerifier,
    });
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' };
    if (method === 'client_secret_basic') {
      headers.authorization = basicCredentials(this.options.clientId, this.options.clientSecret);
    } else {
      form.set('client_id', this.options.clientId);
      form.set('client_secret', this.options.clientSecret);
    }
    const { body } = await readProviderJson(
      {
        ...this.request('the token endpoint', document.token_endpoint),
        method: 'POST',
        headers,
        body: form.toString(),
        answers: (s) => s === 200 || s === 400 || s === 401,
      },
      TokenAnswer,
    );
    if (body.error) {
      const reason = `${printable(body.error, 60)}${body.error_description ? `: ${printable(body.error_description, 200)}` : ''}`;
      throw new LoomError('invalid_grant', `The identity provider refused the sign-in (${reason}).`, 'Start the sign-in again.');
    }
    if (!body.id_token) throw providerUnavailable('The identity provider answered the token request without an ID token.');
    return { idToken: body.id_token, accessToken: body.access_token };
  }

  /** Core §3.1.3.7: signature by a key of the provider's JWKS, iss, aud (and azp), exp, nonce. */
  private async verifyIdToken(document: DiscoveryDocument, idToken: string, nonce: string): Promise<UserClaims> {
    const getKey: JWTVerifyGetKey = async (header, token) => {
      try {
        try {
          return await (
            await this.keySet(document.jwks_uri, false)
          )(header, token);
        } catch (error) {
          if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw error;
          // The provider may have rotated its keys since we read them.
          return await (
            await this.keySet(document.jwks_uri, true)
          )(header, token);
        }
      } catch (error) {
        throw keySetProblem(error);
      }
    };
    const options: JWTVerifyOptions = {
      issuer: document.issuer,
      audience: this.options.clientId,
      algorithms: ID_TOKEN_ALGORITHMS,
      currentDate: new Date(this.clock.now()),
      clockTolerance: 30,
      requiredClaims: ['sub', 'exp', 'iat'],
    };
    let claims: JWTPayload;
    try {
      claims = await verifyEachKey(idToken, getKey, options);
    } catch (error) {
      if (error instanceof KeySetProblem) {
        if (error.cause instanceof LoomError) throw error.cause;
        if (error.cause instanceof joseErrors.JWKSNoMatchingKey) {
          throw new LoomError('invalid_grant', "The identity provider's ID token is signed with a key its JWKS does not list.", 'Start the sign-in again.');
        }
        throw providerUnavailable("The identity provider's JWKS holds a key Loom cannot use.");
      }
      throw new LoomError(
        'invalid_grant',
        `The identity provider's ID token is not valid: ${printable((error as Error).message, 120)}.`,
        'Start the sign-in again.',
      );
    }
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if ((claims.azp !== undefined || audiences.length > 1) && claims.azp !== this.options.clientId) {
      throw new LoomError('invalid_grant', "The identity provider's ID token was issued to another party (azp).");
    }
    if (claims.nonce !== nonce) throw new LoomError('invalid_grant', "The identity provider's ID token does not carry our nonce.");
    if (!ClaimsShape.check(claims)) {
      throw providerUnavailable(`The identity provider's ID token is not what Loom expects: ${ClaimsShape.problems(claims).join('; ')}.`);
    }
    return claims;
  }

  /** Core §5.3: the claims about the ID token's subject; a UserInfo answer about anyone else is refused (§5.3.2). */
  private async userInfo(endpoint: string, accessToken: string | undefined, subject: string): Promise<UserClaims> {
    if (!accessToken) throw providerUnavailable('The identity provider answered the token request without an access token for its UserInfo endpoint.');
    const { body } = await readProviderJson(
      { ...this.request('the UserInfo endpoint', endpoint), headers: { accept: 'application/json', authorization: `Bearer ${accessToken}` } },
      ClaimsShape,
    );
    if (body.sub !== subject)
      throw new LoomError(
        'invalid_grant',
        "The identity provider's UserInfo answer is about another user than its ID token (sub differs).",
        'Start the sign-in again.',
      );
    return body;
  }

  private async discover(): Promise<DiscoveryDocument> {
    if (this.discovery && this.clock.now() - this.discovery.at < DISCOVERY_TTL_MS) return this.discovery.document;
    const issuer = this.options.issuer.replace(/\/+$/, '');
    const { body } = await readProviderJson(this.request('the discovery document', `${issuer}/.well-known/openid-configuration`), DiscoveryAnswer);
    // Discovery §4.3: the document names the issuer it was asked for. The configuration drops a
    // trailing slash, which some issuers (Auth0, Gitea) have in their name.
    if (body.issuer !== issuer && body.issuer !== `${issuer}/`) {
      throw new LoomError(
        'upstream_unavailable',
        `The identity provider's discovery document names the issuer ${printable(body.issuer)}, not ${issuer}.`,
        `Set oidc.issuer to the provider's exact issuer: "oidc": {"issuer": …} in the config file (config.json in the config folder, or LOOM_CONFIG), or LOOM_OIDC_ISSUER (docs/auth.md).`,
      );
    }
    for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'userinfo_endpoint'] as const) {
      const value = body[field];
      if (value !== undefined && !isHttpUrl(value)) throw providerUnavailable(`The identity provider's discovery document has no usable ${field}.`);
    }
    this.discovery = { document: body, at: this.clock.now() };
    return body;
  }

  private async keySet(uri: string, refresh: boolean): Promise<JWTVerifyGetKey> {
    const now = this.clock.now();
    const cached = this.jwks?.uri === uri ? this.jwks : undefined;
    if (cached && (refresh ? now - cached.at < JWKS_REFRESH_COOLDOWN_MS : now - cached.at < JWKS_TTL_MS)) return cached.keys;
    const { body } = await readProviderJson({ ...this.request('the JWKS', uri), maxBytes: 512 * 1024 }, JwksAnswer);
    const usable = await usableSigningKeys(body.keys);
    if (usable.length === 0) throw providerUnavailable("The identity provider's JWKS holds no key Loom can use to check a signature.");
    let keys: JWTVerifyGetKey;
    try {
      keys = createLocalJWKSet({ keys: usable });
    } catch {
      throw providerUnavailable("The identity provider's JWKS is not a valid JSON Web Key Set.");
    }
    this.jwks = { uri, keys, at: now };
    return keys;
  }

  private request(what: string, url: string): ProviderRequest {
    return { provider: 'identity provider', what, url, headers: { accept: 'application/json' }, timeoutMs: this.timeoutMs };
  }
}

/**
 * What the provider's metadata allows, preferring HTTP Basic: RFC 6749 §2.3.1 makes it the
 * method every server supports and advises against secrets in the body, and Discovery
 * §3 makes it the default when the metadata lists none.
 */
export function chooseClientAuth(supported: readonly string[] | undefined): ClientAuthMethod {
  if (!supported || supported.length === 0 || supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  throw new LoomError(
    'upstream_unavailable',
    `The identity provider accepts none of the client authentication methods Loom uses at its token endpoint (it lists ${supported.map((m) => printable(m, 40)).join(', ')}).`,
    'Configure the client at the provider for client_secret_basic or client_secret_post (docs/auth.md).',
  );
}

/** RFC 6749 §2.3.1: id and secret are each form-urlencoded (Appendix B), then joined by ":" and base64-encoded. */
export function basicCredentials(clientId: string, clientSecret: string): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

/**
 * The ID token's claims overlaid with UserInfo's (the fresher source, about the same subject).
 * The email travels with its own `email_verified`: a verified flag from one source never
 * vouches for an address from the other.
 */
export function mergeClaims(idToken: UserClaims, userInfo: UserClaims | undefined): UserClaims {
  if (!userInfo) return idToken;
  const pick = <K extends 'name' | 'preferred_username' | 'nickname'>(key: K) => userInfo[key] || idToken[key];
  const emailSource = userInfo.email ? userInfo : idToken;
  return {
    sub: idToken.sub,
    name: pick('name'),
    preferred_username: pick('preferred_username'),
    nickname: pick('nickname'),
    email: emailSource.email,
    email_verified: emailSource.email_verified,
  };
}

function identityFrom(provider: string, claims: UserClaims): ExternalIdentity {
  const email = claims.email || null;
  return {
    provider,
    subject: claims.sub,
    login: claims.preferred_username || claims.nickname || email || claims.sub,
    name: claims.name || null,
    email,
    emailVerified: email !== null && (claims.email_verified === true || claims.email_verified === 'true'),
  };
}

/** A failure of the key set itself (not of the token), carried out of jwtVerify's key callback. */
class KeySetProblem extends Error {
  constructor(override readonly cause: unknown) {
    super('key set problem');
  }
}

function keySetProblem(error: unknown): unknown {
  // Several keys fit (no kid): verifyEachKey tries each.
  return error instanceof joseErrors.JWKSMultipleMatchingKeys ? error : new KeySetProblem(error);
}

async function verifyEachKey(token: string, getKey: JWTVerifyGetKey, options: JWTVerifyOptions): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, getKey, options)).payload;
  } catch (error) {
    if (!(error instanceof joseErrors.JWKSMultipleMatchingKeys)) throw error;
    for await (const key of error as unknown as AsyncIterable<CryptoKey>) {
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (failure) {
        if (!(failure instanceof joseErrors.JWSSignatureVerificationFailed)) throw failure;
      }
    }
    throw new joseErrors.JWSSignatureVerificationFailed();
  }
}

/**
 * The keys of a JWKS that can check an ID token's signature: public signing keys that import,
 * RSA ones of 2048 bits at least. Others (encryption keys, unknown types, broken key material)
 * are left out rather than failing every sign-in, as long as one usable key remains.
 */
async function usableSigningKeys(keys: ReadonlyArray<Record<string, unknown>>): Promise<JWK[]> {
  const usable: JWK[] = [];
  for (const key of keys) {
    const alg = typeof key.alg === 'string' ? key.alg : defaultAlgorithm(key);
    if ((key.use !== undefined && key.use !== 'sig') || !alg || !ID_TOKEN_ALGORITHMS.includes(alg)) continue;
    try {
      const imported = await importJWK(key as JWK, alg);
      if (!(imported instanceof CryptoKey) || imported.type !== 'public') continue;
      const modulus = (imported.algorithm as Partial<RsaHashedKeyAlgorithm>).modulusLength;
      if (modulus !== undefined && modulus < 2048) continue;
      usable.push(key as JWK);
    } catch {
      // broken key material: not usable
    }
  }
  return usable;
}

/** The algorithm a key without `alg` is used with. */
function defaultAlgorithm(key: Record<string, unknown>): string | undefined {
  if (key.kty === 'RSA') return 'RS256';
  if (key.kty === 'EC') return ({ 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' } as Record<string, string>)[String(key.crv)];
  if (key.kty === 'OKP' && key.crv === 'Ed25519') return 'EdDSA';
  return undefined;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
