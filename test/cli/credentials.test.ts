// The CLI's credentials file in-process: atomic, private, locked read-modify-write.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CredentialStore, type ServerCredentials } from '../../src/cli/auth/credentials.ts';
import { CliError } from '../../src/cli/errors.ts';
import { normalizeServerUrl } from '../../src/cli/auth/oauth.ts';
import { expiresSoon } from '../../src/cli/auth/tokens.ts';
import { tempDir } from '../support/cli.ts';

const entry = (token: string): ServerCredentials => ({
  access_token: token,
  refresh_token: `r-${token}`,
  expires_at: '2030-01-01T00:00:00.000Z',
  scope: 'openid',
  token_endpoint: 'http://127.0.0.1:1/auth/token',
  issuer: 'http://127.0.0.1:1',
});

describe('CredentialStore', () => {
  it('creates the folder 0700 and the file 0600, and keeps one entry per server', async (t) => {
    const store = new CredentialStore(path.join(tempDir(t), 'nested', 'loom'));
    assert.deepEqual(store.read(), { servers: {} });
    await store.update((file) => (file.servers['http://a'] = entry('a')));
    await store.update((file) => (file.servers['https://b'] = entry('b')));
    assert.deepEqual(Object.keys(store.read().servers), ['http://a', 'https://b']);
    assert.equal(store.get('https://b')!.access_token, 'b');
    assert.equal(store.get('http://c'), undefined);
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(store.file).mode & 0o777, 0o600);
      assert.equal(fs.statSync(store.dir).mode & 0o777, 0o700);
    }
    assert.deepEqual(fs.readdirSync(store.dir), ['credentials.json']);
  });

  it('serializes concurrent updates with the lock, and takes over a stale lock', async (t) => {
    const store = new CredentialStore(tempDir(t));
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.update(async (file) => {
          // Give the event loop to the other updates mid-update: without the lock they would interleave.
          await new Promise(setImmediate);
          file.servers[`http://s${i}`] = entry(String(i));
        }),
      ),
    );
    assert.equal(Object.keys(store.read().servers).length, 10, 'no update lost');

    const lock = `${store.file}.lock`;
    fs.writeFileSync(lock, '');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    await store.update((file) => delete file.servers['http://s0']);
    assert.equal(Object.keys(store.read().servers).length, 9);
    assert.ok(!fs.existsSync(lock));
  });

  it('refuses a damaged file with a CliError, not a stack trace', (t) => {
    const store = new CredentialStore(tempDir(t));
    fs.writeFileSync(store.file, '{not json');
    assert.throws(
      () => store.read(),
      (error: Error) => error instanceof CliError && /not valid JSON; remove it/.test(error.message),
    );
    fs.writeFileSync(store.file, '[]');
    assert.throws(() => store.read(), CliError);
  });
});

describe('server URLs and expiry', () => {
  it('normalizes server URLs to a key without a trailing slash', () => {
    assert.equal(normalizeServerUrl('http://127.0.0.1:8080/'), 'http://127.0.0.1:8080');
    assert.equal(normalizeServerUrl('HTTPS://Loom.Example.com/base//'), 'https://loom.example.com/base');
    for (const bad of ['ftp://x', 'not a url', 'https://user:pw@x', 'https://x/?a=1', 'https://x/#f']) assert.equal(normalizeServerUrl(bad), undefined, bad);
  });

  it('treats a token within 60 s of its expiry as expired', () => {
    const now = Date.parse('2030-01-01T00:00:00.000Z');
    assert.equal(expiresSoon({ ...entry('a'), expires_at: '2030-01-01T00:01:01.000Z' }, now), false);
    assert.equal(expiresSoon({ ...entry('a'), expires_at: '2030-01-01T00:01:00.000Z' }, now), true);
    assert.equal(expiresSoon({ ...entry('a'), expires_at: 'garbage' }, now), true);
  });
});
