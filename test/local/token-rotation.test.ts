// Rotating the token (`loom token --rotate`) while the server runs closes every event socket
// the old token opened — by header or by a ticket bought with it — with a close code and reason
// a client can act on, and a ticket bought with the old token opens nothing afterwards.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { TOKEN_ROTATED_CLOSE } from '../../src/local/events-socket.ts';
import { rotateToken } from '../../src/local/settings.ts';
import { startTestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

interface Client {
  socket: WebSocket;
  messages: any[];
  /** How the server closed it, once it has. */
  closed?: { code: number; reason: string };
}

function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    const client: Client = { socket, messages: [] };
    socket.once('close', (code, reason) => (client.closed = { code, reason: String(reason) }));
    socket.on('message', (data) => client.messages.push(JSON.parse(String(data))));
    socket.once('message', () => resolve(client));
    socket.once('error', reject);
  });
}

function refusedStatus(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    socket.once('open', () => {
      socket.close();
      resolve(undefined);
    });
    socket.once('unexpected-response', (req, res) => {
      resolve(res.statusCode);
      req.destroy();
    });
  });
}

describe('rotating the token', () => {
  it('closes the sockets the old token opened with 4401, and refuses tickets bought with it', async (t) => {
    const local = await startTestLocal();
    t.after(() => local.close());
    const events = `ws://127.0.0.1:${local.port}/events`;
    const byHeader = await connect(events, { authorization: `Bearer ${local.token()}` });
    const byTicket = await connect(`${events}?ticket=${(await local.request('POST', '/api/events/ticket')).json.ticket}`);
    const unspent = (await local.request('POST', '/api/events/ticket')).json.ticket as string;
    t.after(() => [byHeader, byTicket].forEach((client) => client.socket.terminate()));

    const rotated = rotateToken(local.configDir);
    await waitFor(() => local.token() === rotated, 10_000);
    await waitFor(() => byHeader.closed !== undefined && byTicket.closed !== undefined, 10_000);
    const expected = { code: TOKEN_ROTATED_CLOSE.code, reason: TOKEN_ROTATED_CLOSE.reason };
    assert.deepEqual(byHeader.closed, expected);
    assert.deepEqual(byTicket.closed, expected);
    assert.match(expected.reason, /^TOKEN_ROTATED/);
    assert.equal(await refusedStatus(`${events}?ticket=${unspent}`), 401, 'a ticket bought with the old token');
    assert.equal(local.eventStream.clients(), 0);

    // What the new token opens stays open through other changes of settings.json, and gets events.
    const fresh = await connect(events, { authorization: `Bearer ${rotated}` });
    t.after(() => fresh.socket.terminate());
    const file = path.join(local.configDir, 'settings.json');
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), rateLimits: { default: 99 } }));
    await waitFor(async () => (await local.request('GET', '/api/health')).headers['ratelimit-limit'] === '99', 10_000);
    await local.events.emit('file:open', { path: 'a.txt', language: 'plaintext' });
    await waitFor(() => fresh.messages.some((message) => message.type === 'file:open'), 10_000);
    assert.equal(fresh.socket.readyState, WebSocket.OPEN);
  });
});
