// The second sign-in provider: OpenID Connect by discovery, end to end against a provider on
// loopback that behaves as strict, spec-following providers do (test/support/oidc.ts): the
// profile and email only in UserInfo, HTTP Basic client authentication only.
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { pkceChallenge, randomToken } from '../../../src/core/identity/secrets.ts';
import { post, startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { assertError, assertErrorPage, cliSignIn } from '../../support/oauth.ts';
import { startFakeOidc, type FakeOidc, type FakeOidcOptions } from '../../support/oidc.ts';

/** A provider with these options and a server signing in through it, both closed after the test. */
async function providerAndServer(t: TestContext, options: FakeOidcOptions = {}): Promise<{ oidc: FakeOidc; hosted: TestHosted }> {
  const oidc = await startFakeOidc(options);
  const hosted = await startTestHosted({ oidc: { issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret } });
  t.after(async () => {
    await hosted.close();
    await oidc.close();
  });
  return { oidc, hosted };
}

describe('sign-in through OpenID Connect', () => {
  let hosted: TestHosted;
  let oidc: FakeOidc;
  before(async () => {
    oidc = await startFakeOidc();
    hosted = await startTestHosted({ oidc: { issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret } });
  });
  after(async () => {
    await hosted.close();
    await oidc.close();
  });

  async function throughProvider(verifier: string) {
    const query = new URLSearchParams({ source: 'cli', callbackPort: '40123', code_challenge: pkceChallenge(verifier) });
    const start = await fetch(`${hosted.url}/api/v1/auth/oidc?${query}`, { redirect: 'manual' });
    assert.equal(start.status, 302);
    const authorize = new URL(start.headers.get('location')!);
    assert.equal(authorize.origin, oidc.issuer);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256', 'PKCE toward the provider too');
    assert.ok(authorize.searchParams.get('nonce'));
    assert.equal(authorize.searchParams.get('tenant'), 't1', "the authorization endpoint's own query is kept (Core §3.1.2.1)");
    const back = await fetch(authorize, { redirect: 'manual' });
    return fetch(back.headers.get('location')!, { redirect: 'manual' });
  }

  it('signs the user in and completes the CLI flow with tokens naming them', async () => {
    const verifier = randomToken(32);
    const callback = await throughProvider(verifier);
    assert.equal(callback.status, 302);
    const loopback = new URL(callback.headers.get('location')!);
    assert.equal(loopback.origin, 'http://127.0.0.1:40123');
    const res = await post(
      `${hosted.url}/auth/token`,
      new URLSearchParams({
        grant_type: 'authorization_code',
        code: loopback.searchParams.get('code')!,
        redirect_uri: 'http://127.0.0.1:40123/callback',
        client_id: 'loom-cli',
        code_verifier: verifier,
      }).toString(),
      'application/x-www-form-urlencoded',
    );
    assert.equal(res.status, 200);
    const { id_token } = await res.json();
    const claims = JSON.parse(Buffer.from(id_token.split('.')[1], 'base64url').toString());
    assert.equal(claims.preferred_username, 'grace');
    assert.equal(claims.email, 'grace@example.com');
  });

  it('refuses an ID token that does not carry our nonce, with an error page', async () => {
    oidc.tamperNonce('someone-elses-nonce');
    const callback = await throughProvider(randomToken(32));
    assert.equal(callback.status, 400);
    assert.equal(callback.headers.get('location'), null);
    assert.match(await callback.text(), /nonce/);
  });

  it('answers 404 for a provider that is not configured', async () => {
    const res = await fetch(`${hosted.url}/api/v1/auth/codehost?source=web`, { redirect: 'manual' });
    assert.equal(res.status, 404);
    const body = await res.json();
    assert.equal(body.error, 'not_found');
    // The way out is the operator's settings: their keys, the file, the environment variables.
    assert.match(
      body.hint,
      /codehost\.clientId and codehost\.clientSecret: "codehost": \{…\} in the config file \(config\.json.*LOOM_CODEHOST_CLIENT_ID and LOOM_CODEHOST_CLIENT_SECRET/,
    );
  });

  describe('user info (issue #16, item 1)', () => {
    it('takes the name, username and email from UserInfo when the ID token carries only sub', async () => {
      oidc.signInAs({ sub: 'oidc-100', preferred_username: 'katherine', name: 'Katherine Johnson', email: 'kj@example.com', email_verified: true });
      const { tokens, claims } = await cliSignIn(hosted, 'oidc');
      assert.ok(tokens, 'signed in');
      assert.ok(oidc.requests.includes('GET /userinfo'));
      assert.equal(claims!.name, 'Katherine Johnson');
      assert.equal(claims!.preferred_username, 'katherine');
      assert.equal(claims!.email, 'kj@example.com');
      const user = await hosted.identity.users.get(claims!.sub as string);
      assert.deepEqual([user!.login, user!.name, user!.email], ['katherine', 'Katherine Johnson', 'kj@example.com']);
    });

    it('joins an existing user through the verified email UserInfo gives', async () => {
      const existing = await hosted.identity.users.signIn({
        provider: 'codehost',
        subject: '7001',
        login: 'dorothy',
        name: 'Dorothy Vaughan',
        email: 'dv@example.com',
        emailVerified: true,
      });
      oidc.signInAs({ sub: 'oidc-101', preferred_username: 'dvaughan', email: 'dv@example.com', email_verified: true });
      const { claims } = await cliSignIn(hosted, 'oidc');
      assert.equal(claims!.sub, existing.id);
    });

    it('takes email_verified given as the string "true", as some providers send it', async () => {
      const existing = await hosted.identity.users.signIn({
        provider: 'codehost',
        subject: '7002',
        login: 'mary',
        name: null,
        email: 'mj@example.com',
        emailVerified: true,
      });
      oidc.signInAs({ sub: 'oidc-102', email: 'mj@example.com', email_verified: 'true' });
      const { claims } = await cliSignIn(hosted, 'oidc');
      assert.equal(claims!.sub, existing.id);
    });

    it('never joins through an email UserInfo does not call verified', async () => {
      const existing = await hosted.identity.users.signIn({
        provider: 'codehost',
        subject: '7003',
        login: 'annie',
        name: null,
        email: 'ae@example.com',
        emailVerified: true,
      });
      for (const [sub, verified] of [
        ['oidc-103', false],
        ['oidc-104', undefined],
        ['oidc-105', 'yes'],
      ] as const) {
        oidc.signInAs({ sub, preferred_username: sub, email: 'ae@example.com', ...(verified === undefined ? {} : { email_verified: verified }) });
        const { claims } = await cliSignIn(hosted, 'oidc');
        assert.notEqual(claims!.sub, existing.id, `email_verified ${String(verified)}`);
        assert.equal(claims!.email, 'ae@example.com', 'the address is still kept');
      }
    });

    it('falls back from preferred_username to the email, then to the subject, for the login', async () => {
      oidc.signInAs({ sub: 'oidc-106', email: 'no-username@example.com', email_verified: false });
      assert.equal((await cliSignIn(hosted, 'oidc')).claims!.preferred_username, 'no-username@example.com');
      oidc.signInAs({ sub: 'oidc-107' });
      const { claims } = await cliSignIn(hosted, 'oidc');
      assert.equal(claims!.preferred_username, 'oidc-107');
      assert.equal(claims!.email, undefined);
    });

    it('refuses a UserInfo answer about another user than the ID token (Core §5.3.2), with an error page', async () => {
      oidc.signInAs({ sub: 'oidc-108', preferred_username: 'victim', email: 'victim@example.com', email_verified: true });
      oidc.tamperUserInfoSubject('oidc-999');
      const { callback } = await cliSignIn(hosted, 'oidc');
      const page = await assertErrorPage(callback, 400);
      assert.match(page, /UserInfo answer is about another user than its ID token/);
      assert.equal(await hosted.store.users.findByIdentity('oidc', 'oidc-108'), undefined, 'nobody was signed in');
    });

    it('keeps what the ID token carries when the provider has no UserInfo endpoint', async (t) => {
      const { oidc: other, hosted: server } = await providerAndServer(t, { claims: 'id_token' });
      other.signInAs({ sub: 'oidc-200', preferred_username: 'hedy', name: 'Hedy Lamarr', email: 'hedy@example.com', email_verified: true });
      const { claims } = await cliSignIn(server, 'oidc');
      assert.deepEqual([claims!.preferred_username, claims!.name, claims!.email], ['hedy', 'Hedy Lamarr', 'hedy@example.com']);
      assert.ok(!other.requests.includes('GET /userinfo'));
    });
  });

  describe('client authentication at the token endpoint (issue #16, item 4)', () => {
    it('uses HTTP Basic by default, form-urlencoding the id and secret inside (RFC 6749 §2.3.1)', async (t) => {
      // The provider lists no method (Basic is then the default) and accepts Basic only.
      const { oidc: strict, hosted: server } = await providerAndServer(t, { clientSecret: 'p@ss:w rd+/%é&=' });
      const { tokens } = await cliSignIn(server, 'oidc');
      assert.ok(tokens);
      assert.deepEqual(strict.clientAuth, ['basic']);
    });

    it('prefers Basic when the provider lists both', async (t) => {
      const { oidc: both, hosted: server } = await providerAndServer(t, { authMethods: ['client_secret_post', 'client_secret_basic'] });
      assert.ok((await cliSignIn(server, 'oidc')).tokens);
      assert.deepEqual(both.clientAuth, ['basic']);
    });

    it('uses client_secret_post when that is the only method the provider lists', async (t) => {
      const { oidc: postOnly, hosted: server } = await providerAndServer(t, { authMethods: ['client_secret_post'] });
      assert.ok((await cliSignIn(server, 'oidc')).tokens);
      assert.deepEqual(postOnly.clientAuth, ['post']);
    });

    it('refuses to start, before any redirect, when the provider lists no method Loom has', async (t) => {
      const { oidc: jwtOnly, hosted: server } = await providerAndServer(t, { authMethods: ['private_key_jwt', 'tls_client_auth'] });
      const query = new URLSearchParams({ source: 'cli', callbackPort: '40123', code_challenge: pkceChallenge(randomToken(32)) });
      const body = await assertError(await fetch(`${server.url}/api/v1/auth/oidc?${query}`, { redirect: 'manual' }), 502, 'upstream_unavailable');
      assert.match(body.message as string, /private_key_jwt, tls_client_auth/);
      assert.match(body.hint as string, /client_secret_basic/);
      assert.ok(!jwtOnly.requests.includes('GET /authorize'));
    });

    it('shows the error page when the provider refuses the client', async (t) => {
      const oidcWrong = await startFakeOidc();
      const server = await startTestHosted({ oidc: { issuer: oidcWrong.issuer, clientId: oidcWrong.clientId, clientSecret: 'not-the-secret' } });
      t.after(async () => {
        await server.close();
        await oidcWrong.close();
      });
      const { callback } = await cliSignIn(server, 'oidc');
      assert.match(await assertErrorPage(callback, 400), /refused the sign-in \(invalid_client\)/);
    });
  });

  it('accepts an issuer that names itself with a trailing slash (Auth0, Gitea)', async (t) => {
    const { hosted: server } = await providerAndServer(t, { trailingSlash: true });
    assert.ok((await cliSignIn(server, 'oidc')).tokens);
  });
});
