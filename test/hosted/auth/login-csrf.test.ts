// Issue #16, item 2: login CSRF (RFC 6749 §10.12). A web sign-in is bound to the browser that
// began it: the start gives that browser a secret in a cookie, and the provider's callback
// finds the pending sign-in (its state, PKCE verifier and nonce) only with it. A sign-in
// completed at the provider in one browser and opened in another signs nobody in there; for
// both providers. CLI and desktop sign-ins need no cookie: their code is bound by PKCE.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeCodeHost, type FakeCodeHost } from '../../support/codehost.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { assertErrorPage, Browser, pkce, tokenRequest } from '../../support/oauth.ts';
import { startFakeOidc, type FakeOidc } from '../../support/oidc.ts';

const SIGN_IN_COOKIE = 'loom_sign_in';

describe('login CSRF: a web sign-in belongs to the browser that began it', () => {
  let hosted: TestHosted;
  let codehost: FakeCodeHost;
  let oidc: FakeOidc;
  before(async () => {
    codehost = await startFakeCodeHost();
    oidc = await startFakeOidc();
    hosted = await startTestHosted({
      codehost: { url: codehost.url, apiUrl: codehost.apiUrl },
      oidc: { issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret },
    });
  });
  after(async () => {
    await hosted.close();
    await codehost.close();
    await oidc.close();
  });

  /** A browser that starts a web sign-in and passes the provider; returns it and the callback URL it was sent to. */
  async function throughProvider(provider: 'codehost' | 'oidc'): Promise<{ browser: Browser; callbackUrl: string }> {
    const browser = new Browser(hosted.url);
    const start = await browser.get(`/api/v1/auth/${provider}?source=web&return_to=/dashboard`);
    assert.equal(start.status, 302, await start.clone().text());
    const atProvider = await browser.follow(start);
    assert.equal(atProvider.status, 302);
    return { browser, callbackUrl: atProvider.headers.get('location')! };
  }

  for (const provider of ['codehost', 'oidc'] as const) {
    describe(`through ${provider}`, () => {
      it('refuses the callback in a fresh browser with the error page, and signs nobody in there', async () => {
        const { callbackUrl } = await throughProvider(provider);
        const fresh = new Browser(hosted.url);
        const res = await fresh.get(callbackUrl);
        const page = await assertErrorPage(res, 400);
        assert.match(page, /started in another browser/);
        assert.deepEqual(fresh.cookies(), [], 'no session, no cookie at all');
      });

      it('refuses the callback in a browser that has a sign-in of its own under way', async () => {
        const { callbackUrl } = await throughProvider(provider);
        const victim = (await throughProvider(provider)).browser;
        assert.ok(victim.cookie(SIGN_IN_COOKIE));
        await assertErrorPage(await victim.get(callbackUrl), 400);
        assert.equal(victim.cookie('loom_session'), undefined);
      });

      it("leaves the sign-in to the browser that began it: another browser's attempt spends nothing", async () => {
        const { browser, callbackUrl } = await throughProvider(provider);
        await assertErrorPage(await new Browser(hosted.url).get(callbackUrl), 400);
        const res = await browser.get(callbackUrl);
        assert.equal(res.status, 302, await res.clone().text());
        assert.equal(res.headers.get('location'), '/dashboard');
        assert.ok(browser.cookie('loom_session'), 'signed in');
        assert.equal(browser.cookie(SIGN_IN_COOKIE), undefined, 'the sign-in cookie is cleared once used');
      });

      it('refuses the state with a sign-in cookie that is not the one it was given', async () => {
        const { callbackUrl } = await throughProvider(provider);
        const res = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: `${SIGN_IN_COOKIE}=${'A'.repeat(43)}` } });
        await assertErrorPage(res, 400);
        assert.equal(res.headers.get('set-cookie'), null);
      });
    });
  }

  it('gives the sign-in cookie HttpOnly, SameSite=Lax, Path=/ and the lifetime of a sign-in', async () => {
    const start = await fetch(`${hosted.url}/api/v1/auth/codehost?source=web`, { redirect: 'manual' });
    const [cookie] = start.headers.getSetCookie();
    assert.match(cookie!, /^loom_sign_in=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=600$/);
    const again = await fetch(`${hosted.url}/api/v1/auth/codehost?source=web`, { redirect: 'manual' });
    assert.notEqual(again.headers.getSetCookie()[0], cookie, 'a new secret for every sign-in');
  });

  it('sets no cookie for a CLI sign-in, whose code is bound by PKCE to the process that started it', async () => {
    const { challenge } = pkce();
    const query = new URLSearchParams({ source: 'cli', callbackPort: '40123', code_challenge: challenge });
    const start = await fetch(`${hosted.url}/api/v1/auth/codehost?${query}`, { redirect: 'manual' });
    assert.equal(start.status, 302);
    assert.deepEqual(start.headers.getSetCookie(), []);
    // Finished in any browser, the sign-in ends with a code for the loopback port...
    const atCodeHost = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const callback = await new Browser(hosted.url).get(atCodeHost.headers.get('location')!);
    assert.equal(callback.status, 302);
    const code = new URL(callback.headers.get('location')!).searchParams.get('code')!;
    // ...that nobody but the holder of the verifier can redeem.
    const stolen = await tokenRequest(hosted, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:40123/callback',
      client_id: 'loom-cli',
      code_verifier: pkce().verifier,
    });
    assert.equal(stolen.status, 400);
    assert.equal((await stolen.json()).error, 'invalid_grant');
  });
});

describe('login CSRF on an https public URL', () => {
  it('names the sign-in cookie __Host-loom_sign_in and marks it Secure, so no sibling subdomain can plant one', async () => {
    const codehost = await startFakeCodeHost();
    const hosted = await startTestHosted({ codehost: { url: codehost.url, apiUrl: codehost.apiUrl }, publicUrl: 'https://loom.example' });
    try {
      const browser = new Browser(hosted.url);
      const start = await browser.get('/api/v1/auth/codehost?source=web');
      assert.match(start.headers.getSetCookie()[0]!, /^__Host-loom_sign_in=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=600; Secure$/);
      const atCodeHost = await browser.follow(start);
      // The callback is at the public URL; the test's server listens at hosted.url.
      const callback = await browser.follow(atCodeHost, 'https://loom.example');
      assert.equal(callback.status, 302, await callback.clone().text());
      assert.deepEqual(
        callback.headers.getSetCookie().map((c) => c.split('=')[0]),
        ['loom_session', '__Host-loom_sign_in'],
      );
      assert.match(callback.headers.getSetCookie()[1]!, /^__Host-loom_sign_in=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0; Secure$/);
      // A plain loom_sign_in cookie (what a sibling subdomain could set) does not count.
      const other = new Browser(hosted.url);
      const started = await other.get('/api/v1/auth/codehost?source=web');
      const secret = other.cookie('__Host-loom_sign_in')!;
      const back = new URL((await other.follow(started)).headers.get('location')!);
      const planted = await fetch(`${hosted.url}${back.pathname}${back.search}`, { redirect: 'manual', headers: { cookie: `loom_sign_in=${secret}` } });
      await assertErrorPage(planted, 400);
    } finally {
      await hosted.close();
      await codehost.close();
    }
  });
});
