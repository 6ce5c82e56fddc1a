// Clients that register themselves (RFC 7591, POST /auth/register), as MCP clients sign in
// without an operator: public clients only, with https or loopback redirects; and the consent
// page that stands between such a client and a signed-in user's code, since anyone may register
// one with a redirect URI of their own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClientRecord } from '../../../src/core/identity/records.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { consentFields } from '../../support/mcp.ts';
import {
  assertError,
  assertErrorPage,
  authorize,
  authorizeParams,
  FORM,
  pkce,
  redeem,
  registerClient,
  signedInUser,
  tokenRequest,
} from '../../support/oauth.ts';

interface Registered {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  scope: string;
  client_secret?: string;
}

describe('dynamic client registration and consent', () => {
  let hosted: TestHosted;
  let cookie: string;
  before(async () => {
    hosted = await startTestHosted();
    ({ cookie } = await signedInUser(hosted));
  });
  after(() => hosted.close());

  const register = (metadata: unknown, contentType = 'application/json') =>
    fetch(`${hosted.url}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: typeof metadata === 'string' ? metadata : JSON.stringify(metadata),
    });
  const registered = async (metadata: unknown): Promise<Registered> => {
    const res = await register(metadata);
    assert.equal(res.status, 201, await res.clone().text());
    assert.equal(res.headers.get('cache-control'), 'no-store');
    return (await res.json()) as Registered;
  };
  const recordOf = async (body: Registered) => (await hosted.identity.clients.get(body.client_id))!;

  describe('POST /auth/register', () => {
    it('registers a public client of its loopback and https redirect URIs', async () => {
      const body = await registered({
        client_name: 'Visual Studio Code',
        redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect', 'http://localhost:6274/oauth/callback', 'http://[::1]:9000/cb'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      assert.equal(body.client_name, 'Visual Studio Code');
      assert.deepEqual(body.redirect_uris, [
        'http://127.0.0.1:33418/',
        'https://vscode.dev/redirect',
        'http://localhost:6274/oauth/callback',
        'http://[::1]:9000/cb',
      ]);
      assert.deepEqual(body.grant_types, ['authorization_code', 'refresh_token']);
      assert.deepEqual(body.response_types, ['code']);
      assert.equal(body.token_endpoint_auth_method, 'none');
      assert.equal(body.client_secret, undefined);
      assert.ok(Number.isInteger(body.client_id_issued_at));
      const record = await recordOf(body);
      assert.equal(record.type, 'public');
      assert.equal(record.registration, 'dynamic');
      assert.equal(record.secretHash, null);
    });

    it('makes a public client whatever authentication method it asks for: a client that registers itself keeps no secret', async () => {
      const body = await registered({ redirect_uris: ['https://app.example.com/cb'], token_endpoint_auth_method: 'client_secret_basic' });
      assert.equal(body.token_endpoint_auth_method, 'none');
      assert.equal(body.client_secret, undefined);
      assert.equal(body.client_name, 'MCP client');
      const res = await tokenRequest(hosted, { grant_type: 'client_credentials', client_id: body.client_id });
      await assertError(res, 400, 'unauthorized_client');
    });

    it("keeps the redirect URIs it takes and leaves out the others (Cursor's three)", async () => {
      const body = await registered({
        client_name: 'Cursor',
        redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback', 'https://www.cursor.com/agents/mcp/oauth/callback', 'http://localhost:8787/callback'],
      });
      assert.deepEqual(body.redirect_uris, ['https://www.cursor.com/agents/mcp/oauth/callback', 'http://localhost:8787/callback']);
    });

    const refusedUris: [string, unknown][] = [
      ['no redirect_uris', undefined],
      ['an empty list', []],
      ['a string instead of a list', 'https://app.example.com/cb'],
      ['a number in the list', [42]],
      ['http on a public host', ['http://app.example.com/cb']],
      ['http on a private address', ['http://192.168.1.2/cb']],
      ['a private-use scheme', ['com.example.app:/cb']],
      ['a custom scheme', ['cursor://anysphere.cursor-mcp/oauth/callback']],
      ['a fragment', ['https://app.example.com/cb#x']],
      ['an empty fragment', ['https://app.example.com/cb#']],
      ['user info', ['https://user@app.example.com/cb']],
      ['javascript:', ['javascript:alert(1)']],
      ['not a URL', ['app.example.com/cb']],
      ['a URL too long', [`https://app.example.com/${'a'.repeat(2100)}`]],
      ['eleven URIs', Array.from({ length: 11 }, (_, i) => `https://app.example.com/${i}`)],
    ];
    for (const [what, uris] of refusedUris) {
      it(`refuses ${what} with invalid_redirect_uri`, async () => {
        await assertError(await register({ client_name: 'x', redirect_uris: uris }), 400, 'invalid_redirect_uri');
      });
    }

    // Text a URL parser forgives, and a registration must not keep: each is refused even beside a
    // good URI, and nothing is registered.
    const notAsWritten: [string, string][] = [
      ['a newline at its end', 'https://app.example.com/cb\n'],
      ['CR LF at its end', 'https://app.example.com/cb\r\n'],
      ['a newline inside', 'https://app.example.com/c\nb'],
      ['a tab inside', 'http://127.0.0.1:8080/c\tb'],
      ['a leading space', ' https://app.example.com/cb'],
      ['a trailing space', 'https://app.example.com/cb '],
      ['NUL', 'https://app.example.com/cb\u0000'],
      ['a C1 control', 'https://app.example.com/cb\u0085'],
      ['no authority as written (https:/x)', 'https:/app.example.com/cb'],
      ['no slashes at all (https:x)', 'https:app.example.com/cb'],
      ['backslashes for slashes', 'https:\\\\app.example.com\\cb'],
      ['an upper-case scheme and host', 'HTTPS://App.Example.com/cb'],
      ['a space in the path', 'https://app.example.com/my cb'],
      ['a default port written out', 'https://app.example.com:443/cb'],
      ['dot segments', 'https://app.example.com/a/../cb'],
    ];
    for (const [what, uri] of notAsWritten) {
      it(`refuses ${what} with invalid_redirect_uri, even beside a good URI, registering nothing`, async () => {
        const before = (await hosted.identity.clients.list()).length;
        const res = await register({ client_name: 'x', redirect_uris: ['https://good.example.com/cb', uri] });
        await assertError(res, 400, 'invalid_redirect_uri');
        assert.equal((await hosted.identity.clients.list()).length, before);
      });
    }

    it('takes a URI as its serialization writes it, and an origin without its last slash', async () => {
      const uris = ['https://app.example.com/cb?x=1', 'http://[::1]:8080/callback', 'http://localhost:3000/cb', 'https://app.example.com'];
      assert.deepEqual((await registered({ redirect_uris: uris })).redirect_uris, uris);
    });

    const refusedMetadata: [string, unknown][] = [
      ['grant types without authorization_code', { grant_types: ['client_credentials'] }],
      ['response types without code', { response_types: ['token'] }],
      ['an empty name', { client_name: ' ' }],
      ['a name too long', { client_name: 'n'.repeat(101) }],
      ['a name that is not text', { client_name: { en: 'x' } }],
    ];
    for (const [what, metadata] of refusedMetadata) {
      it(`refuses ${what} with invalid_client_metadata`, async () => {
        await assertError(await register({ redirect_uris: ['https://app.example.com/cb'], ...(metadata as object) }), 400, 'invalid_client_metadata');
      });
    }

    it('refuses what is not a JSON object with a 4xx, never a 5xx', async () => {
      await assertError(await register('[1,2]'), 400, 'invalid_client_metadata');
      await assertError(await register('null'), 400, 'invalid_client_metadata');
      await assertError(await register('{"redirect_uris":'), 400, 'invalid_json');
      await assertError(await register('redirect_uris=x', FORM), 415, 'unsupported_media_type');
      await assertError(await register('x', 'text/plain'), 415, 'unsupported_media_type');
    });

    it('is counted by the rate limit like any request', async (t) => {
      const limited = await startTestHosted({ rateLimit: { max: 2, windowSeconds: 60 } });
      t.after(() => limited.close());
      const once = () =>
        fetch(`${limited.url}/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: ['https://a.example/cb'] }),
        });
      assert.equal((await once()).status, 201);
      assert.equal((await once()).status, 201);
      await assertError(await once(), 429, 'rate_limited');
    });
  });

  describe('redirect URIs of a client that registered itself', () => {
    let client: ClientRecord;
    before(async () => {
      client = await recordOf(await registered({ redirect_uris: ['http://localhost:8787/callback', 'https://app.example.com/cb'] }));
    });

    const consentOrCode = async (redirectUri: string) =>
      (await authorize(hosted, authorizeParams(client, pkce().challenge, { redirect_uri: redirectUri }), cookie)).status;

    it('takes its loopback redirect on any port, as RFC 8252 §7.3 asks', async () => {
      assert.equal(await consentOrCode('http://localhost:8787/callback'), 200);
      assert.equal(await consentOrCode('http://localhost:50123/callback'), 200);
    });

    it('but never another loopback name, path or host', async () => {
      for (const uri of [
        'http://127.0.0.1:8787/callback',
        'http://localhost:8787/other',
        'https://localhost:8787/callback',
        'https://app.example.com/cb/x',
        'https://evil.example.com/cb',
      ]) {
        await assertErrorPage(await authorize(hosted, authorizeParams(client, pkce().challenge, { redirect_uri: uri }), cookie));
      }
    });
  });

  describe('the consent page', () => {
    let client: ClientRecord;
    before(async () => {
      client = await recordOf(await registered({ client_name: '<script>alert(1)</script> Helper', redirect_uris: ['http://localhost:8787/callback'] }));
    });

    /** The consent page for a fresh request of `client`, and its form's fields. */
    const consent = async (overrides: Record<string, string> = {}) => {
      const { verifier, challenge } = pkce();
      const res = await authorize(hosted, authorizeParams(client, challenge, { scope: 'read:tab', ...overrides }), cookie);
      const page = await res.text();
      assert.equal(res.status, 200, page);
      return { res, page, fields: consentFields(page), verifier };
    };
    const answer = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${hosted.url}/auth/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': FORM, cookie, origin: hosted.url, 'sec-fetch-site': 'same-origin', ...headers },
        body: new URLSearchParams(fields).toString(),
      });

    it('stands between a client that registered itself and the code, naming the client, the user, the resource and the permissions', async () => {
      const { res, page } = await consent({ resource: `${hosted.url}/mcp` });
      assert.equal(res.headers.get('location'), null, 'no code without an answer');
      assert.match(page, /&lt;script&gt;alert\(1\)&lt;\/script&gt; Helper/);
      assert.doesNotMatch(page, /<script>alert/);
      assert.match(page, /registered itself/);
      assert.match(page, new RegExp(`${hosted.url}/mcp`));
      assert.match(page, /read:tab<\/code>: tab completion/);
      assert.match(page, /an app on your computer \(localhost:8787\)/);
    });

    it('cannot be framed, and lets its form go on to the client only', async () => {
      const { res } = await consent();
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /frame-ancestors 'none'/);
      assert.match(csp, /form-action 'self' http:\/\/localhost:8787(;|$)/);
    });

    it("is not shown for an operator's client: the code comes at once", async () => {
      const { client: operators } = await registerClient(hosted);
      const res = await authorize(hosted, authorizeParams(operators, pkce().challenge), cookie);
      assert.equal(res.status, 302);
      assert.ok(new URL(res.headers.get('location')!).searchParams.get('code'));
    });

    it('gives the code once allowed, bound to PKCE and the request as ever', async () => {
      const { fields, verifier } = await consent();
      const res = await answer({ ...fields, decision: 'approve' });
      assert.equal(res.status, 302);
      const location = new URL(res.headers.get('location')!);
      assert.equal(location.searchParams.get('state'), fields.state);
      const tokens = await redeem(hosted, client, { code: location.searchParams.get('code')!, verifier, redirectUri: fields.redirect_uri! });
      assert.equal(tokens.scope, 'read:tab');
    });

    it('sends access_denied to the client when refused', async () => {
      const { fields } = await consent();
      const res = await answer({ ...fields, decision: 'deny' });
      const location = new URL(res.headers.get('location')!);
      assert.equal(location.searchParams.get('error'), 'access_denied');
      assert.equal(location.searchParams.get('code'), null);
    });

    it('refuses an answer without the CSRF token, or with a wrong one', async () => {
      const { fields } = await consent();
      const { csrf_token: _csrf, ...rest } = fields;
      await assertErrorPage(await answer({ ...rest, decision: 'approve' }), 403);
      await assertErrorPage(await answer({ ...fields, csrf_token: 'A'.repeat(32), decision: 'approve' }), 403);
    });

    it('refuses an answer from another origin or site', async () => {
      const { fields } = await consent();
      await assertErrorPage(await answer({ ...fields, decision: 'approve' }, { origin: 'https://evil.example.com' }), 403);
      await assertErrorPage(await answer({ ...fields, decision: 'approve' }, { 'sec-fetch-site': 'cross-site' }), 403);
    });

    it('checks the request again: an answer that changes the redirect URI gets the error page', async () => {
      const { fields } = await consent();
      await assertErrorPage(await answer({ ...fields, redirect_uri: 'https://evil.example.com/cb', decision: 'approve' }));
      await assertErrorPage(await answer({ ...fields, redirect_uri: 'https://evil.example.com/cb', decision: 'deny' }));
    });

    it('asks a signed-out browser to start again', async () => {
      const { fields } = await consent();
      await assertErrorPage(await answer({ ...fields, decision: 'approve' }, { cookie: '' }), 401);
    });

    it('takes a form only', async () => {
      const res = await fetch(`${hosted.url}/auth/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie, origin: hosted.url },
        body: '{}',
      });
      await assertErrorPage(res, 400);
    });

    it('is not needed to refuse a bad request: those never reach it', async () => {
      const res = await authorize(hosted, authorizeParams(client, pkce().challenge, { scope: 'nope' }), cookie);
      assert.equal(new URL(res.headers.get('location')!).searchParams.get('error'), 'invalid_scope');
    });
  });
});
