// docs/security.md, "Sign-in and tokens": an invalid client_id or redirect_uri gets an error page, never a
// redirect; no endpoint redirects to a URL taken from a parameter without checking it (the
// web sign-in's return_to, the provider callback's state).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClientRecord } from '../../../src/core/identity/records.ts';
import { startFakeCodeHost, type FakeCodeHost } from '../../support/codehost.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { assertError, assertErrorPage, authorize, authorizeParams, Browser, pkce, redeem, registerClient, signedInUser } from '../../support/oauth.ts';

describe('no open redirect', () => {
  let hosted: TestHosted;
  let codehost: FakeCodeHost;
  let client: ClientRecord;
  let other: ClientRecord;
  let cookie: string;
  before(async () => {
    codehost = await startFakeCodeHost();
    hosted = await startTestHosted({ codehost: { url: codehost.url, apiUrl: codehost.apiUrl } });
    ({ client } = await registerClient(hosted, { redirectUris: ['https://app.example.com/cb'] }));
    ({ client: other } = await registerClient(hosted, { redirectUris: ['https://other.example.com/cb'] }));
    ({ cookie } = await signedInUser(hosted));
  });
  after(async () => {
    await hosted.close();
    await codehost.close();
  });

  describe('/auth/authorize', () => {
    const cases: [string, (c: ClientRecord) => Record<string, string | undefined>][] = [
      ['an unknown client_id', () => ({ client_id: 'loom_doesnotexist' })],
      ['an empty client_id', () => ({ client_id: '' })],
      ['no client_id', () => ({ client_id: undefined })],
      ['no redirect_uri', () => ({ redirect_uri: undefined })],
      ['an empty redirect_uri', () => ({ redirect_uri: '' })],
      ["another client's redirect_uri", () => ({ redirect_uri: 'https://other.example.com/cb' })],
      ['an unregistered redirect_uri', () => ({ redirect_uri: 'https://evil.example.com/cb' })],
      ['an unknown client_id with a response_type the server would report', () => ({ client_id: 'nope', response_type: 'token' })],
    ];
    for (const [name, overrides] of cases) {
      it(`shows an error page for ${name}, signed in or not`, async () => {
        const params = authorizeParams(client, pkce().challenge, overrides(client));
        await assertErrorPage(await authorize(hosted, params, cookie));
        await assertErrorPage(await authorize(hosted, params));
      });
    }

    it('shows an error page when a parameter is repeated (which redirect_uri would be meant?)', async () => {
      const query = new URLSearchParams(authorizeParams(client, pkce().challenge) as Record<string, string>);
      query.append('redirect_uri', 'https://evil.example.com/cb');
      const res = await fetch(`${hosted.url}/auth/authorize?${query}`, { redirect: 'manual', headers: { cookie } });
      await assertErrorPage(res);
    });

    it('escapes what it echoes on the error page', async () => {
      const page = await assertErrorPage(
        await authorize(hosted, authorizeParams(client, pkce().challenge, { client_id: '<script>alert(1)</script>' }), cookie),
      );
      assert.doesNotMatch(page, /<script>alert/);
    });

    it('redirects errors only to a registered URI of the client that asked', async () => {
      const res = await authorize(hosted, authorizeParams(other, pkce().challenge, { response_type: 'token' }), cookie);
      assert.equal(res.status, 302);
      const location = new URL(res.headers.get('location')!);
      assert.equal(`${location.origin}${location.pathname}`, 'https://other.example.com/cb');
      assert.equal(location.searchParams.get('error'), 'unsupported_response_type');
    });

    it('sends a signed-out user to sign-in on this server only, with a local return_to', async () => {
      const res = await authorize(hosted, authorizeParams(client, pkce().challenge));
      assert.equal(res.status, 302);
      const location = res.headers.get('location')!;
      assert.match(location, /^\/api\/v1\/auth\/codehost\?/);
      const returnTo = new URL(location, hosted.url).searchParams.get('return_to')!;
      assert.match(returnTo, /^\/auth\/authorize\?/);
    });

    it('completes the browser flow: sign-in at the code host, back to /auth/authorize, code to the client', async () => {
      const { verifier, challenge } = pkce();
      const params = authorizeParams(client, challenge, { scope: 'read:models', state: 'xyz' });
      const browser = new Browser(hosted.url);
      let res = await authorize(hosted, params);
      res = await browser.follow(res); // the sign-in start
      assert.equal(res.status, 302);
      res = await browser.follow(res); // the code host
      assert.equal(res.status, 302);
      res = await browser.follow(res); // our callback
      assert.equal(res.status, 302, await res.clone().text());
      const setCookie = res.headers.get('set-cookie')!;
      assert.match(setCookie, /^loom_session=[A-Za-z0-9_-]+;.*HttpOnly/);
      const back = res.headers.get('location')!;
      assert.match(back, /^\/auth\/authorize\?/, 'back to a local path');
      res = await browser.follow(res);
      assert.equal(res.status, 302);
      const location = new URL(res.headers.get('location')!);
      assert.equal(`${location.origin}${location.pathname}`, 'https://app.example.com/cb');
      assert.equal(location.searchParams.get('state'), 'xyz');
      const tokens = await redeem(hosted, client, { code: location.searchParams.get('code')!, verifier, redirectUri: 'https://app.example.com/cb' });
      assert.equal(tokens.scope, 'read:models');
    });
  });

  describe('web sign-in return_to', () => {
    let browser: Browser;
    const start = (returnTo: string) => {
      browser = new Browser(hosted.url);
      return browser.get(`/api/v1/auth/codehost?${new URLSearchParams({ source: 'web', return_to: returnTo })}`);
    };

    /** Start → code host → our callback, in the browser that started; returns the callback's response. */
    async function complete(startResponse: Response): Promise<Response> {
      assert.equal(startResponse.status, 302);
      const atCodeHost = await browser.follow(startResponse);
      assert.equal(atCodeHost.status, 302);
      return browser.follow(atCodeHost);
    }

    const foreign = [
      '//evil.com',
      '//evil.com/dashboard',
      '///evil.com',
      'https://evil.com',
      'https://evil.com/dashboard',
      'http:evil.com',
      '/\\evil.com',
      '\\\\evil.com',
      '\\/evil.com',
      '/\t/evil.com',
      '/\n/evil.com',
      '/ /evil.com',
      'evil.com',
      'javascript:alert(1)',
      '',
    ];
    for (const returnTo of foreign) {
      it(`refuses return_to ${JSON.stringify(returnTo)} with 400, before leaving for the code host`, async () => {
        const before = codehost.requests.length;
        await assertError(await start(returnTo), 400, 'validation_error');
        assert.equal(codehost.requests.length, before);
      });
    }

    it('refuses control characters in return_to, and the callback never answers 5xx', async () => {
      for (const returnTo of ['/\u0001x', '/a\u007f', '/a\r\nSet-Cookie: x=1', '/\u0100', '/caf\u00e9']) {
        const res = await start(returnTo);
        if (res.status === 400) {
          await assertError(res, 400, 'validation_error');
          continue;
        }
        const callback = await complete(res);
        assert.ok(callback.status < 500, `${JSON.stringify(returnTo)}: ${callback.status} ${await callback.text()}`);
      }
    });

    it('returns to the local path given, after the session is set', async () => {
      const callback = await complete(await start('/dashboard/keys?tab=new'));
      assert.equal(callback.status, 302);
      assert.equal(callback.headers.get('location'), '/dashboard/keys?tab=new');
      assert.match(callback.headers.get('set-cookie') ?? '', /^loom_session=/);
    });

    it('returns to /dashboard when no return_to is given', async () => {
      browser = new Browser(hosted.url);
      const callback = await complete(await browser.get('/api/v1/auth/codehost?source=web'));
      assert.equal(callback.status, 302);
      assert.equal(callback.headers.get('location'), '/dashboard');
    });
  });

  describe('provider callback', () => {
    const callback = (query: string) => fetch(`${hosted.url}/auth/codehost/callback${query}`, { redirect: 'manual' });

    it('shows an error page without a state', async () => {
      await assertErrorPage(await callback('?code=abc'));
    });

    it('shows an error page for a state it never issued', async () => {
      await assertErrorPage(await callback('?code=abc&state=forged-state-value'));
    });

    it('shows an error page for a state used before (single use)', async () => {
      const browser = new Browser(hosted.url);
      const start = await browser.get('/api/v1/auth/codehost?source=web&return_to=/dashboard');
      const atCodeHost = await browser.follow(start);
      const back = atCodeHost.headers.get('location')!;
      const signInCookie = start.headers.getSetCookie()[0]!.split(';')[0]!;
      const first = await browser.get(back);
      assert.equal(first.status, 302);
      // Even with the sign-in cookie the browser had (the callback cleared it).
      const second = await fetch(back, { redirect: 'manual', headers: { cookie: signInCookie } });
      const page = await assertErrorPage(second);
      assert.match(page, /already used|not valid/);
      assert.equal(second.headers.get('set-cookie'), null, 'no session from a replayed callback');
    });

    it('shows an error page when the provider reports an error', async () => {
      codehost.denyNext('access_denied');
      const browser = new Browser(hosted.url);
      const start = await browser.get('/api/v1/auth/codehost?source=web&return_to=/dashboard');
      const atCodeHost = await browser.follow(start);
      const res = await browser.follow(atCodeHost);
      await assertErrorPage(res);
      assert.equal(res.headers.get('set-cookie'), null);
    });

    it('shows an error page when a parameter is repeated', async () => {
      await assertErrorPage(await callback('?code=a&state=b&state=c'), 404);
    });

    it('answers 404 (a page) for a provider that does not exist', async () => {
      await assertErrorPage(await fetch(`${hosted.url}/auth/evil/callback?code=a&state=x`, { redirect: 'manual' }), 404);
    });
  });
});
