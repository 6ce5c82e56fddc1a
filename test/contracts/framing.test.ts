// The bounded readers of byte streams (src/contracts/framing.ts): lines and Content-Length
// frames come out the same however the bytes are cut into chunks; a message past the cap is
// reported once, with its first bytes, and the next one reads as usual; what a reader holds never
// passes its cap; a capped body stops reading at the cap.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ContentLengthFramer, LineFramer, readCapped, type Frame } from '../../src/contracts/framing.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

/** `data` cut at `cuts` (positions, any order), each piece pushed; then end(). */
function pushAll(framer: { push(chunk: Uint8Array): Frame[]; end?(): Frame[] }, data: Uint8Array, cuts: number[]): Frame[] {
  const points = [...new Set(cuts.map((cut) => cut % (data.byteLength + 1)))].sort((a, b) => a - b);
  const frames: Frame[] = [];
  let from = 0;
  for (const point of [...points, data.byteLength]) {
    frames.push(...framer.push(data.subarray(from, point)));
    from = point;
  }
  frames.push(...(framer.end?.() ?? []));
  return frames;
}

describe('LineFramer', () => {
  it('gives the same lines however the input is cut, a \\r before a newline dropped, multi-byte characters whole', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme' }).map((line) => line.replace(/[\r\n]/g, '')),
          { maxLength: 12 },
        ),
        fc.boolean(),
        fc.array(fc.nat()),
        (lines, crlf, cuts) => {
          const text = lines.map((line) => `${line}${crlf ? '\r\n' : '\n'}`).join('');
          const frames = pushAll(new LineFramer({ maxMessageBytes: 1 << 20 }), bytes(text), cuts);
          assert.deepEqual(
            frames,
            lines.map((line) => ({ kind: 'message', text: line })),
          );
        },
      ),
    );
  });

  it('reports a line past the cap once, as soon as it passes it, with its first bytes; skips the rest of it; reads the next line', () => {
    const framer = new LineFramer({ maxMessageBytes: 10, headBytes: 4 });
    assert.deepEqual(framer.push(bytes('{"id":7,')), []);
    assert.deepEqual(framer.push(bytes('"x":"0123456789')), [{ kind: 'oversize', head: '{"id', limit: 10 }]);
    // The rest of the long line is dropped as it comes; nothing is held.
    assert.deepEqual(framer.push(bytes('a'.repeat(1000))), []);
    assert.deepEqual(framer.push(bytes('"}\nshort\n0123456789\n')), [
      { kind: 'message', text: 'short' },
      { kind: 'message', text: '0123456789' },
    ]);
    assert.deepEqual(framer.push(bytes('01234567890\n')), [{ kind: 'oversize', head: '0123', limit: 10 }]);
    assert.deepEqual(framer.push(bytes('last')), []);
    assert.deepEqual(framer.end(), [{ kind: 'message', text: 'last' }]);
  });

  it('any input, cut anywhere: each line within the cap comes out whole, each longer one as one oversize frame', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', 'é', '\n'), maxLength: 40 })), fc.array(fc.nat()), (parts, cuts) => {
        const text = parts.join('');
        const frames = pushAll(new LineFramer({ maxMessageBytes: 8, headBytes: 2 }), bytes(text), cuts);
        const lines = text.split('\n');
        if (lines.at(-1) === '') lines.pop();
        assert.deepEqual(
          frames.map((frame) => (frame.kind === 'message' ? frame.text : frame.kind)),
          lines.map((line) => (bytes(line).byteLength > 8 ? 'oversize' : line)),
        );
      }),
    );
  });
});

describe('ContentLengthFramer', () => {
  const message = (body: string, extraHeader = '') => `Content-Length: ${bytes(body).byteLength}\r\n${extraHeader}\r\n${body}`;

  it('gives the same messages however the input is cut; other headers are ignored', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 30 }), { maxLength: 8 }), fc.array(fc.nat()), (bodies, cuts) => {
        const text = bodies.map((body, i) => message(body, i % 2 ? 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n' : '')).join('');
        assert.deepEqual(
          pushAll(new ContentLengthFramer({ maxMessageBytes: 1 << 20 }), bytes(text), cuts),
          bodies.map((body) => ({ kind: 'message', text: body })),
        );
      }),
    );
  });

  it('skips a message longer than the cap (reported with its first bytes) and reads the next; bad headers end the framing', () => {
    const framer = new ContentLengthFramer({ maxMessageBytes: 8, headBytes: 3 });
    assert.deepEqual(framer.push(bytes(message('{"id":1,"long":true}') + message('{"id":2}'))), [
      { kind: 'oversize', head: '{"i', limit: 8 },
      { kind: 'message', text: '{"id":2}' },
    ]);
    assert.deepEqual(framer.push(bytes('Content-Type: x\r\n\r\n{}')), [{ kind: 'invalid', reason: 'a message without a valid Content-Length header' }]);
    assert.deepEqual(framer.push(bytes(message('{}'))), [], 'nothing is read after the framing is lost');
    const endless = new ContentLengthFramer({ maxMessageBytes: 8 });
    assert.deepEqual(endless.push(bytes('X'.repeat(9000))), [{ kind: 'invalid', reason: 'headers longer than 8192 bytes' }]);
  });
});

describe('readCapped', () => {
  async function* chunks(count: number, size: number, read: { chunks: number; returned: boolean }) {
    try {
      for (let i = 0; i < count; i++) {
        read.chunks++;
        yield new Uint8Array(size).fill(0x61);
      }
    } finally {
      read.returned = true;
    }
  }

  it('reads a body within the cap whole, and stops at the cap, keeping exactly its first bytes, for a longer one', async () => {
    const small = { chunks: 0, returned: false };
    const whole = await readCapped(chunks(3, 10, small), 30);
    assert.deepEqual([whole.bytes.byteLength, whole.truncated], [30, false]);
    const endless = { chunks: 0, returned: false };
    const cut = await readCapped(chunks(Number.MAX_SAFE_INTEGER, 10, endless), 25);
    assert.deepEqual([cut.bytes.byteLength, cut.truncated, endless.chunks, endless.returned], [25, true, 3, true]);
    assert.deepEqual(await readCapped(null, 10), { bytes: new Uint8Array(0), truncated: false });
  });
});
