// A minimal OpenID Connect provider on loopback (discovery, authorize, token, JWKS) standing in
// for Keycloak, Okta and the like, which cannot be reached from here.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export interface OidcUser {
  sub: string;
  preferred_username?: string;
  name?: string;
  email?: string;
  email_verified?: boolean;
}

export interface FakeOidc {
  issuer: string;
  clientId: string;
  clientSecret: string;
  signInAs(user: OidcUser): void;
  /** Sign the next ID token with this nonce instead of the one asked for (a replay). */
  tamperNonce(nonce: string): void;
  close(): Promise<void>;
}

export async function startFakeOidc(): Promise<FakeOidc> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const clientId = 'oidc-client';
  const clientSecret = 'oidc-secret';
  let user: OidcUser = { sub: 'oidc-42', preferred_username: 'grace', name: 'Grace Hopper', email: 'grace@example.com', email_verified: true };
  let forcedNonce: string | undefined;
  const codes = new Map<string, { user: OidcUser; nonce: string; challenge: string; redirectUri: string }>();
  let issuer = '';

  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', issuer);
    const send = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/.well-known/openid-configuration') {
      return send(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (url.pathname === '/jwks') return send(200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
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
      const pending = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifierOk = pending && createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url') === pending.challenge;
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) return send(401, { error: 'invalid_client' });
      if (!pending || !verifierOk || pending.redirectUri !== form.get('redirect_uri')) return send(400, { error: 'invalid_grant' });
      const idToken = await new SignJWT({ ...pending.user, nonce: forcedNonce ?? pending.nonce })
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
        .setIssuer(issuer)
        .setAudience(clientId)
        .setSubject(pending.user.sub)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      forcedNonce = undefined;
      return send(200, { access_token: 'opaque', token_type: 'Bearer', id_token: idToken });
    }
    send(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    clientId,
    clientSecret,
    signInAs: (next) => (user = next),
    tamperNonce: (nonce) => (forcedNonce = nonce),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
