// No secret reaches the local server's log. The real `loom serve` (startLocal, the production
// wiring) logs at `trace`, every level on, into a destination the test reads; the test uses the
// token, buys tickets and opens the event stream with them, presents wrong and spent ones, rotates
// the token and breaks settings.json around it. Then every line is read: none holds any secret
// used, whole or ten characters of it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config/load.ts';
import { randomToken } from '../../src/core/identity/secrets.ts';
import { startLocal, type RunningLocal } from '../../src/local/server.ts';
import { newApiToken, rotateToken } from '../../src/local/settings.ts';
import { captureLog, requestLines, Secrets, type CapturedLog } from '../support/log-lines.ts';
import { waitFor } from '../support/wait.ts';

/** Opens a WebSocket; resolves with it once a message arrives, or with the status it was refused with, or when it closes. */
function openSocket(url: string, headers: Record<string, string> = {}): Promise<{ socket?: WebSocket; status?: number }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.once('message', () => resolve({ socket }));
    socket.once('unexpected-response', (request, response) => {
      resolve({ status: response.statusCode });
      request.destroy();
    });
    socket.once('error', () => resolve({}));
    socket.once('close', () => resolve({}));
  });
}

describe('the local server log', () => {
  let local: RunningLocal;
  let log: CapturedLog;
  let root: string;
  let configDir: string;
  let closed = false;
  const secrets = new Secrets();

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-log-'));
    const workspace = path.join(root, 'workspace');
    configDir = path.join(root, 'config');
    fs.mkdirSync(workspace);
    fs.mkdirSync(configDir, { mode: 0o700 });
    fs.writeFileSync(path.join(workspace, 'README.md'), '# Hello\n');
    const apiToken = newApiToken();
    const webhookSecret = randomToken(24);
    secrets.addRandom(apiToken);
    secrets.addRandom(webhookSecret);
    fs.writeFileSync(
      path.join(configDir, 'settings.json'),
      JSON.stringify({ apiToken, webhooks: [{ url: 'http://127.0.0.1:9/hook', events: ['*'], secret: webhookSecret }] }),
      { mode: 0o600 },
    );
    const configFile = path.join(root, 'config.json');
    fs.writeFileSync(configFile, JSON.stringify({ workspace, configDir, dataDir: path.join(root, 'data'), local: { port: 0 }, logLevel: 'trace' }));
    log = captureLog();
    local = await startLocal(loadConfig({ env: {}, configFile }), undefined, { logDestination: log });
  });
  after(async () => {
    if (!closed) await local?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  function request(method: string, route: string, headers: Record<string, string> = {}, body?: unknown): Promise<number> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: local.port,
          method,
          path: route,
          headers: { host: `127.0.0.1:${local.port}`, ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
        },
        (res) => {
          res.resume().on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  async function ticket(): Promise<string> {
    const response = await fetch(`${local.url}/api/events/ticket`, { method: 'POST', headers: { authorization: `Bearer ${local.token()}` } });
    assert.equal(response.status, 200);
    const { ticket } = (await response.json()) as { ticket: string };
    secrets.addRandom(ticket);
    return ticket;
  }

  it('holds no secret after token use, tickets, a rotated token and a broken settings.json', async () => {
    const bearer = () => ({ authorization: `Bearer ${local.token()}` });
    assert.equal(await request('GET', '/api/health', bearer()), 200);
    assert.equal(await request('POST', '/api/editor/open', bearer(), { path: 'README.md' }), 200);
    const forged = newApiToken();
    secrets.addRandom(forged);
    assert.equal(await request('GET', '/api/health', { authorization: `Bearer ${forged}` }), 401);

    // The event stream: with the token, with a ticket (once), with a spent and a forged ticket.
    const withToken = await openSocket(`ws://127.0.0.1:${local.port}/events`, bearer());
    assert.ok(withToken.socket);
    withToken.socket.close();
    const first = await ticket();
    const withTicket = await openSocket(`ws://127.0.0.1:${local.port}/events?ticket=${first}`);
    assert.ok(withTicket.socket, 'a ticket opens the stream');
    withTicket.socket.close();
    assert.equal((await openSocket(`ws://127.0.0.1:${local.port}/events?ticket=${first}`)).status, 401, 'once');
    const forgedTicket = randomToken(24);
    secrets.addRandom(forgedTicket);
    assert.equal((await openSocket(`ws://127.0.0.1:${local.port}/events?ticket=${forgedTicket}`)).status, 401);
    // A ticket on another route (over HTTP, and with an upgrade), and in the path of one that does not exist.
    const second = await ticket();
    assert.ok((await request('GET', `/api/editor/file?ticket=${second}`)) >= 400);
    const upgrade = await openSocket(`ws://127.0.0.1:${local.port}/api/health?ticket=${second}`);
    upgrade.socket?.close();
    assert.equal(await request('GET', `/api/${second}?ticket=${second}`, bearer()), 404);

    // A rotated token (`loom token --rotate`), picked up by the running server.
    const rotated = rotateToken(configDir);
    secrets.addRandom(rotated);
    await waitFor(() => local.token() === rotated);
    assert.equal(await request('GET', '/api/health', bearer()), 200);

    // settings.json broken by hand around the token: the server says so, without quoting it.
    const settingsFile = path.join(configDir, 'settings.json');
    fs.writeFileSync(settingsFile, `{"apiToken": ${rotated}}`);
    await waitFor(() => log.lines().some((line) => String(line.msg).startsWith('settings.json is invalid')));

    await local.close();
    closed = true;
    assert.ok(secrets.size >= 7, `the test used its secrets (${secrets.size})`);
    secrets.assertAbsentFrom(log.text());
    for (const line of log.text()) assert.doesNotMatch(line, /Bearer |ticket=/);
    const requests = requestLines(log.lines());
    assert.ok(requests.length >= 8, `one line per request (${requests.length})`);
    const upgrades = requests.filter((line) => line.route === '/events').map((line) => line.status);
    assert.equal(upgrades.filter((status) => status === 101).length, 2, 'an upgrade that succeeds gets its line, status 101');
    assert.ok(
      upgrades.some((status) => status === 401),
      'as does one refused',
    );
  });
});
