// The window's sign-in on the real server (startLocal), over plain HTTP and WebSocket: the
// page at / carries no secret; a one-time code buys an HttpOnly, SameSite=Strict cookie and a
// CSRF value, once; with the cookie, reads pass, writes need the CSRF value, the event socket
// opens from this origin; each refusal answers in the local error envelope. Rotating the token
// ends the session. GET /api/files lists a folder without .git and .loom.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { rotateToken } from '../../src/local/settings.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const TOKEN = 'loom_window_session_token_0123456789abcdef';

describe("the window's sign-in", () => {
  let local: TestLocal;
  const cookieName = () => `loom_window_${local.port}`;
  const origin = () => `http://127.0.0.1:${local.port}`;

  before(async () => {
    local = await startTestLocal({
      files: { 'src/a.ts': 'export const a = 1;\n', 'README.md': '# r\n', '.git/config': '[core]\n', '.loom/x.json': '{}' },
      settings: { apiToken: TOKEN },
    });
  });
  after(() => local?.close());

  /** Trades a fresh code for a session: the cookie's value and the CSRF value. */
  async function signIn(): Promise<{ cookie: string; csrf: string; setCookie: string }> {
    const code = new URL(local.signInLink()).searchParams.get('code')!;
    const answer = await local.request('POST', '/api/session', { code }, { authorization: '', origin: origin() });
    assert.equal(answer.status, 200, answer.text);
    const setCookie = String(answer.headers['set-cookie']);
    const value = new RegExp(`^${cookieName()}=([A-Za-z0-9_-]+);`).exec(setCookie)?.[1];
    assert.ok(value, setCookie);
    return { cookie: `${cookieName()}=${value}`, csrf: answer.json.csrf, setCookie };
  }

  it('serves the page with a strict policy and no secret in it', async () => {
    const page = await local.request('GET', '/', undefined, { authorization: '' });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.ok(!page.text.includes(TOKEN));
    const script = await local.request('GET', '/window.js', undefined, { authorization: '' });
    assert.equal(script.status, 200);
    assert.match(String(script.headers['content-type']), /^text\/javascript/);
    assert.ok(!script.text.includes(TOKEN));
  });

  it('serves the chunks window.js imports, cached for good, and no other file by that route', async () => {
    const script = await local.request('GET', '/window.js', undefined, { authorization: '' });
    const names = [...script.text.matchAll(/"\.\/chunks\/([A-Za-z0-9_-]+\.js)"/g)].map((match) => match[1]!);
    assert.ok(names.length > 0, 'window.js names its chunks');
    for (const name of names) {
      const chunk = await local.request('GET', `/chunks/${name}`, undefined, { authorization: '' });
      assert.equal(chunk.status, 200, name);
      assert.match(String(chunk.headers['content-type']), /^text\/javascript/);
      assert.match(String(chunk.headers['cache-control']), /immutable/);
      assert.match(String(chunk.headers['content-security-policy']), /script-src 'self'/);
    }
    // Only a chunk's own name reaches a file, and only in the chunks folder.
    for (const route of [
      '/chunks/..%2Fwindow.js',
      '/chunks/..%2F..%2Fpackage.json',
      '/chunks/%2E%2E%2Fwindow.css',
      '/chunks/../window.js',
      '/chunks/..%5Cwindow.js',
      '/chunks/.hidden.js',
      '/chunks/window.css',
      '/chunks/no-such-chunk-ABCDEFGH.js',
      '/chunks/%2Fetc%2Fpasswd',
    ]) {
      const answer = await local.request('GET', route, undefined, { authorization: '' });
      assert.notEqual(answer.status, 200, route);
      assert.ok(!answer.text.includes('import('), route);
    }
  });

  it('trades a code for an HttpOnly, SameSite=Strict cookie once; a reused code is 401', async () => {
    const code = new URL(local.signInLink()).searchParams.get('code')!;
    const first = await local.request('POST', '/api/session', { code }, { authorization: '', origin: origin() });
    assert.equal(first.status, 200);
    assert.match(String(first.headers['set-cookie']), new RegExp(`^${cookieName()}=[A-Za-z0-9_-]+; Path=/; HttpOnly; SameSite=Strict$`));
    assert.equal(typeof first.json.csrf, 'string');
    const again = await local.request('POST', '/api/session', { code }, { authorization: '', origin: origin() });
    assert.equal(again.status, 401);
    assert.equal(again.json.error.code, 'UNAUTHORIZED');
    assert.equal(again.headers['set-cookie'], undefined);
    const made = await local.request('POST', '/api/session', { code: 'made-up-code' }, { authorization: '' });
    assert.equal(made.status, 401);
    const wrongToken = await local.request('POST', '/api/session', { token: 'not-the-token' }, { authorization: '' });
    assert.equal(wrongToken.status, 401);
    const both = await local.request('POST', '/api/session', { token: TOKEN, code }, { authorization: '' });
    assert.equal(both.status, 400);
    const byToken = await local.request('POST', '/api/session', { token: TOKEN }, { authorization: '' });
    assert.equal(byToken.status, 200);
  });

  it('refuses an expired code', async () => {
    const code = new URL(local.signInLink()).searchParams.get('code')!;
    local.clock.advance(61_000);
    const late = await local.request('POST', '/api/session', { code }, { authorization: '' });
    assert.equal(late.status, 401);
  });

  it('lets the cookie read; no cookie is 401; a write without the CSRF value is 403, with it 200', async () => {
    const { cookie, csrf } = await signIn();
    const none = await local.request('GET', '/api/editor/documents', undefined, { authorization: '' });
    assert.equal(none.status, 401);
    assert.equal(none.json.error.code, 'UNAUTHORIZED');
    const read = await local.request('GET', '/api/session', undefined, { authorization: '', cookie });
    assert.equal(read.status, 200);
    assert.equal(read.json.csrf, csrf);
    const noProof = await local.request('POST', '/api/editor/open', { path: 'src/a.ts' }, { authorization: '', cookie, origin: origin() });
    assert.equal(noProof.status, 403);
    assert.equal(noProof.json.error.code, 'FORBIDDEN');
    const wrongProof = await local.request('POST', '/api/editor/open', { path: 'src/a.ts' }, { authorization: '', cookie, 'x-loom-csrf': 'forged' });
    assert.equal(wrongProof.status, 403);
    const opened = await local.request('POST', '/api/editor/open', { path: 'src/a.ts' }, { authorization: '', cookie, 'x-loom-csrf': csrf, origin: origin() });
    assert.equal(opened.status, 200, opened.text);
    assert.equal(opened.json.path, 'src/a.ts');
    // Another session's CSRF value proves nothing.
    const other = await signIn();
    const crossed = await local.request('POST', '/api/editor/open', { path: 'src/a.ts' }, { authorization: '', cookie, 'x-loom-csrf': other.csrf });
    assert.equal(crossed.status, 403);
  });

  it('refuses a foreign Origin even with the cookie and the CSRF value (403)', async () => {
    const { cookie, csrf } = await signIn();
    const foreign = await local.request(
      'POST',
      '/api/editor/open',
      { path: 'src/a.ts' },
      { authorization: '', cookie, 'x-loom-csrf': csrf, origin: 'http://evil.example' },
    );
    assert.equal(foreign.status, 403);
    assert.equal(foreign.json.error.code, 'FORBIDDEN');
    const rebinding = await local.request('GET', '/api/session', undefined, { authorization: '', cookie, host: 'evil.example' });
    assert.equal(rebinding.status, 403);
  });

  it('opens the event socket with the cookie from this origin, never from another or without one', async () => {
    const { cookie } = await signIn();
    const url = `ws://127.0.0.1:${local.port}/events`;
    const socket = new WebSocket(url, { headers: { cookie, origin: origin() } });
    const hello = await new Promise<any>((resolve, reject) => {
      socket.once('message', (data) => resolve(JSON.parse(String(data))));
      socket.once('error', reject);
    });
    assert.equal(hello.type, 'hello');
    socket.close();
    for (const headers of [{ cookie, origin: 'http://evil.example' }, { cookie }, { origin: origin() }]) {
      const refused = new WebSocket(url, { headers });
      const status = await new Promise<number>((resolve) => {
        refused.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        refused.once('open', () => resolve(101));
        refused.once('error', () => resolve(-1));
      });
      assert.ok(status === 401 || status === 403, `${JSON.stringify(Object.keys(headers))}: ${status}`);
    }
  });

  it('ends every session (and its socket) when the token is rotated; signing out ends one', async () => {
    const { cookie, csrf } = await signIn();
    const socket = new WebSocket(`ws://127.0.0.1:${local.port}/events`, { headers: { cookie, origin: origin() } });
    let closedWith = 0;
    socket.on('close', (code) => (closedWith = code));
    await new Promise((resolve) => socket.once('message', resolve));
    const second = await signIn();
    const out = await local.request('POST', '/api/session/end', undefined, { authorization: '', cookie: second.cookie, 'x-loom-csrf': second.csrf });
    assert.equal(out.status, 200);
    assert.match(String(out.headers['set-cookie']), /Max-Age=0/);
    assert.equal((await local.request('GET', '/api/session', undefined, { authorization: '', cookie: second.cookie })).status, 401);

    rotateToken(local.configDir, () => {});
    await waitFor(
      async () => (await local.request('GET', '/api/session', undefined, { authorization: '', cookie })).status === 401,
      undefined,
      'the session to end',
    );
    await waitFor(() => closedWith === 4401, undefined, 'the socket to close');
    assert.equal((await local.request('POST', '/api/editor/open', { path: 'src/a.ts' }, { authorization: '', cookie, 'x-loom-csrf': csrf })).status, 401);
  });

  it('lists a folder without .git and .loom; inside them is 403; outside the workspace 403', async () => {
    fs.symlinkSync('/etc', path.join(local.workspace, 'etc-link'));
    const root = await local.request('GET', '/api/files');
    assert.equal(root.status, 200);
    assert.deepEqual(root.json, {
      path: '',
      entries: [
        { name: 'src', path: 'src', kind: 'folder' },
        { name: 'README.md', path: 'README.md', kind: 'file' },
      ],
    });
    assert.deepEqual((await local.request('GET', '/api/files?path=src')).json.entries, [{ name: 'a.ts', path: 'src/a.ts', kind: 'file' }]);
    assert.equal((await local.request('GET', '/api/files?path=.git')).json.error.code, 'PROTECTED_PATH');
    assert.equal((await local.request('GET', '/api/files?path=.loom')).status, 403);
    assert.equal((await local.request('GET', '/api/files?path=..')).json.error.code, 'FORBIDDEN_PATH');
    assert.equal((await local.request('GET', '/api/files?path=etc-link')).json.error.code, 'FORBIDDEN_PATH');
    assert.equal((await local.request('GET', '/api/files?path=README.md')).json.error.code, 'NOT_A_FOLDER');
    assert.equal((await local.request('GET', '/api/files?path=missing')).json.error.code, 'NOT_FOUND');
  });
});
