// The event stream: sequence numbers, every connected client gets each event, and a client
// that stops reading neither blocks the others nor makes the server buffer without bound.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { MAX_BUFFERED_BYTES } from '../../src/local/events-socket.ts';
import { startTestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

function connect(port: number, token: string): Promise<{ socket: WebSocket; messages: any[] }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/events`, { headers: { authorization: `Bearer ${token}` } });
    const messages: any[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    socket.once('message', () => resolve({ socket, messages }));
    socket.once('error', reject);
  });
}

describe('event stream', () => {
  it('numbers events one by one and sends each to every client', async (t) => {
    const local = await startTestLocal({ files: { 'a.txt': 'a', 'b.txt': 'b' } });
    t.after(() => local.close());
    const clients = await Promise.all([connect(local.port, local.token()), connect(local.port, local.token())]);
    t.after(() => clients.forEach((c) => c.socket.close()));
    for (const path of ['a.txt', 'b.txt', 'a.txt']) await local.request('POST', '/api/editor/open', { path });
    await waitFor(() => clients.every((c) => c.messages.length >= 4));
    for (const { messages } of clients) {
      assert.deepEqual(
        messages.map((m) => m.type),
        ['hello', 'file:open', 'file:open', 'file:open'],
      );
      assert.deepEqual(
        messages.slice(1).map((m) => m.seq),
        [1, 2, 3],
      );
      assert.deepEqual(Object.keys(messages[1]).sort(), ['data', 'seq', 'time', 'type']);
    }
  });

  it('drops events for a client that stops reading, without slowing the others or buffering without bound', async (t) => {
    const local = await startTestLocal({ files: { 'big.txt': 'x'.repeat(10) } });
    t.after(() => local.close());
    const reader = await connect(local.port, local.token());
    const stalled = await connect(local.port, local.token());
    t.after(() => [reader, stalled].forEach((c) => c.socket.terminate()));
    // The stalled client stops reading: the server's writes to it pile up in its buffers.
    (stalled.socket as unknown as { _socket: { pause(): void } })._socket.pause();

    const total = 3000;
    // Large payloads so that the stalled client's buffer fills quickly.
    const padding = 'p'.repeat(4096);
    for (let i = 0; i < total; i++) {
      await local.events.emit('file:save', { path: 'big.txt', version: i, padding });
      // A live editor emits in bursts, not 12 MB at once: let the reading client catch up
      // after each burst (it reads in this same process); the stalled one never does.
      if (i % 50 === 49) await waitFor(() => reader.messages.length >= i + 2);
    }
    // The reading client gets every event while the stalled one still reads nothing: the
    // server never waits for a client to drain.
    await waitFor(() => reader.messages.length >= total + 1);
    assert.equal(reader.messages.length, total + 1, 'the reading client got every event');
    assert.equal(stalled.messages.length, 1, 'the stalled client read nothing but its hello');
    const seqs = reader.messages.slice(1).map((m) => m.seq);
    assert.deepEqual(
      seqs,
      Array.from({ length: total }, (_, i) => i + 1),
    );
    // ~12 MB was emitted: the stalled client had most of it dropped, and what waits for it stays
    // near the bound (plus one message, and what the kernel's socket buffers took).
    assert.ok(local.eventStream.dropped() > total / 2, `dropped ${local.eventStream.dropped()}`);
    assert.ok(local.eventStream.maxBuffered() <= MAX_BUFFERED_BYTES + 8192, `buffered ${local.eventStream.maxBuffered()}`);
  });
});
