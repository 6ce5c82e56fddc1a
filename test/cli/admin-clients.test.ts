// `loom admin clients add|list|remove` as an operator runs them, against the data dir of a
// real `loom hosted` process that then hands out (or refuses) tokens to the client.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { cleanEnv, hasStackTrace, runLoom, startLoom, tempDir } from '../support/cli.ts';

function operator(t: TestContext) {
  const home = tempDir(t);
  const dataDir = path.join(home, 'data-dir');
  const env = cleanEnv(home);
  const clients = (...args: string[]) => runLoom(['admin', 'clients', ...args, '--data-dir', dataDir], env);
  return { home, dataDir, env, clients };
}

function clientCredentials(url: string, id: string, secret: string, scope?: string) {
  const body = new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
  return fetch(`${url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
    body: body.toString(),
  });
}

describe('loom admin clients', () => {
  it('adds a confidential client whose credentials get tokens from the server, lists it, removes it', async (t) => {
    const { dataDir, env, clients } = operator(t);
    const added = await clients('add', '--name', 'ci', '--grant', 'client_credentials', '--scope', 'read:downloads,read:health', '--json');
    assert.equal(added.code, 0, added.stderr);
    assert.equal(added.stderr, '');
    const client = JSON.parse(added.stdout);
    assert.deepEqual(Object.keys(client), ['client_id', 'client_secret', 'name', 'type', 'grant_types', 'redirect_uris', 'scopes']);
    assert.match(client.client_id, /^loom_[0-9a-f]{20}$/);
    assert.match(client.client_secret, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(client.name, 'ci');
    assert.equal(client.type, 'confidential');
    assert.deepEqual(client.grant_types, ['client_credentials']);
    assert.deepEqual(client.redirect_uris, []);
    assert.deepEqual(client.scopes, ['read:downloads', 'read:health']);

    const listed = await clients('list', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const all = JSON.parse(listed.stdout);
    assert.deepEqual(
      all.map((c: { client_id: string }) => c.client_id),
      ['loom-cli', client.client_id],
    );
    assert.equal(all[1].created_at.length, 24);
    assert.ok(!listed.stdout.includes(client.client_secret) && !/secret/i.test(listed.stdout), 'never the secret or its hash');
    const table = await clients('list');
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^CLIENT ID\s+TYPE\s+GRANTS\s+NAME$/);
    assert.match(lines[1]!, /^loom-cli\s+public\s+authorization_code,refresh_token\s+Loom CLI and desktop app$/);
    assert.match(lines[2]!, new RegExp(`^${client.client_id}\\s+confidential\\s+client_credentials\\s+ci$`));

    // The server on the same data dir accepts the client.
    const hosted = await startLoom(t, ['hosted', '--port', '0', '--data-dir', dataDir], env);
    const token = await clientCredentials(hosted.url, client.client_id, client.client_secret);
    assert.equal(token.status, 200, await token.clone().text());
    const body = await token.json();
    assert.equal(body.scope, 'read:downloads read:health');
    assert.equal((await fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: `Bearer ${body.access_token}` } })).status, 200);
    assert.equal((await clientCredentials(hosted.url, client.client_id, 'wrong-secret')).status, 401);

    // Removed: no more tokens for it.
    assert.deepEqual(await clients('remove', client.client_id), { code: 0, signal: null, stdout: `Removed client ${client.client_id}.\n`, stderr: '' });
    const refused = await clientCredentials(hosted.url, client.client_id, client.client_secret);
    assert.equal(refused.status, 401);
    assert.equal((await refused.json()).error, 'invalid_client');
    const revoked = await fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: `Bearer ${body.access_token}` } });
    assert.equal(revoked.status, 401, 'the tokens it already held stop working at once');

    const again = await clients('remove', client.client_id);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `loom: no client ${client.client_id}; loom admin clients list shows them\n`);
    const builtIn = await clients('remove', 'loom-cli');
    assert.deepEqual(builtIn, { code: 1, signal: null, stdout: '', stderr: 'loom: loom-cli is built in and cannot be removed\n' });
  });

  it('adds a public client for the authorization code flow: no secret', async (t) => {
    const { clients } = operator(t);
    const added = await clients(
      'add',
      '--name',
      'Editor plugin',
      '--public',
      '--redirect-uri',
      'http://127.0.0.1/callback',
      '--redirect-uri',
      'com.example.editor:/cb',
      '--json',
    );
    assert.equal(added.code, 0, added.stderr);
    const client = JSON.parse(added.stdout);
    assert.deepEqual(Object.keys(client), ['client_id', 'name', 'type', 'grant_types', 'redirect_uris', 'scopes']);
    assert.equal(client.type, 'public');
    assert.deepEqual(client.grant_types, ['authorization_code', 'refresh_token']);
    assert.deepEqual(client.redirect_uris, ['http://127.0.0.1/callback', 'com.example.editor:/cb']);
    assert.ok(client.scopes.includes('openid'));

    const text = await clients('add', '--name', 'svc');
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /^Registered confidential client "svc"\.\n  client_id      loom_\w+\n  client_secret  \S{43}\n  grants         client_credentials\n/,
    );
    assert.match(text.stdout, /shown only now/);
  });

  it('refuses invalid clients with one line on stderr and exit code 1', async (t) => {
    const { clients } = operator(t);
    const cases: [string[], RegExp][] = [
      [['--public', '--grant', 'client_credentials'], /a public client cannot use client_credentials/],
      [['--grant', 'authorization_code'], /authorization_code needs at least one redirect URI/],
      [['--grant', 'password'], /unknown grant password/],
      [['--grant', 'client_credentials', '--scope', 'openid'], /scope openid is not available to this client/],
      [['--redirect-uri', 'http://example.com/cb'], /http is allowed only for 127\.0\.0\.1 and \[::1\]/],
    ];
    for (const [args, message] of cases) {
      const result = await clients('add', '--name', 'x', ...args);
      assert.equal(result.code, 1, args.join(' '));
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /^loom: Cannot register the client: .+\n$/);
      assert.match(result.stderr, message);
      assert.ok(!hasStackTrace(result.stderr));
    }
    const noName = await clients('add');
    assert.equal(noName.code, 2, 'a usage error');
    assert.match(noName.stderr, /required option '--name <name>' not specified/);
    assert.deepEqual(JSON.parse((await clients('list', '--json')).stdout).length, 1, 'nothing was registered');
  });
});
