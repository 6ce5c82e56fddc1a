// docs/security.md, "Sign-in and tokens": refresh tokens rotate on every use; presenting an already-used one
// revokes the whole family (every refresh and access token of that sign-in).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClientRecord } from '../../../src/core/identity/records.ts';
import { randomToken } from '../../../src/core/identity/secrets.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { postgresUrl } from '../../support/services.ts';
import { assertError, getWith, refresh, registerClient, signInWithCode, tokenRequest, type Tokens } from '../../support/oauth.ts';

const SCOPE = 'read:models read:downloads';

describe('refresh tokens', () => {
  let hosted: TestHosted;
  let client: ClientRecord;
  let other: ClientRecord;
  before(async () => {
    hosted = await startTestHosted();
    ({ client } = await registerClient(hosted));
    ({ client: other } = await registerClient(hosted));
  });
  after(() => hosted.close());

  const signIn = () => signInWithCode(hosted, client, SCOPE);
  const works = async (accessToken: string) => assert.equal((await getWith(hosted, '/api/v1/models', accessToken)).status, 200);
  const revoked = async (accessToken: string) => {
    const res = await getWith(hosted, '/api/v1/models', accessToken);
    await assertError(res, 401, 'invalid_token');
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer .*error="invalid_token"/);
  };

  async function rotate(refreshToken: string): Promise<Tokens> {
    const res = await refresh(hosted, client, refreshToken);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('cache-control'), 'no-store');
    return (await res.json()) as Tokens;
  }

  it('rotate on every use: each refresh returns a new refresh token and a new access token', async () => {
    const first = await signIn();
    const seen = new Set([first.refresh_token]);
    const access = new Set([first.access_token]);
    let current: Tokens = first;
    for (let i = 0; i < 4; i++) {
      hosted.clock.advance(1000);
      const next = await rotate(current.refresh_token!);
      assert.ok(next.refresh_token, 'a refresh returns a new refresh token');
      assert.ok(!seen.has(next.refresh_token), 'never a refresh token seen before');
      assert.ok(!access.has(next.access_token));
      seen.add(next.refresh_token);
      access.add(next.access_token);
      assert.equal(next.scope, SCOPE);
      await works(next.access_token);
      current = next;
    }
  });

  it('the old refresh token is invalid once used', async () => {
    const first = await signIn();
    await rotate(first.refresh_token!);
    await assertError(await refresh(hosted, client, first.refresh_token!), 400, 'invalid_grant');
  });

  it('reusing the previous refresh token revokes the newest refresh and access tokens', async () => {
    const first = await signIn();
    const second = await rotate(first.refresh_token!);
    await works(second.access_token);
    await assertError(await refresh(hosted, client, first.refresh_token!), 400, 'invalid_grant');
    await revoked(second.access_token);
    await revoked(first.access_token);
    await assertError(await refresh(hosted, client, second.refresh_token!), 400, 'invalid_grant');
  });

  it('reusing any older one in a long chain revokes the family', async () => {
    const t0 = await signIn();
    const t1 = await rotate(t0.refresh_token!);
    const t2 = await rotate(t1.refresh_token!);
    const t3 = await rotate(t2.refresh_token!);
    await works(t3.access_token);
    await assertError(await refresh(hosted, client, t1.refresh_token!), 400, 'invalid_grant');
    for (const t of [t0, t1, t2, t3]) await revoked(t.access_token);
    await assertError(await refresh(hosted, client, t3.refresh_token!), 400, 'invalid_grant');
  });

  it('the family stays revoked: later reuse or the newest token never revive it', async () => {
    const t0 = await signIn();
    const t1 = await rotate(t0.refresh_token!);
    await assertError(await refresh(hosted, client, t0.refresh_token!), 400, 'invalid_grant');
    await assertError(await refresh(hosted, client, t1.refresh_token!), 400, 'invalid_grant');
    await assertError(await refresh(hosted, client, t1.refresh_token!), 400, 'invalid_grant');
    await revoked(t1.access_token);
  });

  it('revokes only that family: other sign-ins of the same client keep working', async () => {
    const victim = await signIn();
    const bystander = await signIn();
    await rotate(victim.refresh_token!);
    await assertError(await refresh(hosted, client, victim.refresh_token!), 400, 'invalid_grant');
    await works(bystander.access_token);
    const next = await rotate(bystander.refresh_token!);
    await works(next.access_token);
  });

  it('two refreshes of the same token at once: the family is revoked', async () => {
    const t0 = await signIn();
    const responses = await Promise.all([refresh(hosted, client, t0.refresh_token!), refresh(hosted, client, t0.refresh_token!)]);
    const statuses = responses.map((r) => r.status).sort();
    assert.ok(statuses.includes(400), `statuses ${statuses}`);
    for (const res of responses) {
      if (res.status !== 200) continue;
      const tokens = (await res.json()) as Tokens;
      await revoked(tokens.access_token);
      await assertError(await refresh(hosted, client, tokens.refresh_token!), 400, 'invalid_grant');
    }
  });

  it('are bound to their client', async () => {
    const t0 = await signIn();
    await assertError(await refresh(hosted, other, t0.refresh_token!), 400, 'invalid_grant');
    await assertError(await refresh(hosted, (await hosted.identity.clients.get('loom-cli'))!, t0.refresh_token!), 400, 'invalid_grant');
  });

  it('an unknown refresh token is invalid_grant, a missing one invalid_request', async () => {
    await assertError(await refresh(hosted, client, randomToken(32)), 400, 'invalid_grant');
    await assertError(await tokenRequest(hosted, { grant_type: 'refresh_token', client_id: client.clientId }), 400, 'invalid_request');
  });

  it('an access token is not a refresh token', async () => {
    const t0 = await signIn();
    await assertError(await refresh(hosted, client, t0.access_token.slice(0, 500)), 400, 'invalid_grant');
  });

  it('may narrow the scope of the new access token, never widen it', async () => {
    const t0 = await signIn();
    const narrowed = await (await refresh(hosted, client, t0.refresh_token!, { scope: 'read:models' })).json();
    assert.equal(narrowed.scope, 'read:models');
    // The server takes it with read:models alone (read:downloads was dropped).
    assert.deepEqual([...(await hosted.identity.tokens.verify(narrowed.access_token, 'api')).scopes], ['read:models']);
    await works(narrowed.access_token);
    await assertError(await refresh(hosted, client, narrowed.refresh_token, { scope: 'read:models write:feedback' }), 400, 'invalid_scope');
  });

  it('expire after 30 days', async () => {
    const t0 = await signIn();
    hosted.clock.advance(31 * 86_400_000);
    await assertError(await refresh(hosted, client, t0.refresh_token!), 400, 'invalid_grant');
  });
});

describe('refresh token reuse on PostgreSQL', () => {
  it('revokes the family', async (t) => {
    const databaseUrl = await postgresUrl(t);
    if (!databaseUrl) return;
    const hosted = await startTestHosted({ databaseUrl });
    try {
      const { client } = await registerClient(hosted);
      const t0 = await signInWithCode(hosted, client, SCOPE);
      const t1 = (await (await refresh(hosted, client, t0.refresh_token!)).json()) as Tokens;
      await assertError(await refresh(hosted, client, t0.refresh_token!), 400, 'invalid_grant');
      await assertError(await getWith(hosted, '/api/v1/models', t1.access_token), 401, 'invalid_token');
      await assertError(await refresh(hosted, client, t1.refresh_token!), 400, 'invalid_grant');
    } finally {
      await hosted.close();
    }
  });
});
