// The second sign-in provider: OpenID Connect by discovery, end to end against a provider on loopback.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pkceChallenge, randomToken } from '../../../src/core/identity/secrets.ts';
import { post, startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { startFakeOidc, type FakeOidc } from '../../support/oidc.ts';

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
    assert.equal((await res.json()).error, 'not_found');
  });
});
