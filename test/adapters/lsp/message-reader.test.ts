// The reader of a language server's output: LSP framing read in one pass, each message within
// the cap, and refusals (a huge Content-Length, a header that never ends, a length that is not
// digits, a body that is not JSON) as errors at once, before anything is buffered.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { CappedMessageReader } from '../../../src/adapters/lsp/message-reader.ts';
import { waitFor } from '../../support/wait.ts';

function frame(message: object): Buffer {
  const body = Buffer.from(JSON.stringify(message));
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n`), body]);
}

function reading(maxBytes = 1024 * 1024) {
  const stream = new PassThrough();
  const reader = new CappedMessageReader(stream, maxBytes);
  /** What the connection would get: JSON-RPC messages, read here by their params. */
  const messages: { params?: { n?: number; i?: number; text?: string } }[] = [];
  const errors: Error[] = [];
  reader.onError((error) => errors.push(error));
  reader.listen((message) => messages.push(message as (typeof messages)[number]));
  return { stream, messages, errors };
}

describe('CappedMessageReader', () => {
  it('reads messages however the bytes are cut into chunks, in order', async () => {
    const all = Buffer.concat([1, 2, 3].map((n) => frame({ jsonrpc: '2.0', method: 'note', params: { n, text: 'é€😀'.repeat(n) } })));
    for (const size of [1, 2, 3, 7, 16, all.length]) {
      const { stream, messages, errors } = reading();
      for (let at = 0; at < all.length; at += size) stream.write(all.subarray(at, at + size));
      await waitFor(() => messages.length === 3, undefined, `three messages in chunks of ${size}`);
      assert.deepEqual(
        messages.map((message) => message.params?.n),
        [1, 2, 3],
      );
      assert.equal(messages[2]!.params?.text, 'é€😀'.repeat(3));
      assert.deepEqual(errors, []);
    }
  });

  it('hands over thousands of small messages of one chunk one at a time, all of them', async () => {
    const { stream, messages } = reading();
    stream.write(Buffer.concat(Array.from({ length: 5000 }, (_, i) => frame({ jsonrpc: '2.0', method: 'window/logMessage', params: { i } }))));
    // The stream is paused while they are handed over: what is not handed over yet is the reader's own, not the connection's queue.
    assert.ok(messages.length < 5000);
    await waitFor(() => messages.length === 5000, undefined, 'every message');
    assert.equal(messages[4999]!.params?.i, 4999);
  });

  it('refuses a message announced over the cap at once, before its body arrives', async () => {
    const { stream, messages, errors } = reading(1024 * 1024);
    stream.write('Content-Length: 10737418240\r\n\r\n{"jsonrpc":"2.0"');
    await waitFor(() => errors.length === 1, undefined, 'the refusal');
    assert.match(errors[0]!.message, /announced a message of 10737418240 bytes, over the cap of 1048576/);
    // Nothing more is read: the rest of the message is not buffered.
    stream.write('a'.repeat(1024 * 1024));
    stream.write(frame({ jsonrpc: '2.0', method: 'late' }));
    assert.deepEqual(messages, []);
    assert.equal(errors.length, 1);
  });

  it('refuses a header section that never ends, whatever the chunks', async () => {
    for (const size of [1, 100, 64 * 1024]) {
      const { stream, errors } = reading();
      const endless = Buffer.from('X-Padding: ' + 'a'.repeat(64 * 1024));
      for (let at = 0; at < endless.length && errors.length === 0; at += size) stream.write(endless.subarray(at, at + size));
      await waitFor(() => errors.length === 1, undefined, `the refusal in chunks of ${size}`);
      assert.match(errors[0]!.message, /header section over 8192 bytes/);
    }
  });

  it('refuses a Content-Length that is not digits, a missing one, and a body that is not JSON', async () => {
    const cases: [string, RegExp][] = [
      ['Content-Length: 12abc\r\n\r\n', /Content-Length that is not a number of bytes: "12abc"/],
      ['Content-Length: -5\r\n\r\n', /Content-Length that is not a number of bytes: "-5"/],
      ['Content-Type: application/json\r\n\r\n{}', /without a Content-Length/],
      ['Content-Length: 5\r\n\r\nhello', /not JSON/],
      ['Content-Length: 2\r\n\r\n[]', /not a JSON-RPC object/],
      ['Content-Length: 2\r\nContent-Type: application/json; charset=utf-16\r\n\r\n{}', /charset other than UTF-8/],
    ];
    for (const [bytes, refusal] of cases) {
      const { stream, messages, errors } = reading();
      stream.write(bytes);
      await waitFor(() => errors.length === 1, undefined, JSON.stringify(bytes));
      assert.match(errors[0]!.message, refusal);
      assert.deepEqual(messages, []);
    }
  });
});
