// docs/security.md, "Sign-in and tokens": PKCE with S256 only (public clients must use it; a challenge
// without a matching verifier, or a verifier without a challenge, is invalid_grant), and
// authorization codes that are single use, live 60 s, are bound to client, redirect URI and
// challenge, and whose second redemption revokes what the first one issued.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClientRecord } from '../../../src/core/identity/records.ts';
import { pkceChallenge, randomToken } from '../../../src/core/identity/secrets.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { postgresUrl } from '../../support/services.ts';
import {
  assertError,
  authorize,
  authorizeParams,
  getCode,
  getWith,
  pkce,
  redeem,
  refresh,
  registerClient,
  signedInUser,
  tokenRequest,
  type Tokens,
} from '../../support/oauth.ts';

describe('PKCE and authorization codes', () => {
  let hosted: TestHosted;
  let client: ClientRecord;
  let confidential: ClientRecord;
  let confidentialSecret: string;
  let other: ClientRecord;
  let cookie: string;
  let userId: string;
  before(async () => {
    hosted = await startTestHosted();
    ({ client } = await registerClient(hosted, { redirectUris: ['https://app.example.com/cb', 'https://app.example.com/cb2', 'http://127.0.0.1/callback'] }));
    ({ client: other } = await registerClient(hosted, { redirectUris: ['https://app.example.com/cb'] }));
    const registered = await registerClient(hosted, { type: 'confidential', redirectUris: ['https://app.example.com/cb'] });
    confidential = registered.client;
    confidentialSecret = registered.clientSecret!;
    const session = await signedInUser(hosted);
    cookie = session.cookie;
    userId = session.user.id;
  });
  after(() => hosted.close());

  /** Redeems with these fields changed, expecting no tokens. */
  const redeemWith = (
    grant: { code: string; verifier: string; redirectUri: string },
    overrides: Record<string, string | undefined> = {},
    clientRecord = client,
  ) =>
    tokenRequest(hosted, {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      code_verifier: grant.verifier,
      client_id: clientRecord.clientId,
      ...overrides,
    });

  describe('the authorization request', () => {
    it('metadata announces S256 and only S256', async () => {
      const metadata = await (await fetch(`${hosted.url}/.well-known/oauth-authorization-server`)).json();
      assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    });

    /** The error a client receives on its redirect URI (RFC 6749 §4.1.2.1), with state and iss. */
    async function assertRedirectedError(params: Record<string, string | undefined>, code: string, clientRecord = client) {
      const res = await authorize(hosted, params, cookie);
      assert.equal(res.status, 302, await res.text());
      const location = new URL(res.headers.get('location')!);
      assert.equal(`${location.origin}${location.pathname}`, params.redirect_uri ?? clientRecord.redirectUris[0]);
      assert.equal(location.searchParams.get('error'), code);
      assert.ok(location.searchParams.get('error_description'));
      assert.equal(location.searchParams.get('state'), params.state);
      assert.equal(location.searchParams.get('iss'), hosted.url);
      assert.equal(location.searchParams.get('code'), null, 'no code with an error');
    }

    it('refuses code_challenge_method=plain (invalid_request, redirected with state and iss)', async () => {
      const verifier = randomToken(32);
      await assertRedirectedError(authorizeParams(client, verifier, { code_challenge_method: 'plain' }), 'invalid_request');
    });

    it('refuses a challenge without a method (which would mean plain)', async () => {
      await assertRedirectedError(authorizeParams(client, pkce().challenge, { code_challenge_method: undefined }), 'invalid_request');
    });

    it('refuses an unknown method, or s256 in the wrong case', async () => {
      await assertRedirectedError(authorizeParams(client, pkce().challenge, { code_challenge_method: 'S512' }), 'invalid_request');
      await assertRedirectedError(authorizeParams(client, pkce().challenge, { code_challenge_method: 's256' }), 'invalid_request');
    });

    it('refuses a public client that sends no challenge', async () => {
      await assertRedirectedError(authorizeParams(client, '', { code_challenge: undefined, code_challenge_method: undefined }), 'invalid_request');
      await assertRedirectedError(authorizeParams(client, '', { code_challenge: '' }), 'invalid_request');
    });

    it('refuses the CLI (public) client without a challenge too', async () => {
      const cli = (await hosted.identity.clients.get('loom-cli'))!;
      await assertRedirectedError(
        authorizeParams(cli, '', { redirect_uri: 'http://127.0.0.1:5555/callback', code_challenge: undefined }),
        'invalid_request',
        cli,
      );
    });

    it('refuses a challenge that is not a base64url SHA-256', async () => {
      for (const challenge of ['short', 'a'.repeat(42), 'a'.repeat(44), `${'a'.repeat(42)}=`, `${'a'.repeat(42)}+`]) {
        await assertRedirectedError(authorizeParams(client, challenge), 'invalid_request');
      }
    });

    it('issues a code for S256, with state and iss (RFC 9207)', async () => {
      const params = authorizeParams(client, pkce().challenge, { state: 'abc 123/+=' });
      const res = await authorize(hosted, params, cookie);
      assert.equal(res.status, 302);
      const location = new URL(res.headers.get('location')!);
      assert.ok(location.searchParams.get('code'));
      assert.equal(location.searchParams.get('state'), 'abc 123/+=');
      assert.equal(location.searchParams.get('iss'), hosted.url);
    });
  });

  describe('the verifier at the token endpoint', () => {
    it('refuses a code with a challenge redeemed without a verifier (invalid_grant)', async () => {
      const grant = await getCode(hosted, client, cookie);
      await assertError(await redeemWith(grant, { code_verifier: undefined }), 400, 'invalid_grant');
    });

    it('refuses a wrong verifier (invalid_grant)', async () => {
      const grant = await getCode(hosted, client, cookie);
      await assertError(await redeemWith(grant, { code_verifier: randomToken(32) }), 400, 'invalid_grant');
    });

    it('refuses the challenge itself sent as verifier (a downgrade to plain)', async () => {
      const grant = await getCode(hosted, client, cookie);
      await assertError(await redeemWith(grant, { code_verifier: grant.challenge }), 400, 'invalid_grant');
    });

    it('refuses a verifier shorter than RFC 7636 allows, even when its hash matches', async () => {
      const verifier = 'v'.repeat(42);
      const res = await authorize(hosted, authorizeParams(client, pkceChallenge(verifier)), cookie);
      const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
      await assertError(await redeemWith({ code, verifier, redirectUri: client.redirectUris[0]! }), 400, 'invalid_grant');
    });

    it('accepts a 128-character verifier of the full RFC 7636 alphabet', async () => {
      const verifier = ('AZaz09-._~' + randomToken(96)).slice(0, 128);
      const res = await authorize(hosted, authorizeParams(client, pkceChallenge(verifier)), cookie);
      const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
      const tokens = await redeem(hosted, client, { code, verifier, redirectUri: client.redirectUris[0]! });
      assert.ok(tokens.access_token);
    });

    it('refuses a verifier when the code had no challenge (invalid_grant)', async () => {
      // Not reachable through /auth/authorize (which requires PKCE): a code issued directly.
      const code = await hosted.identity.oauth.issueCode({
        clientId: client.clientId,
        userId,
        redirectUri: client.redirectUris[0]!,
        codeChallenge: null as unknown as string,
        scope: 'read:models',
        nonce: null,
      });
      await assertError(await redeemWith({ code, verifier: randomToken(32), redirectUri: client.redirectUris[0]! }), 400, 'invalid_grant');
    });

    it('binds the code to the challenge: the verifier of another request does not fit', async () => {
      const first = await getCode(hosted, client, cookie);
      const second = await getCode(hosted, client, cookie);
      await assertError(await redeemWith({ ...first, verifier: second.verifier }), 400, 'invalid_grant');
      assert.ok((await redeem(hosted, client, second)).access_token);
    });

    it('a confidential client must send a verifier as well (its secret is not enough)', async () => {
      const grant = await getCode(hosted, confidential, cookie);
      const res = await redeemWith(grant, { code_verifier: undefined, client_secret: confidentialSecret }, confidential);
      await assertError(res, 400, 'invalid_grant');
    });
  });

  describe('codes', () => {
    it('are single use: the second redemption is invalid_grant', async () => {
      const grant = await getCode(hosted, client, cookie);
      await redeem(hosted, client, grant);
      await assertError(await redeemWith(grant), 400, 'invalid_grant');
    });

    it('are spent by a failed redemption too (a wrong verifier burns the code)', async () => {
      const grant = await getCode(hosted, client, cookie);
      await assertError(await redeemWith(grant, { code_verifier: randomToken(32) }), 400, 'invalid_grant');
      await assertError(await redeemWith(grant), 400, 'invalid_grant');
    });

    it('work 59 s after they were issued', async () => {
      const grant = await getCode(hosted, client, cookie);
      hosted.clock.advance(59_000);
      assert.ok((await redeem(hosted, client, grant)).access_token);
    });

    it('expire after 60 s', async () => {
      const grant = await getCode(hosted, client, cookie);
      hosted.clock.advance(61_000);
      const body = await assertError(await redeemWith(grant), 400, 'invalid_grant');
      assert.match(String(body.message), /expired/);
    });

    it('expire at 60 s exactly', async () => {
      const grant = await getCode(hosted, client, cookie);
      hosted.clock.advance(60_000);
      await assertError(await redeemWith(grant), 400, 'invalid_grant');
    });

    it('are bound to the client: another public client gets invalid_grant', async () => {
      const grant = await getCode(hosted, client, cookie);
      await assertError(await redeemWith(grant, {}, other), 400, 'invalid_grant');
    });

    it('are bound to the client: an authenticated confidential client gets invalid_grant', async () => {
      const grant = await getCode(hosted, client, cookie);
      await assertError(await redeemWith(grant, { client_secret: confidentialSecret }, confidential), 400, 'invalid_grant');
    });

    it("are bound to the client: the CLI's client gets invalid_grant", async () => {
      const grant = await getCode(hosted, client, cookie);
      await assertError(await redeemWith(grant, { client_id: 'loom-cli' }), 400, 'invalid_grant');
    });

    it('are bound to the redirect URI: another registered one gets invalid_grant', async () => {
      const grant = await getCode(hosted, client, cookie);
      await assertError(await redeemWith(grant, { redirect_uri: 'https://app.example.com/cb2' }), 400, 'invalid_grant');
    });

    it('are bound to the redirect URI: none at all gets invalid_grant', async () => {
      const grant = await getCode(hosted, client, cookie);
      await assertError(await redeemWith(grant, { redirect_uri: undefined }), 400, 'invalid_grant');
    });

    it('are bound to the loopback port used', async () => {
      const grant = await getCode(hosted, client, cookie, { redirect_uri: 'http://127.0.0.1:40001/callback' });
      await assertError(await redeemWith(grant, { redirect_uri: 'http://127.0.0.1:40002/callback' }), 400, 'invalid_grant');
    });

    it('a confidential client must authenticate to redeem its code', async () => {
      const grant = await getCode(hosted, confidential, cookie);
      await assertError(await redeemWith(grant, {}, confidential), 401, 'invalid_client');
      const again = await getCode(hosted, confidential, cookie);
      await assertError(await redeemWith(again, { client_secret: 'wrong' }, confidential), 401, 'invalid_client');
      const third = await getCode(hosted, confidential, cookie);
      assert.ok((await redeem(hosted, confidential, third, confidentialSecret)).access_token);
    });

    it('an unknown or garbage code is invalid_grant', async () => {
      const grant = await getCode(hosted, client, cookie);
      await assertError(await redeemWith({ ...grant, code: randomToken(32) }), 400, 'invalid_grant');
      await assertError(await redeemWith({ ...grant, code: 'x' }), 400, 'invalid_grant');
    });

    it('authorization_code without a code is invalid_request', async () => {
      const grant = await getCode(hosted, client, cookie);
      await assertError(await redeemWith(grant, { code: undefined }), 400, 'invalid_request');
    });
  });

  describe('a second redemption', () => {
    async function firstRedemption(): Promise<{ grant: Awaited<ReturnType<typeof getCode>>; tokens: Tokens }> {
      const grant = await getCode(hosted, client, cookie, { scope: 'read:models read:downloads' });
      const tokens = await redeem(hosted, client, grant);
      assert.equal((await getWith(hosted, '/api/v1/models', tokens.access_token)).status, 200);
      return { grant, tokens };
    }

    it('revokes the access token and the refresh token the first one issued', async () => {
      const { grant, tokens } = await firstRedemption();
      await assertError(await redeemWith(grant), 400, 'invalid_grant');
      const res = await getWith(hosted, '/api/v1/models', tokens.access_token);
      await assertError(res, 401, 'invalid_token');
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer .*error="invalid_token"/);
      await assertError(await refresh(hosted, client, tokens.refresh_token!), 400, 'invalid_grant');
    });

    it('revokes the tokens rotated since, too (the whole grant)', async () => {
      const { grant, tokens } = await firstRedemption();
      const rotated = await (await refresh(hosted, client, tokens.refresh_token!)).json();
      assert.equal((await getWith(hosted, '/api/v1/models', rotated.access_token)).status, 200);
      await assertError(await redeemWith(grant), 400, 'invalid_grant');
      await assertError(await getWith(hosted, '/api/v1/models', rotated.access_token), 401, 'invalid_token');
      await assertError(await refresh(hosted, client, rotated.refresh_token), 400, 'invalid_grant');
    });

    it('revokes, even when presented by another client or without the verifier', async () => {
      const { grant, tokens } = await firstRedemption();
      await assertError(await redeemWith(grant, { code_verifier: undefined }, other), 400, 'invalid_grant');
      await assertError(await getWith(hosted, '/api/v1/models', tokens.access_token), 401, 'invalid_token');
    });

    it('leaves other sign-ins of the same user alone', async () => {
      const kept = await firstRedemption();
      const { grant } = await firstRedemption();
      await assertError(await redeemWith(grant), 400, 'invalid_grant');
      assert.equal((await getWith(hosted, '/api/v1/models', kept.tokens.access_token)).status, 200);
    });

    it('racing the first one: at most one succeeds, and whatever it got stops working', async () => {
      await assertRaceRevokes(hosted, client, cookie, 5);
    });
  });
});

/**
 * Presents one code three times at once. With PostgreSQL the redemptions really interleave:
 * a replay may arrive while the first redemption is still creating its grant.
 */
async function assertRaceRevokes(hosted: TestHosted, client: ClientRecord, cookie: string, rounds: number) {
  const redeemWith = (grant: { code: string; verifier: string; redirectUri: string }) =>
    tokenRequest(hosted, {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      code_verifier: grant.verifier,
      client_id: client.clientId,
    });
  for (let round = 0; round < rounds; round++) {
    const grant = await getCode(hosted, client, cookie, { scope: 'read:models' });
    const responses = await Promise.all([redeemWith(grant), redeemWith(grant), redeemWith(grant)]);
    const succeeded = responses.filter((r) => r.status === 200);
    assert.ok(succeeded.length <= 1, `${succeeded.length} redemptions of one code succeeded`);
    for (const res of responses) if (res.status !== 200) await assertError(res, 400, 'invalid_grant');
    for (const res of succeeded) {
      const tokens = (await res.json()) as Tokens;
      await assertError(await getWith(hosted, '/api/v1/models', tokens.access_token), 401, 'invalid_token');
      await assertError(await refresh(hosted, client, tokens.refresh_token!), 400, 'invalid_grant');
    }
  }
}

describe('a second redemption racing the first, on PostgreSQL', () => {
  it('at most one succeeds, and whatever it got stops working', async (t) => {
    const databaseUrl = await postgresUrl(t);
    if (!databaseUrl) return;
    const hosted = await startTestHosted({ databaseUrl });
    try {
      const { client } = await registerClient(hosted);
      const { cookie } = await signedInUser(hosted);
      await assertRaceRevokes(hosted, client, cookie, 20);
    } finally {
      await hosted.close();
    }
  });
});
