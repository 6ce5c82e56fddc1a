// A signed-in window survives a restart of the app: its session is saved hashed in the data dir
// and verified by the next start on the same data dir (and port: the cookie is named after it).
// Signing out, or rotating the API token, ends it for good. And the running app gives a one-time
// sign-in link on request (`loom open`) only with the data dir's link key besides the token.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import { rotateToken } from '../../src/local/settings.ts';
import { LINK_KEY_FILE, readLinkKey } from '../../src/local/window/link-key.ts';
import { SESSIONS_FILE } from '../../src/local/window/sign-in.ts';
import { tempDir } from '../support/cli.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const TOKEN = 'loom_window_restart_token_0123456789abcdef';

interface Folders {
  workspace: string;
  configDir: string;
  dataDir: string;
  clock: ManualClock;
}

function folders(t: TestContext): Folders {
  const home = tempDir(t, 'loom-window-restart-');
  const make = (name: string) => {
    fs.mkdirSync(path.join(home, name), { mode: 0o700 });
    return path.join(home, name);
  };
  const workspace = make('ws');
  fs.writeFileSync(path.join(workspace, 'a.ts'), 'export const a = 1;\n');
  const configDir = make('config');
  fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify({ apiToken: TOKEN }), { mode: 0o600 });
  return { workspace, configDir, dataDir: make('data'), clock: new ManualClock() };
}

async function start(t: TestContext, at: Folders, port?: number): Promise<TestLocal> {
  const local = await startTestLocal({ ...at, ...(port !== undefined ? { port } : {}) });
  t.after(() => local.close());
  return local;
}

const origin = (local: TestLocal) => `http://127.0.0.1:${local.port}`;

/** Signs a window in with the link the app gives: its cookie header and CSRF value. */
async function signIn(local: TestLocal, link = local.signInLink()): Promise<{ cookie: string; csrf: string; value: string }> {
  const code = new URL(link).searchParams.get('code')!;
  const answer = await local.request('POST', '/api/session', { code }, { authorization: '', origin: origin(local) });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json.runsCode, true);
  const value = new RegExp(`^loom_window_${local.port}=([A-Za-z0-9_-]+);`).exec(String(answer.headers['set-cookie']))![1]!;
  return { cookie: `loom_window_${local.port}=${value}`, csrf: answer.json.csrf, value };
}

function session(local: TestLocal, cookie: string) {
  return local.request('GET', '/api/session', undefined, { authorization: '', cookie, origin: origin(local) });
}

describe('a signed-in window across restarts', () => {
  it('still works after a restart on the same data dir; signing out ends it for good', async (t) => {
    const at = folders(t);
    const first = await start(t, at);
    const window = await signIn(first);
    assert.equal((await session(first, window.cookie)).status, 200);
    const port = first.port;
    await first.close();

    const saved = fs.readFileSync(path.join(at.dataDir, SESSIONS_FILE), 'utf8');
    assert.equal(fs.statSync(path.join(at.dataDir, SESSIONS_FILE)).mode & 0o777, 0o600);
    assert.ok(!saved.includes(window.value) && !saved.includes(TOKEN), 'the file holds neither the session id nor the token');

    const second = await start(t, at, port);
    const again = await session(second, window.cookie);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.json, { csrf: window.csrf, runsCode: true });
    // With its CSRF value it writes, as before the restart.
    const open = await second.request(
      'POST',
      '/api/editor/open',
      { path: 'a.ts' },
      { authorization: '', cookie: window.cookie, origin: origin(second), 'x-loom-csrf': window.csrf },
    );
    assert.equal(open.status, 200, open.text);

    const out = await second.request('POST', '/api/session/end', undefined, {
      authorization: '',
      cookie: window.cookie,
      origin: origin(second),
      'x-loom-csrf': window.csrf,
    });
    assert.equal(out.status, 200, out.text);
    await second.close();
    const third = await start(t, at, port);
    assert.equal((await session(third, window.cookie)).status, 401);
  });

  it('rotating the token ends it, then and after a restart', async (t) => {
    const at = folders(t);
    const first = await start(t, at);
    const window = await signIn(first);
    const port = first.port;
    rotateToken(at.configDir);
    await waitFor(async () => (await session(first, window.cookie)).status === 401, undefined, 'the session to end with the old token');
    await first.close();
    const second = await start(t, at, port);
    assert.notEqual(second.token(), TOKEN);
    assert.equal((await session(second, window.cookie)).status, 401);

    // Rotated while the app was stopped: the session saved under the old token ends too.
    const signedIn = await signIn(second);
    await second.close();
    rotateToken(at.configDir);
    const third = await start(t, at, port);
    assert.equal((await session(third, signedIn.cookie)).status, 401);
  });

  it("gives a one-time link on request only with the data dir's link key besides the token", async (t) => {
    const at = folders(t);
    const local = await start(t, at);
    const key = readLinkKey(at.dataDir)!;
    assert.match(key, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(fs.statSync(path.join(at.dataDir, LINK_KEY_FILE)).mode & 0o777, 0o600);

    // The token alone (a script, an extension, an MCP client) gets no link.
    const withoutKey = await local.request('POST', '/api/session/link', {});
    assert.equal(withoutKey.status, 400, withoutKey.text);
    const wrongKey = await local.request('POST', '/api/session/link', { key: 'x'.repeat(43) });
    assert.equal(wrongKey.status, 403, wrongKey.text);
    assert.equal(wrongKey.json.error.code, 'FORBIDDEN');
    // Nor does the key without the token.
    assert.equal((await local.request('POST', '/api/session/link', { key }, { authorization: '' })).status, 401);

    const given = await local.request('POST', '/api/session/link', { key });
    assert.equal(given.status, 200, given.text);
    assert.equal(given.json.expiresIn, 60);
    const link = new URL(given.json.url);
    assert.equal(link.origin, origin(local));
    const window = await signIn(local, given.json.url);
    assert.equal((await session(local, window.cookie)).json.runsCode, true);
    // One time only.
    const reused = await local.request('POST', '/api/session', { code: link.searchParams.get('code') }, { authorization: '', origin: origin(local) });
    assert.equal(reused.status, 401);

    // The key survives a restart of the app: `loom open` reads it from the data dir.
    const port = local.port;
    await local.close();
    await start(t, at, port);
    assert.equal(readLinkKey(at.dataDir), key);
  });
});
