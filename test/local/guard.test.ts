// The local server's front door: loopback Host only, the editor's own Origin only, the token on
// every route and on the WebSocket, compared in constant time; the local error envelope.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

function openSocket(url: string, headers: Record<string, string> = {}): Promise<{ socket?: WebSocket; status?: number; first?: unknown }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.once('message', (data) => resolve({ socket, first: JSON.parse(String(data)) }));
    socket.once('unexpected-response', (req, res) => {
      resolve({ status: res.statusCode });
      req.destroy();
    });
    socket.once('error', () => resolve({}));
  });
}

describe('local server guard', () => {
  let local: TestLocal;
  before(async () => {
    local = await startTestLocal();
  });
  after(() => local.close());

  it('answers GET /api/health with status, version and uptime', async () => {
    local.clock.advance(1500);
    const res = await local.request('GET', '/api/health');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json).sort(), ['status', 'uptime', 'version']);
    assert.equal(res.json.status, 'ok');
    assert.equal(res.json.uptime, 1.5);
  });

  for (const [label, authorization] of [
    ['no token', ''],
    ['a wrong token', 'Bearer nope'],
    ['the token with one character changed', 'Bearer x'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
  ] as const) {
    it(`refuses ${label} with 401 UNAUTHORIZED in the local envelope`, async () => {
      const res = await local.request('GET', '/api/health', undefined, {
        authorization: authorization === 'Bearer x' ? `Bearer ${local.token().slice(0, -1)}x` : authorization,
      });
      assert.equal(res.status, 401);
      assert.equal(res.json.error.code, 'UNAUTHORIZED');
      assert.equal(typeof res.json.error.message, 'string');
    });
  }

  for (const host of ['evil.com', `evil.com:${0}`, 'localhost', '127.0.0.1:1', 'localhost.evil.com', '127.0.0.1.nip.io', '[::2]']) {
    it(`refuses Host ${host} with 403 (DNS rebinding)`, async () => {
      const res = await local.request('GET', '/api/health', undefined, { host: host.replace(':0', `:${local.port}`) });
      assert.equal(res.status, 403);
      assert.equal(res.json.error.code, 'FORBIDDEN');
    });
  }

  it('accepts localhost, 127.0.0.1 and [::1] on its own port', async () => {
    for (const host of [`localhost:${local.port}`, `127.0.0.1:${local.port}`, `[::1]:${local.port}`]) {
      assert.equal((await local.request('GET', '/api/health', undefined, { host })).status, 200, host);
    }
  });

  for (const origin of ['https://evil.com', 'http://localhost:1', 'null', `http://127.0.0.1:${0}.evil.com`]) {
    it(`refuses Origin ${origin} with 403`, async () => {
      const res = await local.request('GET', '/api/health', undefined, { origin: origin.replace(':0', `:${local.port}`) });
      assert.equal(res.status, 403);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
    });
  }

  it("accepts the editor's own origin and never sends Access-Control-Allow-Origin: *", async () => {
    const res = await local.request('GET', '/api/health', undefined, { origin: `http://127.0.0.1:${local.port}` });
    assert.equal(res.status, 200);
    assert.notEqual(res.headers['access-control-allow-origin'], '*');
  });

  it('answers malformed HTTP with a 4xx and keeps serving', async () => {
    const raw = await new Promise<string>((resolve) => {
      const socket = net.connect(local.port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: \x00\x01\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('close', () => resolve(data));
    });
    assert.match(raw, /^HTTP\/1\.1 4\d\d/);
    assert.equal((await local.request('GET', '/api/health')).status, 200);
  });

  it('answers an unknown route with 404 NOT_FOUND', async () => {
    const res = await local.request('GET', '/api/nope');
    assert.equal(res.status, 404);
    assert.equal(res.json.error.code, 'NOT_FOUND');
  });

  describe('the event WebSocket', () => {
    it('needs the token: refused without one, accepted with the header', async () => {
      const refused = await openSocket(`ws://127.0.0.1:${local.port}/events`);
      assert.equal(refused.status, 401);
      const accepted = await openSocket(`ws://127.0.0.1:${local.port}/events`, { authorization: `Bearer ${local.token()}` });
      assert.deepEqual(accepted.first, { type: 'hello', seq: 0, version: (accepted.first as { version: string }).version });
      accepted.socket!.close();
    });

    it('lets a browser page in with a single-use ticket bought with the token', async () => {
      const { json } = await local.request('POST', '/api/events/ticket');
      assert.equal(json.expiresIn, 30);
      const url = `ws://127.0.0.1:${local.port}/events?ticket=${json.ticket}`;
      const first = await openSocket(url, { origin: `http://127.0.0.1:${local.port}` });
      assert.ok(first.socket);
      first.socket!.close();
      assert.equal((await openSocket(url)).status, 401, 'a ticket works once');
    });

    it('refuses an expired ticket', async () => {
      const { json } = await local.request('POST', '/api/events/ticket');
      local.clock.advance(31_000);
      assert.equal((await openSocket(`ws://127.0.0.1:${local.port}/events?ticket=${json.ticket}`)).status, 401);
    });

    it('refuses a foreign Origin and a foreign Host on the upgrade', async () => {
      const headers = { authorization: `Bearer ${local.token()}` };
      assert.equal((await openSocket(`ws://127.0.0.1:${local.port}/events`, { ...headers, origin: 'https://evil.com' })).status, 403);
      assert.equal((await openSocket(`ws://127.0.0.1:${local.port}/events`, { ...headers, host: 'evil.com' })).status, 403);
    });
  });

  describe('settings.json', () => {
    it('applies a rotated token without a restart, and keeps the last good settings when the file is invalid', async () => {
      const old = local.token();
      const file = path.join(local.configDir, 'settings.json');
      const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      fs.writeFileSync(file, JSON.stringify({ ...settings, apiToken: 'loom_rotated_token_for_the_test_0123456789' }));
      await waitFor(() => local.token() === 'loom_rotated_token_for_the_test_0123456789');
      assert.equal((await local.request('GET', '/api/health', undefined, { authorization: `Bearer ${old}` })).status, 401);
      assert.equal((await local.request('GET', '/api/health')).status, 200);

      // Each bad file is waited for until the server has read it and said what is wrong.
      fs.writeFileSync(file, '{"apiToken": ');
      await waitFor(() => local.settings.problems.some((problem) => problem.startsWith('not valid JSON')));
      assert.equal(local.token(), 'loom_rotated_token_for_the_test_0123456789', 'invalid file ignored');
      fs.writeFileSync(file, JSON.stringify({ apiToken: 'short' }));
      await waitFor(() => local.settings.problems.some((problem) => problem.startsWith('/apiToken')));
      assert.equal(local.token(), 'loom_rotated_token_for_the_test_0123456789', 'a too short token is invalid too');
    });
  });
});
