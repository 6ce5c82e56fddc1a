// docs/security.md, "Sign-in and tokens": the authorization response carries `iss` (RFC 9207); authorization
// server metadata (RFC 8414) and protected resource metadata (RFC 9728, with scopes_supported).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import type { ClientRecord } from '../../../src/core/identity/records.ts';
import { startFakeCodeHost } from '../../support/codehost.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { startFakeOidc } from '../../support/oidc.ts';
import {
  assertErrorPage,
  authorize,
  authorizeParams,
  getCode,
  INTERFACE_SCOPES,
  pkce,
  registerClient,
  signedInUser,
  signInWithCode,
} from '../../support/oauth.ts';

describe('discovery metadata and iss', () => {
  let hosted: TestHosted;
  let client: ClientRecord;
  let cookie: string;
  before(async () => {
    hosted = await startTestHosted();
    ({ client } = await registerClient(hosted));
    ({ cookie } = await signedInUser(hosted));
  });
  after(() => hosted.close());

  const json = async (path: string) => {
    const res = await fetch(`${hosted.url}${path}`);
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    return res.json();
  };

  describe('authorization server metadata (RFC 8414)', () => {
    it('is served at /.well-known/oauth-authorization-server and the same at .json', async () => {
      const metadata = await json('/.well-known/oauth-authorization-server');
      assert.deepEqual(await json('/.well-known/oauth-authorization-server.json'), metadata);
    });

    it('names this server as issuer and its endpoints under it', async () => {
      const metadata = await json('/.well-known/oauth-authorization-server');
      assert.equal(metadata.issuer, hosted.url, 'issuer is the URL the metadata was fetched from');
      assert.equal(metadata.authorization_endpoint, `${hosted.url}/auth/authorize`);
      assert.equal(metadata.token_endpoint, `${hosted.url}/auth/token`);
      assert.equal(metadata.jwks_uri, `${hosted.url}/.well-known/jwks.json`);
    });

    it('announces S256 only, code only, no implicit or password grant, and the iss parameter', async () => {
      const metadata = await json('/.well-known/oauth-authorization-server');
      assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
      assert.deepEqual(metadata.response_types_supported, ['code']);
      assert.deepEqual([...metadata.grant_types_supported].sort(), ['authorization_code', 'client_credentials', 'refresh_token']);
      for (const forbidden of ['implicit', 'password', 'token']) assert.ok(!metadata.grant_types_supported.includes(forbidden), forbidden);
      assert.equal(metadata.authorization_response_iss_parameter_supported, true);
      assert.deepEqual([...metadata.token_endpoint_auth_methods_supported].sort(), ['client_secret_basic', 'client_secret_post', 'none']);
      assert.deepEqual([...metadata.scopes_supported].sort(), [...INTERFACE_SCOPES].sort());
    });

    it('lists endpoints that are really there', async () => {
      const metadata = await json('/.well-known/oauth-authorization-server');
      await assertErrorPage(await fetch(metadata.authorization_endpoint, { redirect: 'manual' }));
      const token = await fetch(metadata.token_endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
      assert.equal(token.status, 400);
      const jwks = await (await fetch(metadata.jwks_uri)).json();
      assert.ok(jwks.keys.length >= 1);
    });

    it('is the issuer named by tokens and by the protected resource', async () => {
      const metadata = await json('/.well-known/oauth-authorization-server');
      const resource = await json('/.well-known/oauth-protected-resource');
      assert.deepEqual(resource.authorization_servers, [metadata.issuer]);
      const tokens = await signInWithCode(hosted, client, 'read:models', cookie);
      assert.equal(decodeJwt(tokens.access_token).iss, metadata.issuer);
    });

    it('lists the sign-in providers it has in loom_sign_in_providers (none here)', async () => {
      assert.deepEqual((await json('/.well-known/oauth-authorization-server')).loom_sign_in_providers, []);
    });

    it('lists the code host first, then OpenID Connect, when both are configured', async (t) => {
      const codehost = await startFakeCodeHost();
      const oidc = await startFakeOidc();
      const both = await startTestHosted({
        codehost: { url: codehost.url, apiUrl: codehost.apiUrl },
        oidc: { issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret },
      });
      t.after(async () => {
        await both.close();
        await codehost.close();
        await oidc.close();
      });
      for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        assert.deepEqual((await (await fetch(`${both.url}${path}`)).json()).loom_sign_in_providers, ['codehost', 'oidc'], path);
      }
    });
  });

  describe('protected resource metadata (RFC 9728)', () => {
    it('names the resource, its authorization server and all nine scopes of docs/auth.md', async () => {
      const metadata = await json('/.well-known/oauth-protected-resource');
      assert.equal(metadata.resource, hosted.url, 'resource is the URL the metadata was derived from');
      assert.deepEqual(metadata.authorization_servers, [hosted.url]);
      assert.deepEqual([...metadata.scopes_supported].sort(), [...INTERFACE_SCOPES].sort());
      assert.equal(metadata.scopes_supported.length, 9);
    });

    it('accepts bearer tokens in the header only', async () => {
      const metadata = await json('/.well-known/oauth-protected-resource');
      assert.deepEqual(metadata.bearer_methods_supported, ['header']);
    });

    it('is the document WWW-Authenticate points at', async () => {
      const res = await fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: 'Bearer nope' } });
      assert.equal(res.status, 401);
      const pointer = /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1];
      assert.equal(pointer, `${hosted.url}/.well-known/oauth-protected-resource`);
      assert.equal((await json(new URL(pointer!).pathname)).resource, hosted.url);
    });
  });

  describe('iss in the authorization response (RFC 9207)', () => {
    it('comes with the code', async () => {
      const { location } = await getCode(hosted, client, cookie, { state: 's1' });
      assert.equal(location.searchParams.get('iss'), hosted.url);
      assert.equal(location.searchParams.get('state'), 's1');
    });

    it('comes with an error', async () => {
      const res = await authorize(hosted, authorizeParams(client, pkce().challenge, { scope: 'no:such:scope', state: 's2' }), cookie);
      assert.equal(res.status, 302);
      const location = new URL(res.headers.get('location')!);
      assert.equal(location.searchParams.get('error'), 'invalid_scope');
      assert.equal(location.searchParams.get('iss'), hosted.url);
      assert.equal(location.searchParams.get('state'), 's2');
    });
  });

  describe('with a separate authorization server URL', () => {
    it('uses it as issuer everywhere: metadata, tokens and the iss parameter', async () => {
      const separate = await startTestHosted({ authUrl: 'https://auth.example.com' });
      try {
        const metadata = await (await fetch(`${separate.url}/.well-known/oauth-authorization-server`)).json();
        assert.equal(metadata.issuer, 'https://auth.example.com');
        assert.equal(metadata.token_endpoint, 'https://auth.example.com/auth/token');
        const resource = await (await fetch(`${separate.url}/.well-known/oauth-protected-resource`)).json();
        assert.deepEqual(resource.authorization_servers, ['https://auth.example.com']);
        assert.equal(resource.resource, separate.url);
        const { client: c } = await registerClient(separate);
        const { cookie: k } = await signedInUser(separate);
        const { location } = await getCode(separate, c, k);
        assert.equal(location.searchParams.get('iss'), 'https://auth.example.com');
        const tokens = await signInWithCode(separate, c, 'read:models', k);
        const claims = decodeJwt(tokens.access_token);
        assert.equal(claims.iss, 'https://auth.example.com');
        assert.equal(claims.aud, separate.url);
        assert.equal((await fetch(`${separate.url}/api/v1/models`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status, 200);
      } finally {
        await separate.close();
      }
    });
  });
});
