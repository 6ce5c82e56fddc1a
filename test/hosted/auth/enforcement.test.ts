// docs/security.md, "Sign-in and tokens", and docs/auth.md, "Who may call what": no implicit
// grant, no password grant, no bearer token in a query string; 401 with WWW-Authenticate and
// resource_metadata; a valid credential an open operation does not take served as anonymous;
// 403 insufficient_scope naming the scope where credentials are needed; what each operation accepts;
// client_credentials for confidential clients only, with its four scopes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseCatalog } from '../../../src/core/catalog/load.ts';
import { LoomError } from '../../../src/core/errors.ts';
import type { ClientRecord, UserRecord } from '../../../src/core/identity/records.ts';
import { randomToken } from '../../../src/core/identity/secrets.ts';
import { post, startTestHosted, type TestHosted } from '../../support/hosted.ts';
import {
  assertError,
  authorize,
  authorizeParams,
  basicAuth,
  bearer,
  bearerChallenge,
  CLIENT_CREDENTIALS_ONLY,
  FORM,
  getWith,
  pkce,
  registerClient,
  signedInUser,
  signInWithCode,
  tokenRequest,
  type Tokens,
} from '../../support/oauth.ts';
import { respond, startUpstream, type Upstream } from '../../support/upstream.ts';

const RESOURCE_METADATA = (hosted: TestHosted) => `${hosted.url}/.well-known/oauth-protected-resource`;

describe('enforcement', () => {
  let hosted: TestHosted;
  let upstream: Upstream;
  let client: ClientRecord;
  let user: UserRecord;
  let cookie: string;
  /** Access tokens by the scope they carry. */
  const tokenFor: Record<string, string> = {};
  let apiKey: string;
  let service: ClientRecord;
  let serviceSecret: string;

  before(async () => {
    upstream = await startUpstream();
    upstream.behave('/releases/ide-linux', respond(200));
    const catalog = parseCatalog({
      products: [
        {
          id: 'ide',
          name: 'Loom Editor',
          version: '1.0.0',
          assets: [{ key: 'linux-x64', name: 'Linux', platform: 'linux', url: `${upstream.url}/releases/ide-linux`, size: 1, sha256: 'a'.repeat(64) }],
        },
      ],
      models: [{ name: 'Tiny', provider: 'Test', params: '1B', url: 'https://example.com/tiny', description: 'A model.' }],
    });
    hosted = await startTestHosted({ catalog, upstream: { timeoutMs: 1000, cacheSeconds: 0 } });
    ({ client } = await registerClient(hosted));
    const session = await signedInUser(hosted, 'lin@example.com');
    user = session.user;
    cookie = session.cookie;
    for (const scope of ['read:downloads', 'read:models', 'write:feedback', 'openid', 'read:health']) {
      tokenFor[scope] = (await signInWithCode(hosted, client, scope, cookie)).access_token;
    }
    apiKey = (await hosted.identity.apiKeys.create(user.id, { name: 'ci', expiresInDays: 30 })).key;
    const registered = await registerClient(hosted, { type: 'confidential', grantTypes: ['client_credentials'], redirectUris: [] });
    service = registered.client;
    serviceSecret = registered.clientSecret!;
  });
  after(async () => {
    await hosted.close();
    await upstream.close();
  });

  describe('no implicit grant', () => {
    for (const responseType of ['token', 'id_token token', 'code token', 'code id_token', 'TOKEN', 'Code']) {
      it(`response_type=${responseType} is redirected back as unsupported_response_type, with state and iss`, async () => {
        const res = await authorize(hosted, authorizeParams(client, pkce().challenge, { response_type: responseType, state: 'imp' }), cookie);
        assert.equal(res.status, 302);
        const location = new URL(res.headers.get('location')!);
        assert.equal(`${location.origin}${location.pathname}`, client.redirectUris[0]);
        assert.equal(location.searchParams.get('error'), 'unsupported_response_type');
        assert.equal(location.searchParams.get('state'), 'imp');
        assert.equal(location.searchParams.get('iss'), hosted.url);
        assert.equal(location.searchParams.get('access_token'), null);
        assert.equal(location.hash, '', 'nothing in a fragment');
        assert.equal(location.searchParams.get('code'), null);
      });
    }

    it('without a response_type, no code either', async () => {
      const res = await authorize(hosted, authorizeParams(client, pkce().challenge, { response_type: undefined }), cookie);
      assert.equal(res.status, 302);
      const location = new URL(res.headers.get('location')!);
      assert.ok(location.searchParams.get('error'));
      assert.equal(location.searchParams.get('code'), null);
    });
  });

  describe('no password grant', () => {
    const refused = ['password', 'implicit', 'urn:ietf:params:oauth:grant-type:jwt-bearer', 'urn:ietf:params:oauth:grant-type:device_code', 'token', ''];
    for (const grantType of refused) {
      it(`grant_type=${JSON.stringify(grantType)} is a 400 in the Error shape, with no token`, async () => {
        const res = await tokenRequest(hosted, { grant_type: grantType, username: 'lin', password: 'hunter2', client_id: client.clientId });
        const body = await assertError(res, 400, ['validation_error', 'unsupported_grant_type']);
        assert.equal(body.access_token, undefined);
      });
    }

    it('grant_type=password without extra fields is refused too, even for a confidential client', async () => {
      const res = await tokenRequest(hosted, { grant_type: 'password' }, { clientId: service.clientId, secret: serviceSecret });
      await assertError(res, 400, ['validation_error', 'unsupported_grant_type']);
    });

    it('a client may not use a grant it was not registered for (unauthorized_client)', async () => {
      const res = await tokenRequest(
        hosted,
        { grant_type: 'refresh_token', refresh_token: randomToken(32) },
        { clientId: service.clientId, secret: serviceSecret },
      );
      await assertError(res, 400, 'unauthorized_client');
    });
  });

  describe('no bearer token in the query string', () => {
    for (const path of ['/api/v1/download', '/api/v1/models', '/api/v1/download/ide/linux-x64', '/api/models', '/docs/api/v1/download', '/api/v1/health']) {
      it(`GET ${path}?access_token=<a valid token> is 400 invalid_request`, async () => {
        const token = tokenFor['read:models']!;
        await assertError(await fetch(`${hosted.url}${path}?access_token=${encodeURIComponent(token)}`), 400, 'invalid_request');
      });
    }

    it('POST /api/v1/feedback?access_token=… is 400 invalid_request, and nothing is stored', async () => {
      const before = (await hosted.store.feedback.list({ limit: 1000 })).length;
      const res = await post(`${hosted.url}/api/v1/feedback?access_token=${tokenFor['write:feedback']}`, { name: 'a', subject: 'b', message: 'c' });
      await assertError(res, 400, 'invalid_request');
      assert.equal((await hosted.store.feedback.list({ limit: 1000 })).length, before);
    });

    it('refuses it next to a header token, and with an empty value', async () => {
      const token = tokenFor['read:models']!;
      await assertError(await fetch(`${hosted.url}/api/v1/models?access_token=${token}`, { headers: bearer(token) }), 400, 'invalid_request');
      await assertError(await fetch(`${hosted.url}/api/v1/models?access_token=`), 400, 'invalid_request');
    });
  });

  describe('401 and WWW-Authenticate', () => {
    const malformed: [string, string][] = [
      ['a malformed token', 'Bearer not-a-jwt'],
      ['an empty bearer', 'Bearer '],
      ['two tokens', 'Bearer a b'],
      ['another scheme', 'Basic dXNlcjpwYXNz'],
      ['a token without scheme', 'eyJhbGciOiJFUzI1NiJ9.e30.sig'],
    ];
    for (const [name, header] of malformed) {
      it(`${name} on GET /api/v1/download gets 401 with a Bearer challenge naming resource_metadata`, async () => {
        const res = await fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: header } });
        const body = await assertError(res, 401, 'invalid_token');
        const challenge = bearerChallenge(res);
        assert.equal(challenge.resource_metadata, RESOURCE_METADATA(hosted));
        assert.ok(['invalid_token', 'invalid_request'].includes(challenge.error!), challenge.error);
        assert.equal(typeof body.message, 'string');
      });
    }

    it('a revoked API key gets 401 invalid_token with the challenge, at once', async () => {
      const { key, record } = await hosted.identity.apiKeys.create(user.id, { name: 'short-lived', expiresInDays: 1 });
      assert.equal((await getWith(hosted, '/api/v1/download', key)).status, 200);
      await hosted.identity.apiKeys.revoke(user.id, record.id);
      const res = await getWith(hosted, '/api/v1/download', key);
      await assertError(res, 401, 'invalid_token');
      assert.equal(bearerChallenge(res).resource_metadata, RESOURCE_METADATA(hosted));
    });
  });

  describe('a valid credential an operation open to anyone does not take', () => {
    const cases: [string, string, () => Promise<Response>][] = [
      ['GET /api/v1/models', 'read:downloads', () => getWith(hosted, '/api/v1/models', tokenFor['read:downloads'])],
      ['GET /api/v1/download', 'read:models', () => getWith(hosted, '/api/v1/download', tokenFor['read:models'])],
      ['GET /api/v1/download/ide/linux-x64', 'openid', () => getWith(hosted, '/api/v1/download/ide/linux-x64', tokenFor.openid)],
      ['GET /api/v1/models', 'an API key', () => getWith(hosted, '/api/v1/models', apiKey)],
      ['GET /api/v1/download/ide/linux-x64', 'an API key', () => getWith(hosted, '/api/v1/download/ide/linux-x64', apiKey)],
    ];
    for (const [operation, held, call] of cases) {
      it(`${operation} with ${held} is answered as without credentials (200, no challenge)`, async () => {
        const res = await call();
        assert.equal(res.status, 200, await res.clone().text());
        assert.equal(res.headers.get('www-authenticate'), null);
      });
    }

    const feedback = (body: Record<string, unknown>, token: string) => post(`${hosted.url}/api/v1/feedback`, body, 'application/json', bearer(token));
    for (const [held, token] of [
      ['an API key', () => apiKey],
      ['a token without write:feedback', () => tokenFor['read:health']!],
    ] as const) {
      it(`POST /api/v1/feedback with ${held} is anonymous feedback: the email it gives is stored, and without one it is a 400`, async () => {
        await assertError(await feedback({ name: 'a', subject: 'b', message: 'c' }, token()), 400, 'validation_error');
        const res = await feedback({ name: 'a', email: 'given@example.com', subject: 'b', message: 'anonymous' }, token());
        assert.equal(res.status, 201, await res.clone().text());
        const { id } = await res.json();
        const stored = (await hosted.store.feedback.list({ limit: 1000 })).find((f) => f.id === id);
        assert.equal(stored?.email, 'given@example.com');
      });
    }

    it('is still checked: a revoked API key is a 401 there too', async () => {
      const revoked = await hosted.identity.apiKeys.create(user.id, { name: 'gone', expiresInDays: 30 });
      await hosted.identity.apiKeys.revoke(user.id, revoked.record.id);
      for (const path of ['/api/v1/models', '/api/v1/download/ide/linux-x64'])
        await assertError(await getWith(hosted, path, revoked.key), 401, 'invalid_token');
    });
  });

  describe('403 insufficient_scope where credentials are needed', () => {
    it('POST /api/v1/tab/complete with an API key without read:tab is 403 too (a key is judged by its scopes)', async () => {
      const narrow = await hosted.identity.apiKeys.create(user.id, { name: 'narrow', expiresInDays: 1, scopes: ['read:downloads'] });
      const res = await post(
        `${hosted.url}/api/v1/tab/complete`,
        { language: 'typescript', prefix: 'const a = ', suffix: '' },
        'application/json',
        bearer(narrow.key),
      );
      await assertError(res, 403, 'insufficient_scope');
    });

    it('POST /api/v1/tab/complete with only read:models is 403 naming read:tab (message and WWW-Authenticate)', async () => {
      const res = await post(
        `${hosted.url}/api/v1/tab/complete`,
        { language: 'typescript', prefix: 'const a = ', suffix: '' },
        'application/json',
        bearer(tokenFor['read:models']!),
      );
      const body = await assertError(res, 403, 'insufficient_scope');
      assert.match(String(body.message), /read:tab/);
      const challenge = bearerChallenge(res);
      assert.equal(challenge.error, 'insufficient_scope');
      assert.equal(challenge.scope, 'read:tab');
      assert.equal(challenge.resource_metadata, RESOURCE_METADATA(hosted));
    });
  });

  describe('per operation', () => {
    const feedback = (body: Record<string, unknown>, token?: string) =>
      post(`${hosted.url}/api/v1/feedback`, body, 'application/json', token ? bearer(token) : {});

    it('listDownloads accepts read:downloads, an API key, or nothing', async () => {
      assert.equal((await getWith(hosted, '/api/v1/download')).status, 200);
      assert.equal((await getWith(hosted, '/api/v1/download', tokenFor['read:downloads'])).status, 200);
      assert.equal((await getWith(hosted, '/api/v1/download', apiKey)).status, 200);
    });

    it('getDownloadAsset accepts read:downloads or nothing (and serves an API key as nothing)', async () => {
      assert.equal((await getWith(hosted, '/api/v1/download/ide/linux-x64')).status, 200);
      assert.equal((await getWith(hosted, '/api/v1/download/ide/linux-x64', tokenFor['read:downloads'])).status, 200);
    });

    it('listModels accepts read:models or nothing (and serves an API key as nothing)', async () => {
      assert.equal((await getWith(hosted, '/api/v1/models')).status, 200);
      assert.equal((await getWith(hosted, '/api/v1/models', tokenFor['read:models'])).status, 200);
    });

    it('submitFeedback without a token needs a valid email (400)', async () => {
      await assertError(await feedback({ name: 'a', subject: 'b', message: 'c' }), 400, 'validation_error');
      await assertError(await feedback({ name: 'a', email: 'not-an-email', subject: 'b', message: 'c' }), 400, 'validation_error');
      assert.equal((await feedback({ name: 'a', email: 'a@example.com', subject: 'b', message: 'c' })).status, 201);
    });

    it('submitFeedback with write:feedback may omit the email: the user’s is stored', async () => {
      const res = await feedback({ name: 'Lin', subject: 'b', message: 'with a token' }, tokenFor['write:feedback']);
      assert.equal(res.status, 201, await res.clone().text());
      const { id } = await res.json();
      const stored = (await hosted.store.feedback.list({ limit: 1000 })).find((f) => f.id === id);
      assert.equal(stored?.email, user.email);
    });

    it('an invalid token is checked even where none is required (never treated as anonymous)', async () => {
      for (const path of ['/api/v1/download', '/api/v1/models', '/api/v1/download/ide/linux-x64']) {
        await assertError(await getWith(hosted, path, 'garbage'), 401, 'invalid_token');
      }
      await assertError(await feedback({ name: 'a', email: 'a@example.com', subject: 'b', message: 'c' }, 'garbage'), 401, 'invalid_token');
    });
  });

  describe('client_credentials', () => {
    const ccScopes = (tokens: Tokens) => tokens.scope!.split(' ').sort();

    it('gives a confidential client read:downloads read:models read:health write:feedback, and no refresh or ID token', async () => {
      const res = await tokenRequest(hosted, { grant_type: 'client_credentials' }, { clientId: service.clientId, secret: serviceSecret });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const tokens = (await res.json()) as Tokens;
      assert.deepEqual(ccScopes(tokens), [...CLIENT_CREDENTIALS_ONLY].sort());
      assert.equal(tokens.refresh_token, undefined);
      assert.equal(tokens.id_token, undefined);
      assert.equal((await getWith(hosted, '/api/v1/models', tokens.access_token)).status, 200);
      assert.equal((await getWith(hosted, '/api/v1/download', tokens.access_token)).status, 200);
    });

    it('never grants more than those four, even to a client registered with every scope', async () => {
      const { client: both, clientSecret } = await registerClient(hosted, {
        type: 'confidential',
        grantTypes: ['authorization_code', 'client_credentials'],
        redirectUris: ['https://svc.example.com/cb'],
      });
      assert.equal(both.scopes.length, 9);
      const res = await tokenRequest(hosted, { grant_type: 'client_credentials' }, { clientId: both.clientId, secret: clientSecret! });
      assert.deepEqual(ccScopes((await res.json()) as Tokens), [...CLIENT_CREDENTIALS_ONLY].sort());
      for (const scope of ['read:tab', 'openid', 'write:composer', 'profile', 'email']) {
        const asked = await tokenRequest(hosted, { grant_type: 'client_credentials', scope }, { clientId: both.clientId, secret: clientSecret! });
        await assertError(asked, 400, 'invalid_scope');
      }
    });

    for (const scope of ['read:tab', 'openid', 'write:composer', 'read:models read:tab', 'no:such:scope']) {
      it(`asking for ${JSON.stringify(scope)} is invalid_scope`, async () => {
        const res = await tokenRequest(hosted, { grant_type: 'client_credentials', scope }, { clientId: service.clientId, secret: serviceSecret });
        await assertError(res, 400, 'invalid_scope');
      });
    }

    it('grants exactly the scopes asked for, when allowed', async () => {
      const res = await tokenRequest(hosted, { grant_type: 'client_credentials', scope: 'read:models' }, { clientId: service.clientId, secret: serviceSecret });
      const tokens = (await res.json()) as Tokens;
      assert.equal(tokens.scope, 'read:models');
      assert.equal((await getWith(hosted, '/api/v1/models', tokens.access_token)).status, 200);
    });

    it('a public client may not use it: refused at registration, and unauthorized_client at the token endpoint', async () => {
      await assert.rejects(
        registerClient(hosted, { type: 'public', grantTypes: ['client_credentials'], redirectUris: [] }),
        (error: unknown) => error instanceof LoomError && error.code === 'validation_error',
      );
      await assertError(await tokenRequest(hosted, { grant_type: 'client_credentials', client_id: 'loom-cli' }), 400, 'unauthorized_client');
      await assertError(await tokenRequest(hosted, { grant_type: 'client_credentials', client_id: client.clientId }), 400, 'unauthorized_client');
    });

    it('a public client cannot pass itself off with a secret', async () => {
      await assertError(await tokenRequest(hosted, { grant_type: 'client_credentials', client_id: 'loom-cli', client_secret: 'x' }), 401, 'invalid_client');
    });

    it('a wrong secret in HTTP Basic is 401 invalid_client with WWW-Authenticate: Basic', async () => {
      const res = await tokenRequest(hosted, { grant_type: 'client_credentials' }, { clientId: service.clientId, secret: 'wrong' });
      await assertError(res, 401, 'invalid_client');
      assert.match(res.headers.get('www-authenticate') ?? '', /^Basic /);
    });

    it('malformed HTTP Basic credentials are 401 invalid_client with WWW-Authenticate: Basic', async () => {
      for (const credentials of ['Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, `Basic ${Buffer.from('%zz:%zz').toString('base64')}`]) {
        const res = await fetch(`${hosted.url}/auth/token`, {
          method: 'POST',
          headers: { 'content-type': FORM, authorization: credentials },
          body: 'grant_type=client_credentials',
        });
        await assertError(res, 401, 'invalid_client');
        assert.match(res.headers.get('www-authenticate') ?? '', /^Basic /, credentials);
      }
    });

    it('a wrong or missing secret in the form is 401 invalid_client', async () => {
      await assertError(
        await tokenRequest(hosted, { grant_type: 'client_credentials', client_id: service.clientId, client_secret: 'wrong' }),
        401,
        'invalid_client',
      );
      await assertError(await tokenRequest(hosted, { grant_type: 'client_credentials', client_id: service.clientId }), 401, 'invalid_client');
      await assertError(
        await tokenRequest(hosted, { grant_type: 'client_credentials', client_id: 'loom_nosuchclient', client_secret: 'x' }),
        401,
        'invalid_client',
      );
      await assertError(await tokenRequest(hosted, { grant_type: 'client_credentials' }), 401, 'invalid_client');
    });

    it('authenticates with HTTP Basic and with client_secret in the form', async () => {
      const basic = await tokenRequest(hosted, { grant_type: 'client_credentials' }, { clientId: service.clientId, secret: serviceSecret });
      assert.equal(basic.status, 200);
      const form = await tokenRequest(hosted, { grant_type: 'client_credentials', client_id: service.clientId, client_secret: serviceSecret });
      assert.equal(form.status, 200);
      const alias = await tokenRequest(
        hosted,
        { grant_type: 'client_credentials', client_id: service.clientId, client_secret: serviceSecret },
        undefined,
        '/api/v1/auth/token',
      );
      assert.equal(alias.status, 200);
    });

    it('refuses client credentials sent both ways at once', async () => {
      const res = await tokenRequest(
        hosted,
        { grant_type: 'client_credentials', client_id: service.clientId, client_secret: serviceSecret },
        { clientId: service.clientId, secret: serviceSecret },
      );
      await assertError(res, 400, 'invalid_request');
    });

    it('the Basic header of one client cannot be paired with another client_id', async () => {
      const res = await tokenRequest(
        hosted,
        { grant_type: 'client_credentials', client_id: 'loom-cli' },
        { clientId: service.clientId, secret: serviceSecret },
      );
      await assertError(res, 400, 'invalid_request');
    });

    it('Basic credentials are form-urlencoded (RFC 6749 §2.3.1)', async () => {
      const res = await fetch(`${hosted.url}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': FORM, authorization: basicAuth(service.clientId, serviceSecret) },
        body: 'grant_type=client_credentials',
      });
      assert.equal(res.status, 200);
    });
  });

  describe('code is ignored by the other grants', () => {
    it('client_credentials with a code still works', async () => {
      const res = await tokenRequest(
        hosted,
        { grant_type: 'client_credentials', code: 'whatever-code' },
        { clientId: service.clientId, secret: serviceSecret },
      );
      assert.equal(res.status, 200, await res.clone().text());
    });

    it('refresh_token with a code still works', async () => {
      const tokens = await signInWithCode(hosted, client, 'read:models', cookie);
      const res = await tokenRequest(hosted, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: client.clientId,
        code: 'whatever-code',
      });
      assert.equal(res.status, 200, await res.clone().text());
    });

    it('refresh_token with a valid, unused code leaves that code usable', async () => {
      const tokens = await signInWithCode(hosted, client, 'read:models', cookie);
      const { verifier, challenge } = pkce();
      const auth = await authorize(hosted, authorizeParams(client, challenge, { scope: 'read:downloads' }), cookie);
      const code = new URL(auth.headers.get('location')!).searchParams.get('code')!;
      const refreshed = await tokenRequest(hosted, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId, code });
      assert.equal(refreshed.status, 200);
      assert.equal(((await refreshed.json()) as Tokens).scope, 'read:models', 'the refresh, not the code, decides');
      const redeemed = await tokenRequest(hosted, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: client.redirectUris[0],
        code_verifier: verifier,
        client_id: client.clientId,
      });
      assert.equal(redeemed.status, 200);
    });
  });
});
