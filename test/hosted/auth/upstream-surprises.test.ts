// Issue #9, item 10: whatever a sign-in provider answers (not JSON, wrong types, oversized or
// endless bodies, slow answers, redirects, an HTML token endpoint, a malformed, huge or slow
// discovery document or JWKS), sign-in ends in a 502 upstream_unavailable (the JSON error at
// the start, the error page at the callback), never a 500. One bounded, typed reader
// (src/core/identity/provider-answers.ts) reads every answer; each surprise has a case here.
import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, describe, it, type TestContext } from 'node:test';
import { startFakeCodeHost, type FakeCodeHost } from '../../support/codehost.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { assertError, assertErrorPage, pkce } from '../../support/oauth.ts';
import { startFakeOidc, type FakeOidc } from '../../support/oidc.ts';
import { startUpstream, type Upstream } from '../../support/upstream.ts';

type Behaviour = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** A short time limit for the cases that wait for it; the others keep the default (10 s). */
const SHORT_TIMEOUT_MS = 1000;

const answer =
  (status: number, contentType: string, body: string): Behaviour =>
  (_request, response) =>
    response.writeHead(status, { 'content-type': contentType }).end(body);
const json = (body: unknown, status = 200) => answer(status, 'application/json', JSON.stringify(body));
const htmlPage = answer(200, 'text/html; charset=utf-8', '<!doctype html><title>Sign in to the proxy</title>');
const notJson = answer(200, 'application/json', '<html>not json</html>');
/** Declares 2 MB up front. */
const hugeDeclared: Behaviour = (_request, response) => {
  const body = JSON.stringify({ id: 1, login: 'ada', pad: 'a'.repeat(2 * 1024 * 1024) });
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
};
/** Chunked, and never ends: only the size cap stops the reader. */
const endless: Behaviour = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.write('{"pad":"');
  const chunk = 'a'.repeat(64 * 1024);
  const pump = () => {
    while (!response.destroyed && response.write(chunk));
  };
  response.on('drain', pump);
  pump();
};
/** Never answers at all. */
const silent: Behaviour = () => {};
/** Sends the headers and the start of a body, then nothing more. */
const stalls: Behaviour = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.write('{"id":');
};
const redirectTo =
  (location: string, status = 302): Behaviour =>
  (_request, response) =>
    response.writeHead(status, { location }).end();

/** Starts a CLI sign-in, passes the provider, and returns our callback's answer. */
async function callbackOf(hosted: TestHosted, provider: 'codehost' | 'oidc'): Promise<Response> {
  const query = new URLSearchParams({ source: 'cli', callbackPort: '40123', code_challenge: pkce().challenge });
  const start = await fetch(`${hosted.url}/api/v1/auth/${provider}?${query}`, { redirect: 'manual' });
  assert.equal(start.status, 302, await start.clone().text());
  const atProvider = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  assert.equal(atProvider.status, 302, await atProvider.clone().text());
  return fetch(atProvider.headers.get('location')!, { redirect: 'manual' });
}

/** The callback's error page for a provider failure: 502, no redirect, no session, the reason. */
async function assertUpstreamPage(res: Response, reason: RegExp): Promise<void> {
  const page = await assertErrorPage(res, 502);
  assert.equal(res.headers.get('set-cookie'), null);
  assert.match(page, reason);
  assert.doesNotMatch(page, /\n\s+at /, 'no stack trace');
}

describe('upstream surprises at sign-in through the code host', () => {
  let hosted: TestHosted;
  let slowHosted: TestHosted;
  let codehost: FakeCodeHost;
  let elsewhere: Upstream;
  before(async () => {
    codehost = await startFakeCodeHost();
    elsewhere = await startUpstream();
    hosted = await startTestHosted({ codehost: { url: codehost.url, apiUrl: codehost.apiUrl } });
    slowHosted = await startTestHosted({ codehost: { url: codehost.url, apiUrl: codehost.apiUrl }, signInTimeoutMs: SHORT_TIMEOUT_MS });
  });
  after(async () => {
    await hosted.close();
    await slowHosted.close();
    await codehost.close();
    await elsewhere.close();
  });

  const cases: Array<[string, string, () => Behaviour, RegExp]> = [
    ['/user answering 200 with HTML', '/api/user', () => htmlPage, /answered \/user with text\/html, not JSON/],
    ['/user answering 200 with a body that is not JSON', '/api/user', () => notJson, /answer to \/user is not valid JSON/],
    ['/user with fields of the wrong types', '/api/user', () => json({ id: { n: 1 }, login: 42 }), /answer to \/user is not what Loom expects: \/id/],
    ['/user answering a list', '/api/user', () => json([{ id: 1, login: 'ada' }]), /answer to \/user is not what Loom expects/],
    ['/user with an absurdly long login', '/api/user', () => json({ id: 1, login: 'a'.repeat(5000) }), /answer to \/user is not what Loom expects: \/login/],
    ['/user declaring a 2 MB body', '/api/user', () => hugeDeclared, /answer to \/user is larger than 256 KiB/],
    ['/user streaming a body without end', '/api/user', () => endless, /answer to \/user is larger than 256 KiB/],
    ['/user answering 500', '/api/user', () => json({ message: 'oops' }, 500), /answered \/user with status 500/],
    ['/user/emails answering HTML', '/api/user/emails', () => htmlPage, /answered \/user\/emails with text\/html/],
    [
      '/user/emails with entries of the wrong types',
      '/api/user/emails',
      () => json([{ email: 5, verified: 'yes' }]),
      /answer to \/user\/emails is not what Loom expects/,
    ],
    ['/user/emails answering 502', '/api/user/emails', () => json({}, 502), /answered \/user\/emails with status 502/],
    ['the token endpoint answering HTML', '/login/oauth/access_token', () => htmlPage, /answered the token endpoint with text\/html, not JSON/],
    ['the token endpoint answering 503', '/login/oauth/access_token', () => answer(503, 'text/plain', 'busy'), /answered the token endpoint with status 503/],
    [
      'the token endpoint with an access_token of the wrong type',
      '/login/oauth/access_token',
      () => json({ access_token: ['x'] }),
      /answer to the token endpoint is not what Loom expects/,
    ],
  ];
  for (const [name, path, behaviour, reason] of cases) {
    it(`answers 502 with the error page for ${name}`, async (t) => {
      codehost.behave(path, behaviour());
      t.after(() => codehost.behave(path, undefined));
      await assertUpstreamPage(await callbackOf(hosted, 'codehost'), reason);
    });
  }

  it('does not follow a redirect of /user: the user token goes nowhere else', async (t) => {
    codehost.behave('/api/user', redirectTo(`${elsewhere.url}/steal`));
    t.after(() => codehost.behave('/api/user', undefined));
    await assertUpstreamPage(await callbackOf(hosted, 'codehost'), /redirected \/user elsewhere \(302\)/);
    assert.deepEqual(elsewhere.requests, []);
  });

  it('does not follow a 307 of the token endpoint: the client secret goes nowhere else', async (t) => {
    codehost.behave('/login/oauth/access_token', redirectTo(`${elsewhere.url}/steal`, 307));
    t.after(() => codehost.behave('/login/oauth/access_token', undefined));
    await assertUpstreamPage(await callbackOf(hosted, 'codehost'), /redirected the token endpoint elsewhere \(307\)/);
    assert.deepEqual(elsewhere.requests, []);
  });

  for (const [name, path, behaviour] of [
    ['a token endpoint that never answers', '/login/oauth/access_token', silent],
    ['a /user that never answers', '/api/user', silent],
    ['a /user that stops in the middle of its body', '/api/user', stalls],
  ] as const) {
    it(`answers 502 within the time limit for ${name}`, async (t) => {
      codehost.behave(path, behaviour);
      t.after(() => codehost.behave(path, undefined));
      await assertUpstreamPage(await callbackOf(slowHosted, 'codehost'), /did not answer .+ within 1000 ms/);
    });
  }

  it('signs in again once the code host behaves', async () => {
    const res = await callbackOf(hosted, 'codehost');
    assert.equal(res.status, 302, await res.clone().text());
    assert.match(res.headers.get('location')!, /^http:\/\/127\.0\.0\.1:40123\/callback\?code=/);
  });
});

describe('upstream surprises at sign-in through OpenID Connect', () => {
  interface Setup {
    oidc: FakeOidc;
    hosted: TestHosted;
    /** The same provider behind a server with a short time limit. */
    slowHosted: TestHosted;
  }

  /**
   * A provider and two servers for one describe block. The discovery document and the JWKS
   * are cached once read successfully (failures never are), so each block ends with its
   * successful sign-in. `warm` reads ahead what the short time limit should not have to wait
   * for on a busy machine: the discovery document, or both it and the JWKS.
   */
  function setUp(warm: 'nothing' | 'discovery' | 'discovery and JWKS'): Setup {
    const setup = {} as Setup;
    before(async () => {
      setup.oidc = await startFakeOidc();
      const config = { issuer: setup.oidc.issuer, clientId: setup.oidc.clientId, clientSecret: setup.oidc.clientSecret };
      setup.hosted = await startTestHosted({ oidc: config });
      setup.slowHosted = await startTestHosted({ oidc: config, signInTimeoutMs: SHORT_TIMEOUT_MS });
      if (warm === 'discovery') assert.equal((await startOf(setup.slowHosted)).status, 302);
      if (warm === 'discovery and JWKS') assert.equal((await callbackOf(setup.slowHosted, 'oidc')).status, 302);
    });
    after(async () => {
      await setup.hosted.close();
      await setup.slowHosted.close();
      await setup.oidc.close();
    });
    return setup;
  }

  /** Makes the provider answer `path` this way for the rest of the test. */
  function misbehave(t: TestContext, oidc: FakeOidc, path: string, behaviour: Behaviour): void {
    oidc.behave(path, behaviour);
    t.after(() => oidc.behave(path, undefined));
  }

  const startOf = (hosted: TestHosted) =>
    fetch(`${hosted.url}/api/v1/auth/oidc?${new URLSearchParams({ source: 'cli', callbackPort: '40123', code_challenge: pkce().challenge })}`, {
      redirect: 'manual',
    });

  const DISCOVERY = '/.well-known/openid-configuration';
  const discovery = (base: string, overrides: Record<string, unknown>) =>
    json({ issuer: base, authorization_endpoint: `${base}/authorize?tenant=t1`, token_endpoint: `${base}/token`, jwks_uri: `${base}/jwks`, ...overrides });

  describe('the discovery document, read when sign-in starts: a 502 upstream_unavailable before any redirect', () => {
    const setup = setUp('nothing');
    const cases: Array<[string, (base: string) => Behaviour, RegExp]> = [
      ['answering HTML', () => htmlPage, /answered the discovery document with text\/html/],
      ['that is not JSON', () => notJson, /discovery document is not valid JSON/],
      ['with fields of the wrong types', (base) => discovery(base, { jwks_uri: 7 }), /discovery document is not what Loom expects: \/jwks_uri/],
      ['without a token endpoint', (base) => discovery(base, { token_endpoint: undefined }), /discovery document is not what Loom expects/],
      ['with an endpoint that is not a URL', (base) => discovery(base, { authorization_endpoint: 'not a url' }), /no usable authorization_endpoint/],
      ['naming another issuer', () => discovery('https://evil.example', {}), /names the issuer https:\/\/evil\.example/],
      ['declaring 2 MB', () => hugeDeclared, /discovery document is larger than 256 KiB/],
      ['streaming without end', () => endless, /discovery document is larger than 256 KiB/],
      ['answering 404', () => json({ error: 'not_found' }, 404), /answered the discovery document with status 404/],
      ['redirecting', () => redirectTo('https://elsewhere.example/.well-known/openid-configuration'), /redirected the discovery document elsewhere/],
    ];
    for (const [name, behaviour, reason] of cases) {
      it(`refuses a discovery document ${name}`, async (t) => {
        misbehave(t, setup.oidc, DISCOVERY, behaviour(setup.oidc.issuer));
        const body = await assertError(await startOf(setup.hosted), 502, 'upstream_unavailable');
        assert.match(body.message as string, reason);
        assert.ok(!setup.oidc.requests.includes('GET /authorize'));
        // Another issuer is the operator's setting to correct: its key, the file, the environment variable.
        if (name === 'naming another issuer') assert.match(body.hint as string, /oidc\.issuer .*"oidc": \{"issuer": …\} in the config file.*LOOM_OIDC_ISSUER/);
      });
    }

    it('refuses a discovery document that does not answer in time', async (t) => {
      misbehave(t, setup.oidc, DISCOVERY, silent);
      const body = await assertError(await startOf(setup.slowHosted), 502, 'upstream_unavailable');
      assert.match(body.message as string, /did not answer the discovery document within 1000 ms/);
    });

    it('reads the document again after a failure, and signs in once it is fixed', async () => {
      const res = await callbackOf(setup.hosted, 'oidc');
      assert.equal(res.status, 302, await res.clone().text());
    });
  });

  describe('the JWKS, read at the callback: the error page, 502', () => {
    const setup = setUp('discovery');
    const unusableKey = { kty: 'RSA', kid: 'broken-key', alg: 'RS256', n: '!!not a modulus!!', e: 'AQAB' };
    const cases: Array<[string, Behaviour, RegExp]> = [
      ['answering HTML', htmlPage, /answered the JWKS with text\/html/],
      ['whose keys are not a list', json({ keys: 'none' }), /answer to the JWKS is not what Loom expects: \/keys/],
      ['holding only a key that cannot be used', json({ keys: [unusableKey] }), /JWKS holds no key Loom can use/],
      ['of 2 MB', hugeDeclared, /answer to the JWKS is larger than 512 KiB/],
    ];
    for (const [name, behaviour, reason] of cases) {
      it(`refuses a JWKS ${name}`, async (t) => {
        misbehave(t, setup.oidc, '/jwks', behaviour);
        await assertUpstreamPage(await callbackOf(setup.hosted, 'oidc'), reason);
      });
    }

    it('answers 502 within the time limit for a JWKS that never answers', async (t) => {
      misbehave(t, setup.oidc, '/jwks', silent);
      await assertUpstreamPage(await callbackOf(setup.slowHosted, 'oidc'), /did not answer the JWKS within 1000 ms/);
    });

    it('uses the good key of a JWKS that also holds one it cannot use', async (t) => {
      const good = await (await fetch(`${setup.oidc.issuer}/jwks`)).json();
      misbehave(t, setup.oidc, '/jwks', json({ keys: [unusableKey, ...good.keys] }));
      const res = await callbackOf(setup.hosted, 'oidc');
      assert.equal(res.status, 302, await res.clone().text());
    });
  });

  describe('the token endpoint and UserInfo, read at the callback: the error page, 502', () => {
    const setup = setUp('discovery and JWKS');

    const cases: Array<[string, string, Behaviour, RegExp]> = [
      ['a token endpoint answering HTML', '/token', htmlPage, /answered the token endpoint with text\/html, not JSON/],
      ['a token endpoint answering 500', '/token', json({ error: 'server_error' }, 500), /answered the token endpoint with status 500/],
      [
        'a token endpoint whose id_token is not a string',
        '/token',
        json({ access_token: 'a', id_token: 5 }),
        /answer to the token endpoint is not what Loom expects: \/id_token/,
      ],
      ['a token endpoint answering without an ID token', '/token', json({ access_token: 'a', token_type: 'Bearer' }), /without an ID token/],
      ['a token endpoint that redirects', '/token', redirectTo('https://elsewhere.example/token', 307), /redirected the token endpoint elsewhere \(307\)/],
      ['a UserInfo endpoint answering HTML', '/userinfo', htmlPage, /answered the UserInfo endpoint with text\/html, not JSON/],
      [
        'a UserInfo endpoint answering a signed JWT',
        '/userinfo',
        answer(200, 'application/jwt', 'eyJhbGciOiJub25lIn0.e30.'),
        /answered the UserInfo endpoint with application\/jwt, not JSON/,
      ],
      [
        'UserInfo claims of the wrong types',
        '/userinfo',
        json({ sub: 'oidc-42', email: 5, email_verified: {} }),
        /answer to the UserInfo endpoint is not what Loom expects: \/email/,
      ],
      ['a UserInfo endpoint of 2 MB', '/userinfo', hugeDeclared, /answer to the UserInfo endpoint is larger than 256 KiB/],
      ['a UserInfo endpoint that redirects', '/userinfo', redirectTo('https://elsewhere.example/userinfo'), /redirected the UserInfo endpoint elsewhere/],
    ];
    for (const [name, path, behaviour, reason] of cases) {
      it(`refuses ${name}`, async (t) => {
        misbehave(t, setup.oidc, path, behaviour);
        await assertUpstreamPage(await callbackOf(setup.hosted, 'oidc'), reason);
      });
    }

    for (const [name, path, behaviour] of [
      ['a token endpoint that never answers', '/token', silent],
      ['a UserInfo endpoint that stops in the middle of its body', '/userinfo', stalls],
    ] as const) {
      it(`answers 502 within the time limit for ${name}`, async (t) => {
        misbehave(t, setup.oidc, path, behaviour);
        await assertUpstreamPage(await callbackOf(setup.slowHosted, 'oidc'), /did not answer .+ within 1000 ms/);
      });
    }

    it('signs in again once the provider behaves', async () => {
      const res = await callbackOf(setup.hosted, 'oidc');
      assert.equal(res.status, 302, await res.clone().text());
    });
  });
});
