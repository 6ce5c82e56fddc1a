// docs/security.md, "Sign-in and tokens": redirect URIs match exactly; the only exception is the port of a
// loopback redirect (RFC 8252 §7.3). Extra path, query, another host, another scheme, a
// trailing slash or a fragment are refused with an error page. No http other than loopback,
// and `localhost` is not loopback.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LoomError } from '../../../src/core/errors.ts';
import type { ClientRecord } from '../../../src/core/identity/records.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { assertErrorPage, authorize, authorizeParams, pkce, redeem, registerClient, signedInUser } from '../../support/oauth.ts';

describe('redirect URIs', () => {
  let hosted: TestHosted;
  let client: ClientRecord;
  let cookie: string;
  before(async () => {
    hosted = await startTestHosted();
    ({ client } = await registerClient(hosted, {
      redirectUris: ['https://app.example.com/cb', 'http://127.0.0.1/callback', 'http://[::1]:8080/cb', 'com.example.app:/oauth'],
    }));
    ({ cookie } = await signedInUser(hosted));
  });
  after(() => hosted.close());

  const request = (redirectUri: string, clientRecord: ClientRecord = client, overrides: Record<string, string> = {}) =>
    authorize(hosted, authorizeParams(clientRecord, pkce().challenge, { redirect_uri: redirectUri, ...overrides }), cookie);

  async function assertAccepted(redirectUri: string, clientRecord: ClientRecord = client) {
    const res = await request(redirectUri, clientRecord);
    assert.equal(res.status, 302, `${redirectUri}: ${await res.text()}`);
    const location = new URL(res.headers.get('location')!);
    const expected = new URL(redirectUri);
    assert.equal(location.protocol, expected.protocol);
    assert.equal(location.host, expected.host, 'the code goes to the very host and port asked for');
    assert.equal(location.pathname, expected.pathname);
    assert.ok(location.searchParams.get('code'));
  }

  it('accepts a registered https URI, exactly', async () => {
    await assertAccepted('https://app.example.com/cb');
  });

  it('accepts a registered private-use scheme URI of a native app, exactly', async () => {
    await assertAccepted('com.example.app:/oauth');
  });

  const refused: [string, string][] = [
    ['an extra path segment', 'https://app.example.com/cb/extra'],
    ['another path', 'https://app.example.com/other'],
    ['a path prefix', 'https://app.example.com/c'],
    ['an extra query', 'https://app.example.com/cb?next=https://evil.example'],
    ['an empty query', 'https://app.example.com/cb?'],
    ['a different host', 'https://evil.example.com/cb'],
    ['a host suffix', 'https://app.example.com.evil.com/cb'],
    ['a subdomain', 'https://www.app.example.com/cb'],
    ['userinfo before the host', 'https://app.example.com@evil.com/cb'],
    ['userinfo on the right host', 'https://user@app.example.com/cb'],
    ['http instead of https', 'http://app.example.com/cb'],
    ['a different port on a non-loopback host', 'https://app.example.com:8443/cb'],
    ['a trailing slash', 'https://app.example.com/cb/'],
    ['a fragment', 'https://app.example.com/cb#frag'],
    ['an empty fragment', 'https://app.example.com/cb#'],
    ['a percent-encoded path', 'https://app.example.com/%63b'],
    ['a dot segment', 'https://app.example.com/x/../cb'],
    ['a javascript: URI', 'javascript:alert(1)//https://app.example.com/cb'],
    ['a data: URI', 'data:text/html,hi'],
    ['no URL at all', 'app.example.com/cb'],
    ['a private-use scheme with another path', 'com.example.app:/oauth/x'],
    ['another private-use scheme', 'com.evil.app:/oauth'],
    ['loopback with an extra path', 'http://127.0.0.1:5000/callback/extra'],
    ['loopback with a query', 'http://127.0.0.1:5000/callback?x=1'],
    ['loopback with a fragment', 'http://127.0.0.1:5000/callback#x'],
    ['loopback with a trailing slash', 'http://127.0.0.1:5000/callback/'],
    ['loopback with https', 'https://127.0.0.1:5000/callback'],
    ['another loopback address (127.0.0.2)', 'http://127.0.0.2:5000/callback'],
    ['loopback with userinfo', 'http://evil@127.0.0.1:5000/callback'],
    ['::1 with the path registered for 127.0.0.1', 'http://[::1]:5000/callback'],
    ['127.0.0.1 with the path registered for ::1', 'http://127.0.0.1:8080/cb'],
    ['localhost (not loopback for redirects)', 'http://localhost:5000/callback'],
    ['localhost on the registered path, no port', 'http://localhost/callback'],
  ];
  for (const [name, uri] of refused) {
    it(`refuses ${name} with an error page, never a redirect: ${uri}`, async () => {
      await assertErrorPage(await request(uri));
    });
  }

  it('checks the redirect URI before anything it would redirect (bad response_type, no PKCE)', async () => {
    await assertErrorPage(await request('https://evil.example.com/cb', client, { response_type: 'token' }));
    const noPkce = authorizeParams(client, pkce().challenge, { redirect_uri: 'https://evil.example.com/cb', code_challenge: undefined });
    await assertErrorPage(await authorize(hosted, noPkce, cookie));
  });

  it('does not need a signed-in user to refuse: no redirect to sign-in for a bad URI', async () => {
    const res = await authorize(hosted, authorizeParams(client, pkce().challenge, { redirect_uri: 'https://evil.example.com/cb' }));
    await assertErrorPage(res);
  });

  it('accepts a registered loopback redirect on any port (127.0.0.1)', async () => {
    for (const port of ['1', '1024', '5000', '54321', '65535']) await assertAccepted(`http://127.0.0.1:${port}/callback`);
    await assertAccepted('http://127.0.0.1/callback');
  });

  it('accepts a registered loopback redirect on any port ([::1]), even when registered with a port', async () => {
    for (const port of ['8080', '9', '40000']) await assertAccepted(`http://[::1]:${port}/cb`);
    await assertAccepted('http://[::1]/cb');
  });

  it("accepts the CLI client's loopback redirects on any port, for 127.0.0.1 and ::1", async () => {
    const cli = (await hosted.identity.clients.get('loom-cli'))!;
    await assertAccepted('http://127.0.0.1:61234/callback', cli);
    await assertAccepted('http://[::1]:61234/callback', cli);
    await assertErrorPage(await request('http://localhost:61234/callback', cli));
    await assertErrorPage(await request('http://127.0.0.1:61234/callback/x', cli));
  });

  it('binds the code to the loopback port used: redeeming it needs that same redirect URI', async () => {
    const { verifier, challenge } = pkce();
    const res = await authorize(hosted, authorizeParams(client, challenge, { redirect_uri: 'http://127.0.0.1:43210/callback', scope: 'read:models' }), cookie);
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const tokens = await redeem(hosted, client, { code, verifier, redirectUri: 'http://127.0.0.1:43210/callback' });
    assert.equal(tokens.scope, 'read:models');
  });

  describe('registration', () => {
    const refusedAtRegistration: [string, string][] = [
      ['http on a public host', 'http://app.example.com/cb'],
      ['http on localhost', 'http://localhost:3000/cb'],
      ['http on localhost without a port', 'http://localhost/cb'],
      ['http on a private address', 'http://192.168.1.10/cb'],
      ['http on another loopback address', 'http://127.0.0.2/cb'],
      ['a fragment', 'https://app.example.com/cb#x'],
      ['a javascript: URI', 'javascript:alert(1)'],
      ['a data: URI', 'data:text/html,hi'],
      ['a file: URI', 'file:///etc/passwd'],
      ['a single-word custom scheme', 'myapp:/cb'],
      ['no URL', 'not a url'],
      ['a newline at its end', 'https://app.example.com/cb\n'],
      ['CR LF at its end', 'https://app.example.com/cb\r\n'],
      ['a leading space', ' https://app.example.com/cb'],
      ['no authority as written', 'https:/app.example.com/cb'],
      ['an upper-case host', 'https://App.example.com/cb'],
    ];
    for (const [name, uri] of refusedAtRegistration) {
      it(`refuses ${name}: ${JSON.stringify(uri)}`, async () => {
        await assert.rejects(
          registerClient(hosted, { redirectUris: ['https://ok.example.com/cb', uri] }),
          (error: unknown) => error instanceof LoomError && error.code === 'validation_error',
        );
      });
    }

    it('accepts https, loopback http (127.0.0.1 and [::1]) and reverse-domain private-use schemes', async () => {
      const { client: registered } = await registerClient(hosted, {
        redirectUris: ['https://ok.example.com/cb', 'http://127.0.0.1:7000/cb', 'http://[::1]/cb', 'com.example.app:/cb'],
      });
      assert.deepEqual(registered.redirectUris, ['https://ok.example.com/cb', 'http://127.0.0.1:7000/cb', 'http://[::1]/cb', 'com.example.app:/cb']);
    });

    it('refuses an authorization code client without redirect URIs', async () => {
      await assert.rejects(registerClient(hosted, { redirectUris: [] }), (error: unknown) => error instanceof LoomError && error.code === 'validation_error');
    });
  });
});
