// An OpenID Connect provider on loopback (discovery, authorize, token, UserInfo, JWKS) standing
// in for Keycloak, Okta and the like, which cannot be reached from here. By default it behaves
// as strict, spec-following providers do: the ID token carries only `sub` and the protocol
// claims, the profile and email come from UserInfo (Core §5.4), and the token endpoint takes
// HTTP Basic client authentication only, form-urlencoded inside (RFC 6749 §2.3.1).
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export interface OidcUser {
  sub: string;
  preferred_username?: string;
  name?: string;
  email?: string;
  email_verified?: boolean | string;
}

export interface FakeOidcOptions {
  clientSecret?: string;
  /** `token_endpoint_auth_methods_supported`, and what the token endpoint accepts; undefined leaves it out (Basic only). */
  authMethods?: string[];
  /** Where the user's claims go: UserInfo only (default), or the ID token (and no UserInfo endpoint). */
  claims?: 'userinfo' | 'id_token';
  /** The issuer as the provider names itself: `${url}` (default) or with a trailing slash (Auth0, Gitea). */
  trailingSlash?: boolean;
}

/** Takes over one path of the provider: what it answers instead. */
export type Behaviour = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export interface FakeOidc {
  issuer: string;
  clientId: string;
  clientSecret: string;
  signInAs(user: OidcUser): void;
  /** Sign the next ID token with this nonce instead of the one asked for (a replay). */
  tamperNonce(nonce: string): void;
  /** Answer the next UserInfo request about this subject instead (a token substitution). */
  tamperUserInfoSubject(sub: string): void;
  /** Answer `path` (e.g. /token, /userinfo, /jwks, /.well-known/openid-configuration) this way until cleared. */
  behave(path: string, behaviour: Behaviour | undefined): void;
  /** How the token endpoint saw the client authenticate, in order. */
  clientAuth: Array<'basic' | 'post'>;
  /** Requests seen, as "METHOD /path". */
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeOidc(options: FakeOidcOptions = {}): Promise<FakeOidc> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const clientId = 'oidc-client';
  const clientSecret = options.clientSecret ?? 'oidc-secret';
  const claimsIn = options.claims ?? 'userinfo';
  const accepts = options.authMethods ?? ['client_secret_basic'];
  let user: OidcUser = { sub: 'oidc-42', preferred_username: 'grace', name: 'Grace Hopper', email: 'grace@example.com', email_verified: true };
  let forcedNonce: string | undefined;
  let forcedSubject: string | undefined;
  const codes = new Map<string, { user: OidcUser; nonce: string; challenge: string; redirectUri: string }>();
  const accessTokens = new Map<string, OidcUser>();
  const behaviours = new Map<string, Behaviour>();
  const clientAuth: Array<'basic' | 'post'> = [];
  const requests: string[] = [];
  let base = '';
  let issuer = '';

  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', base);
    requests.push(`${request.method} ${url.pathname}`);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    const behaviour = behaviours.get(url.pathname);
    if (behaviour) return behaviour(request, response);

    if (url.pathname === '/.well-known/openid-configuration') {
      return send(200, {
        issuer,
        authorization_endpoint: `${base}/authorize?tenant=t1`,
        token_endpoint: `${base}/token`,
        jwks_uri: `${base}/jwks`,
        ...(claimsIn === 'userinfo' ? { userinfo_endpoint: `${base}/userinfo` } : {}),
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        ...(options.authMethods ? { token_endpoint_auth_methods_supported: options.authMethods } : {}),
      });
    }
    if (url.pathname === '/jwks') return send(200, { keys: [jwk] }, { 'content-type': 'application/jwk-set+json' });
    if (url.pathname === '/authorize') {
      if (url.searchParams.get('tenant') !== 't1')
        return send(400, { error: 'invalid_request', error_description: 'the query of the authorization endpoint was dropped' });
      const code = randomBytes(10).toString('hex');
      const redirectUri = url.searchParams.get('redirect_uri')!;
      codes.set(code, { user, nonce: url.searchParams.get('nonce')!, challenge: url.searchParams.get('code_challenge')!, redirectUri });
      const target = new URL(redirectUri);
      target.searchParams.set('code', code);
      target.searchParams.set('state', url.searchParams.get('state')!);
      return response.writeHead(302, { location: target.toString() }).end();
    }
    if (url.pathname === '/token' && request.method === 'POST') {
      let raw = '';
      for await (const chunk of request) raw += chunk;
      const form = new URLSearchParams(raw);
      const client = authenticate(request.headers.authorization, form);
      if (!client) return send(401, { error: 'invalid_client' }, { 'www-authenticate': 'Basic realm="fake"' });
      clientAuth.push(client.method);
      if (client.id !== clientId || client.secret !== clientSecret) return send(401, { error: 'invalid_client' });
      const pending = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifierOk =
        pending &&
        createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url') === pending.challenge;
      if (!pending || !verifierOk || pending.redirectUri !== form.get('redirect_uri')) return send(400, { error: 'invalid_grant' });
      const { sub, ...profile } = pending.user;
      const idToken = await new SignJWT({ ...(claimsIn === 'id_token' ? profile : {}), nonce: forcedNonce ?? pending.nonce })
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
        .setIssuer(issuer)
        .setAudience(clientId)
        .setSubject(sub)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      forcedNonce = undefined;
      const accessToken = randomBytes(16).toString('hex');
      accessTokens.set(accessToken, pending.user);
      return send(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 300, id_token: idToken });
    }
    if (url.pathname === '/userinfo' && claimsIn === 'userinfo') {
      const who = accessTokens.get((request.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!who) return send(401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
      const answer = forcedSubject ? { ...who, sub: forcedSubject } : who;
      forcedSubject = undefined;
      return send(200, answer);
    }
    send(404, { error: 'not_found' });
  });

  /** The client's id and secret, by the one method this provider accepts for the request; undefined when refused. */
  function authenticate(header: string | undefined, form: URLSearchParams): { id: string; secret: string; method: 'basic' | 'post' } | undefined {
    const inBody = form.has('client_secret');
    if (header?.startsWith('Basic ')) {
      if (inBody || !accepts.includes('client_secret_basic')) return undefined;
      const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return undefined;
      // RFC 6749 §2.3.1: each part is application/x-www-form-urlencoded.
      const formDecode = (text: string) => new URLSearchParams(`v=${text}`).get('v') ?? '';
      return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)), method: 'basic' };
    }
    if (inBody && accepts.includes('client_secret_post')) return { id: form.get('client_id') ?? '', secret: form.get('client_secret') ?? '', method: 'post' };
    return undefined;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuer = options.trailingSlash ? `${base}/` : base;
  return {
    issuer,
    clientId,
    clientSecret,
    signInAs: (next) => (user = next),
    tamperNonce: (nonce) => (forcedNonce = nonce),
    tamperUserInfoSubject: (sub) => (forcedSubject = sub),
    behave: (path, behaviour) => (behaviour ? behaviours.set(path, behaviour) : behaviours.delete(path)),
    clientAuth,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
