// `loom admin keys create|list|revoke` as an operator runs them, on SQLite and on PostgreSQL:
// the README's sequence against a real `loom hosted` (a user without a code host gets a key in
// one command, calls tab completion with it, and is refused once it is revoked), then what the
// commands print.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { UserDirectory } from '../../src/core/identity/users.ts';
import { startLoom, type RunningLoom, unusedPort } from '../support/cli.ts';
import { BACKENDS, install, type Install } from '../support/install.ts';
import { openTestStore } from '../support/store.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ALL_API_SCOPES = ['read:downloads', 'read:models', 'read:health', 'write:feedback', 'write:composer', 'read:tab'];

function tabComplete(url: string, key: string) {
  return fetch(`${url}/api/v1/tab/complete`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ language: 'typescript', prefix: 'const total = items.reduce((sum, item) => sum + ', suffix: '\n', filePath: 'src/cart.ts' }),
  });
}

/**
 * `loom hosted` on a fixed port given in the install's environment (LOOM_HOSTED_PORT), as the
 * README's server runs on its default one: the admin commands derive the same address from it.
 */
async function hostedOnAFixedPort(t: TestContext, site: Install): Promise<RunningLoom> {
  for (let attempt = 1; ; attempt++) {
    site.env.LOOM_HOSTED_PORT = String(await unusedPort());
    try {
      return await startLoom(t, ['hosted', '--log-level', 'silent'], site.env);
    } catch (error) {
      if (attempt === 5 || !/EADDRINUSE/.test((error as Error).message)) throw error;
    }
  }
}

function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

describe('loom admin keys', () => {
  for (const backend of BACKENDS) {
    it(`gives a user without a code host a working key in one command, revoked at once (${backend}, the README's sequence)`, async (t) => {
      const site = await install(t, backend);
      if (!site) return;
      const hosted = await hostedOnAFixedPort(t, site);

      const added = await site.loom('admin', 'users', 'add', 'ada');
      assert.equal(added.code, 0, added.stderr);
      const created = await site.loom('admin', 'keys', 'create', '--user', 'ada');
      assert.equal(created.code, 0, created.stderr);
      const key = created.stdout.trimEnd();
      assert.equal(created.stdout, `${key}\n`, 'the key alone on stdout, for KEY=$(…)');
      assert.match(key, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
      assert.match(
        created.stderr,
        /^Created API key [0-9a-f-]{36} "admin" for user ada on http:\/\/127\.0\.0\.1:\d+; it expires \d{4}-\d\d-\d\d \d\d:\d\d UTC\.\n/,
      );
      assert.ok(created.stderr.includes(`  scopes  ${ALL_API_SCOPES.join(' ')}\n`), created.stderr);
      assert.match(created.stderr, /shown only now/);

      const answered = await tabComplete(hosted.url, key);
      assert.equal(answered.status, 200, await answered.clone().text());
      assert.equal((await answered.json()).model, 'builtin');

      const listed = await site.loom('admin', 'keys', 'list', '--json');
      assert.equal(listed.code, 0, listed.stderr);
      const [view, ...others] = JSON.parse(listed.stdout);
      assert.deepEqual(others, []);
      assert.equal(view.user, 'ada');
      assert.equal(view.status, 'active');
      assert.deepEqual(view.scopes, ALL_API_SCOPES);
      assert.equal(Date.parse(view.expiresAt) - Date.parse(view.createdAt), 90 * 86_400_000, '90 days unless --expires says');
      assert.ok(!listed.stdout.includes(key.split('.')[2]!), 'never the key');

      const revoked = await site.loom('admin', 'keys', 'revoke', view.id);
      assert.deepEqual(revoked, { code: 0, signal: null, stdout: `Revoked API key ${view.id} "admin": it stops working at once.\n`, stderr: '' });
      const refused = await tabComplete(hosted.url, key);
      assert.equal(refused.status, 401);
      assert.equal((await refused.json()).error, 'invalid_token');
      assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_token"/);

      const again = await site.loom('admin', 'keys', 'revoke', view.id);
      assert.deepEqual(again, { code: 1, signal: null, stdout: '', stderr: `loom: API key ${view.id} is revoked already\n` });

      // The scopes a key carries are the scopes it has: without read:tab, tab completion is a 403.
      const narrow = await site.loom('admin', 'keys', 'create', '--user', 'ada', '--scope', 'read:downloads');
      assert.equal(narrow.code, 0, narrow.stderr);
      const forbidden = await tabComplete(hosted.url, narrow.stdout.trimEnd());
      assert.equal(forbidden.status, 403);
      assert.equal((await forbidden.json()).error, 'insufficient_scope');
      const downloads = await fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: `Bearer ${narrow.stdout.trimEnd()}` } });
      assert.equal(downloads.status, 200);
    });
  }

  it('prints JSON with the key, lists keys of every user or of one, and takes any user by id', async (t) => {
    const site = (await install(t, 'sqlite'))!;
    assert.equal((await site.loom('admin', 'users', 'add', 'ada')).code, 0);
    const store = await openTestStore(t, site.storeOptions);
    const linus = await new UserDirectory(store.users).signIn({
      provider: 'codehost',
      subject: '42',
      login: 'linus',
      name: null,
      email: null,
      emailVerified: false,
    });
    await store.close();

    const created = await site.loom(
      'admin',
      'keys',
      'create',
      '--user',
      'ADA',
      '--scope',
      'read:downloads,read:health',
      '--scope',
      'read:tab',
      '--expires',
      '2h',
      '--name',
      'ci',
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stderr, '');
    const ci = JSON.parse(created.stdout);
    assert.deepEqual(Object.keys(ci), ['id', 'key', 'userId', 'user', 'name', 'scopes', 'createdAt', 'expiresAt', 'server']);
    assert.match(ci.id, UUID);
    assert.equal(ci.user, 'ada');
    assert.equal(ci.name, 'ci');
    assert.deepEqual(ci.scopes, ['read:downloads', 'read:health', 'read:tab']);
    assert.equal(Date.parse(ci.expiresAt) - Date.parse(ci.createdAt), 2 * 3600_000);
    assert.equal(ci.server, 'http://127.0.0.1:8080', 'the default address of loom hosted');
    const claims = jwtPayload(ci.key);
    assert.deepEqual(
      { sub: claims.sub, jti: claims.jti, aud: claims.aud, iss: claims.iss, scope: claims.scope, lifetime: (claims.exp as number) - (claims.iat as number) },
      { sub: ci.userId, jti: ci.id, aud: [ci.server, `${ci.server}/mcp`], iss: ci.server, scope: 'read:downloads read:health read:tab', lifetime: 7200 },
    );

    const forLinus = await site.loom('admin', 'keys', 'create', '--user', linus.id, '--public-url', 'https://loom.example.com', '--json');
    assert.equal(forLinus.code, 0, forLinus.stderr);
    const linusKey = JSON.parse(forLinus.stdout);
    assert.equal(linusKey.user, 'linus');
    assert.equal(linusKey.server, 'https://loom.example.com');
    assert.deepEqual(jwtPayload(linusKey.key).aud, ['https://loom.example.com', 'https://loom.example.com/mcp'], 'a key serves the API and its MCP endpoint');

    const all = await site.loom('admin', 'keys', 'list', '--json');
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(
      JSON.parse(all.stdout).map((k: { id: string; user: string; status: string }) => [k.id, k.user, k.status]),
      [
        [linusKey.id, 'linus', 'active'],
        [ci.id, 'ada', 'active'],
      ],
    );
    assert.ok(!all.stdout.includes(ci.key) && !all.stdout.includes(linusKey.key));

    const adas = await site.loom('admin', 'keys', 'list', '--user', 'ada');
    assert.equal(adas.code, 0, adas.stderr);
    const lines = adas.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^ID {36}USER {2}STATUS {2}EXPIRES {15}NAME$/);
    assert.equal(lines[1], `${ci.id}  ada   active  ${ci.expiresAt.slice(0, 10)} ${ci.expiresAt.slice(11, 16)} UTC  ci`);

    assert.equal((await site.loom('admin', 'keys', 'revoke', ci.id)).code, 0);
    const afterRevoke = JSON.parse((await site.loom('admin', 'keys', 'list', '--user', linus.id, '--json')).stdout);
    assert.deepEqual(
      afterRevoke.map((k: { id: string }) => k.id),
      [linusKey.id],
      '--user takes an id too',
    );
  });
});
