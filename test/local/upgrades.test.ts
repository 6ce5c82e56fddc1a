// WebSocket upgrades on the local server: a refused upgrade closes its socket at once (a web
// page can open thousands a second), a flood of them leaves nothing open and does not lock out
// the user, a ticket opens /events and nothing else, and only /events takes an upgrade.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

/** Only guards against a hang: every wait below ends on a condition. */
const HANG_MS = 15_000;

interface Exchange {
  /** What the server sent. */
  text: string;
  status: number;
  /** Settles when the server ends the connection; rejects if it never does. */
  closedByServer: Promise<void>;
  socket: net.Socket;
}

function upgradeRequest(port: number, target: string, headers: Record<string, string> = {}): string {
  const lines = [
    `GET ${target} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Sends raw bytes and waits for the status line; the client never closes its side on its own. */
function exchange(port: number, request: string): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    let resolved = false;
    const closedByServer = new Promise<void>((closed, never) => {
      const guard = setTimeout(() => never(new Error('the server kept the socket open')), HANG_MS).unref();
      socket.once('end', () => {
        clearTimeout(guard);
        closed();
      });
      socket.once('close', () => {
        clearTimeout(guard);
        closed();
      });
    });
    closedByServer.catch(() => {});
    socket.on('data', (chunk) => {
      text += chunk;
      if (!resolved && text.includes('\r\n\r\n')) {
        resolved = true;
        resolve({ text, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), closedByServer, socket });
      }
    });
    socket.on('error', reject);
  });
}

function bodyOf(text: string): any {
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
}

function openSocket(url: string, headers: Record<string, string> = {}): Promise<{ socket?: WebSocket; status?: number }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (req, res) => {
      resolve({ status: res.statusCode });
      req.destroy();
    });
    socket.once('error', () => resolve({}));
  });
}

describe('WebSocket upgrades', () => {
  let local: TestLocal;
  before(async () => {
    local = await startTestLocal({ files: { 'README.md': '# Project\n' } });
  });
  after(() => local.close());

  async function spentTicket(): Promise<string> {
    const { json } = await local.request('POST', '/api/events/ticket');
    const opened = await openSocket(`ws://127.0.0.1:${local.port}/events?ticket=${json.ticket}`);
    opened.socket!.close();
    return json.ticket;
  }

  for (const [label, headers, status, code] of [
    ['from a foreign Origin', { Origin: 'https://evil.example' }, 403, 'FORBIDDEN'],
    ['without a token', {}, 401, 'UNAUTHORIZED'],
    ['with a spent ticket', {}, 401, 'UNAUTHORIZED'],
  ] as const) {
    it(`closes the socket of an upgrade refused ${label} at once, though the client keeps its end open`, async () => {
      const target = label === 'with a spent ticket' ? `/events?ticket=${await spentTicket()}` : '/events';
      const answer = await exchange(local.port, upgradeRequest(local.port, target, headers));
      assert.equal(answer.status, status);
      assert.match(answer.text, /\r\nconnection: close\r\n/i);
      await answer.closedByServer;
      assert.equal(bodyOf(answer.text).error.code, code);
      answer.socket.destroy();
    });
  }

  it('leaves no socket open after a flood of refused upgrades, and serves its user meanwhile', async () => {
    const baseline = await local.openConnections();
    const attempts = Array.from({ length: 400 }, async (_, i) => {
      const answer = await exchange(local.port, upgradeRequest(local.port, '/events', i % 2 ? { Origin: 'https://evil.example' } : {}));
      // Some clients leave at once (as a browser page does); the others never close.
      if (i % 3 === 0) answer.socket.end();
      await answer.closedByServer;
      answer.socket.destroy();
      return answer.status;
    });
    const served = await local.request('GET', '/api/health');
    assert.equal(served.status, 200, 'the user is served during the flood');
    const statuses = await Promise.all(attempts);
    assert.deepEqual([...new Set(statuses)].sort(), [401, 403]);
    await waitFor(async () => (await local.openConnections()) <= baseline, HANG_MS);
    assert.equal((await local.request('GET', '/api/health')).status, 200);
  });

  it('answers GET /events without an upgrade with 426 UPGRADE_REQUIRED and Upgrade: websocket', async () => {
    const res = await local.request('GET', '/events');
    assert.equal(res.status, 426);
    assert.equal(res.headers.upgrade, 'websocket');
    assert.equal(res.json.error.code, 'UPGRADE_REQUIRED');
  });

  it('refuses an upgrade to a route that is not a WebSocket, even with the token, and closes it', async () => {
    const answer = await exchange(local.port, upgradeRequest(local.port, '/api/health', { Authorization: `Bearer ${local.token()}` }));
    assert.equal(answer.status, 400);
    assert.equal(bodyOf(answer.text).error.code, 'BAD_REQUEST');
    await answer.closedByServer;
    answer.socket.destroy();
  });

  describe('a ticket', () => {
    it('opens /events and nothing else: not a save, with or without a real upgrade', async () => {
      const readme = path.join(local.workspace, 'README.md');
      await local.request('POST', '/api/editor/open', { path: 'README.md' });
      await local.request('POST', '/api/editor/insert', { text: 'unsaved ', line: 1 });
      const { json } = await local.request('POST', '/api/events/ticket');
      const ticket = json.ticket as string;

      // An Upgrade header on a plain request does not make it an upgrade.
      const plain = await local.request('POST', `/api/editor/save?ticket=${ticket}`, { path: 'README.md' }, { authorization: '', upgrade: 'websocket' });
      assert.equal(plain.status, 401);
      assert.equal(plain.json.error.code, 'UNAUTHORIZED');
      // A real upgrade to another route is no better.
      const upgrade = await exchange(local.port, upgradeRequest(local.port, `/api/editor/file?ticket=${ticket}`));
      assert.equal(upgrade.status, 401);
      await upgrade.closedByServer;
      upgrade.socket.destroy();
      const health = await local.request('GET', `/api/health?ticket=${ticket}`, undefined, { authorization: '' });
      assert.equal(health.status, 401);
      assert.equal(fs.readFileSync(readme, 'utf8'), '# Project\n', 'nothing was saved');

      // Those attempts did not spend it: it opens the event stream, once.
      const url = `ws://127.0.0.1:${local.port}/events?ticket=${ticket}`;
      const opened = await openSocket(url, { origin: `http://127.0.0.1:${local.port}` });
      assert.ok(opened.socket, 'the ticket opens /events');
      opened.socket!.close();
      assert.equal((await openSocket(url)).status, 401, 'a ticket works once');
    });
  });
});
