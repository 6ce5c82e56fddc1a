// followComposerEvents against a small SSE server that cuts the connection after each event:
// the follower reconnects with Last-Event-ID and gets every event once, in order, to the end;
// a refusal (404) is thrown at once, not retried; an event without end is refused at its cap.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { followComposerEvents, readEvents, type ComposerStreamEvent } from '../../src/client/composer-events.ts';
import { HostedApiError } from '../../src/client/hosted.ts';

const EVENTS = [
  { type: 'status', data: { status: 'running' } },
  { type: 'step', data: { turn: 1, kind: 'model', text: 'Looking' } },
  { type: 'edit', data: { file: 'a.txt', action: 'modified' } },
  { type: 'status', data: { status: 'completed' } },
];

async function serve(t: TestContext, handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('followComposerEvents', () => {
  it('resumes with Last-Event-ID after each dropped connection and ends after the final status', async (t) => {
    const asked: (string | undefined)[] = [];
    const url = await serve(t, (req, res) => {
      const after = Number(req.headers['last-event-id'] ?? 0);
      asked.push(req.headers['last-event-id'] as string | undefined);
      assert.equal(req.headers.authorization, 'Bearer key-1');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // One event (with a keep-alive comment), then the connection is cut mid-stream.
      const event = EVENTS[after]!;
      res.write(`: keep-alive\n\nid: ${after + 1}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`, () => res.socket?.destroy());
    });
    const got: ComposerStreamEvent[] = [];
    const reconnects: number[] = [];
    for await (const event of followComposerEvents({
      url,
      token: 'key-1',
      sessionId: '00000000-0000-4000-8000-000000000001',
      backoffMs: () => 1,
      onReconnect: (after) => reconnects.push(after),
    })) {
      got.push(event);
    }
    assert.deepEqual(
      got.map((event) => [event.seq, event.type]),
      [
        [1, 'status'],
        [2, 'step'],
        [3, 'edit'],
        [4, 'status'],
      ],
    );
    assert.deepEqual(asked, [undefined, '1', '2', '3']);
    assert.deepEqual(reconnects, [1, 2, 3]);
  });

  it('throws a refusal at once (404 not_found), without retrying', async (t) => {
    let calls = 0;
    const url = await serve(t, (_req, res) => {
      calls++;
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not_found', message: 'No such session.' }));
    });
    const follow = async () => {
      for await (const _ of followComposerEvents({ url, token: 'k', sessionId: '00000000-0000-4000-8000-000000000002', backoffMs: () => 1 })) void _;
    };
    await assert.rejects(follow, (error: unknown) => error instanceof HostedApiError && error.status === 404 && error.code === 'not_found');
    assert.equal(calls, 1);
  });

  it('reads events however the bytes are cut; an event past the cap is invalid_answer, never retried', async () => {
    const stream = (...chunks: string[]) => new Blob(chunks).stream();
    const got: ComposerStreamEvent[] = [];
    const text = `id: 1\r\nevent: step\ndata: {"a":\ndata: 1}\n\n: comment\n\nid: 2\ndata: {}\n\n`;
    for await (const event of readEvents(stream(...text.split('')), 100)) got.push(event);
    assert.deepEqual(got, [
      { seq: 1, type: 'step', data: { a: 1 } },
      { seq: 2, type: 'message', data: {} },
    ]);
    const tooLong = (error: unknown) =>
      error instanceof HostedApiError && error.code === 'invalid_answer' && /an event of more than 100 bytes/.test(error.message);
    // One line without end, and lines of one event without the blank line that ends it.
    await assert.rejects(async () => {
      for await (const _ of readEvents(stream('data: ', 'x'.repeat(200)), 100)) void _;
    }, tooLong);
    await assert.rejects(async () => {
      for await (const _ of readEvents(stream('id: 1\n', 'data: x\n'.repeat(30)), 100)) void _;
    }, tooLong);
  });

  it('gives up after the retries when the server keeps dropping without an event', async (t) => {
    let calls = 0;
    const url = await serve(t, (_req, res) => {
      calls++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end();
    });
    const follow = async () => {
      for await (const _ of followComposerEvents({ url, token: 'k', sessionId: '00000000-0000-4000-8000-000000000003', retries: 2, backoffMs: () => 1 }))
        void _;
    };
    await assert.rejects(follow, (error: unknown) => error instanceof HostedApiError && error.code === 'unreachable');
    assert.equal(calls, 3);
  });
});
