// Reading messages from a byte stream someone else writes: a model's SSE, an extension's
// channel, an MCP client's stdin, a language server's output. Every reader here has a cap per
// message, holds at most that much, and touches each byte a bounded number of times: a chunk is
// searched once for its delimiter, and a message's bytes are joined once, when it is complete.
// (Joining the buffer on every chunk, or searching it again from its start, makes a message that
// never ends cost quadratic time.) What goes past a cap is reported as a frame of its own, with
// the message's first bytes, so that the caller decides: refuse it and go on, or stop.
//
// Plain TypeScript over Uint8Array and TextDecoder, with nothing of ours: every layer may use it.

/** One thing read: a whole message, or one that passed the cap (its first bytes kept), or framing that cannot go on. */
export type Frame =
  | { kind: 'message'; text: string }
  | {
      kind: 'oversize';
      /** The message's first bytes (up to `headBytes`), decoded: enough to name it, e.g. its JSON-RPC id. */
      head: string;
      /** The cap it passed. */
      limit: number;
    }
  | { kind: 'invalid'; reason: string };

export interface FramerOptions {
  /** Largest message, in bytes (without its delimiter or headers). */
  maxMessageBytes: number;
  /** Bytes of an oversize message kept as its `head`. Default 4096. */
  headBytes?: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const DEFAULT_HEAD_BYTES = 4096;

/** Bytes waiting to become a message: the pieces as they came, joined once. */
class Pending {
  private pieces: Uint8Array[] = [];
  bytes = 0;

  add(piece: Uint8Array): void {
    if (piece.byteLength === 0) return;
    this.pieces.push(piece);
    this.bytes += piece.byteLength;
  }

  /** The pieces joined (and forgotten). */
  take(): Uint8Array {
    const pieces = this.pieces;
    this.clear();
    if (pieces.length === 1) return pieces[0]!;
    const joined = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.byteLength, 0));
    let at = 0;
    for (const piece of pieces) {
      joined.set(piece, at);
      at += piece.byteLength;
    }
    return joined;
  }

  /** The first `max` bytes held, then `extra` (forgotten after). */
  head(max: number, extra: Uint8Array = new Uint8Array(0)): Uint8Array {
    const out = new Uint8Array(Math.min(max, this.bytes + extra.byteLength));
    let at = 0;
    for (const piece of [...this.pieces, extra]) {
      if (at >= out.byteLength) break;
      const part = piece.subarray(0, out.byteLength - at);
      out.set(part, at);
      at += part.byteLength;
    }
    return out;
  }

  clear(): void {
    this.pieces = [];
    this.bytes = 0;
  }
}

/**
 * Splits a byte stream into lines (`\n`, a `\r` before it dropped), each decoded as UTF-8 (bad
 * bytes become U+FFFD). A line longer than the cap is reported once as `oversize` as soon as it
 * passes it, and the rest of it, up to its newline, is skipped: the next line reads as usual.
 *
 * @example
 *   const lines = new LineFramer({ maxMessageBytes: 10 * 1024 * 1024 });
 *   stdin.on('data', (chunk) => {
 *     for (const frame of lines.push(chunk)) if (frame.kind === 'message') handle(frame.text);
 *   });
 *   stdin.on('end', () => lines.end().forEach(...));
 */
export class LineFramer {
  private readonly pending = new Pending();
  private readonly decoder = new TextDecoder();
  private readonly max: number;
  private readonly headBytes: number;
  /** Inside a line that passed the cap: bytes are dropped until its newline. */
  private skipping = false;

  constructor(options: FramerOptions) {
    this.max = options.maxMessageBytes;
    this.headBytes = options.headBytes ?? DEFAULT_HEAD_BYTES;
  }

  /** The lines this chunk completes (or the one it makes too long). */
  push(chunk: Uint8Array): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    while (start <= chunk.byteLength) {
      // Whole lines inside a chunk no longer than the cap: decoded at once and split (a newline
      // byte is never part of a longer UTF-8 sequence), much faster than a decode per line.
      if (!this.skipping && this.pending.bytes === 0 && chunk.byteLength <= this.max) {
        const last = chunk.lastIndexOf(NEWLINE);
        if (last >= start) {
          for (const line of this.decoder.decode(chunk.subarray(start, last)).split('\n'))
            frames.push({ kind: 'message', text: line.endsWith('\r') ? line.slice(0, -1) : line });
          start = last + 1;
        }
      }
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.byteLength : newline;
      const piece = chunk.subarray(start, end);
      if (!this.skipping) {
        // A `\r` ending the line does not count against the cap.
        const counted = newline !== -1 && piece.at(-1) === CARRIAGE_RETURN ? piece.byteLength - 1 : piece.byteLength;
        if (this.pending.bytes + counted > this.max) {
          frames.push({ kind: 'oversize', head: this.decoder.decode(this.pending.head(this.headBytes, piece)), limit: this.max });
          this.pending.clear();
          this.skipping = newline === -1;
        } else if (newline === -1) {
          this.pending.add(piece);
        } else {
          this.pending.add(piece);
          frames.push({ kind: 'message', text: this.decode(this.pending.take()) });
        }
      } else if (newline !== -1) {
        this.skipping = false;
      }
      if (newline === -1) break;
      start = newline + 1;
    }
    return frames;
  }

  /** The input ended: its last line, when it had no newline. */
  end(): Frame[] {
    if (this.skipping || this.pending.bytes === 0) {
      this.skipping = false;
      this.pending.clear();
      return [];
    }
    return [{ kind: 'message', text: this.decode(this.pending.take()) }];
  }

  private decode(bytes: Uint8Array): string {
    const length = bytes.at(-1) === CARRIAGE_RETURN ? bytes.byteLength - 1 : bytes.byteLength;
    return this.decoder.decode(bytes.subarray(0, length));
  }
}

/** Most bytes of a message's headers (`Content-Length: …\r\n…\r\n\r\n`). */
const MAX_HEADER_BYTES = 8192;
const HEADERS_END = [CARRIAGE_RETURN, NEWLINE, CARRIAGE_RETURN, NEWLINE];

/**
 * Splits a byte stream framed as the Language Server Protocol frames it: headers
 * (`Content-Length: N`, others ignored) ending in an empty line, then N bytes of UTF-8. A
 * message whose length passes the cap is reported as `oversize` and its N bytes are skipped;
 * headers that cannot be read (no or a bad `Content-Length`, more than 8 KiB of them) are
 * `invalid`, and nothing after them is read: the framing is lost.
 *
 * @example
 *   const frames = new ContentLengthFramer({ maxMessageBytes: 64 * 1024 * 1024 });
 *   server.stdout.on('data', (chunk) => frames.push(chunk).forEach(handle));
 */
export class ContentLengthFramer {
  private readonly pending = new Pending();
  private readonly decoder = new TextDecoder();
  private readonly max: number;
  private readonly headBytes: number;
  /** Headers read so far (bounded by MAX_HEADER_BYTES). */
  private header: number[] = [];
  /** The body being read: bytes still due, and whether they are kept or skipped. */
  private body: { due: number; keep: boolean } | undefined;
  private broken = false;

  constructor(options: FramerOptions) {
    this.max = options.maxMessageBytes;
    this.headBytes = options.headBytes ?? DEFAULT_HEAD_BYTES;
  }

  push(chunk: Uint8Array): Frame[] {
    const frames: Frame[] = [];
    let at = 0;
    while (at < chunk.byteLength && !this.broken) {
      if (this.body) {
        const take = Math.min(this.body.due, chunk.byteLength - at);
        if (this.body.keep) this.pending.add(chunk.subarray(at, at + take));
        at += take;
        this.body.due -= take;
        if (this.body.due === 0) {
          if (this.body.keep) frames.push({ kind: 'message', text: this.decoder.decode(this.pending.take()) });
          this.body = undefined;
        }
        continue;
      }
      // Headers, a byte at a time: they are short and bounded.
      this.header.push(chunk[at++]!);
      if (this.header.length > MAX_HEADER_BYTES) {
        frames.push(this.fail(`headers longer than ${MAX_HEADER_BYTES} bytes`));
        break;
      }
      if (!endsWith(this.header, HEADERS_END)) continue;
      const text = this.decoder.decode(Uint8Array.from(this.header));
      this.header = [];
      const match = /^content-length:[ \t]*(\d{1,15})[ \t]*$/im.exec(text);
      if (!match) {
        frames.push(this.fail('a message without a valid Content-Length header'));
        break;
      }
      const length = Number(match[1]);
      if (length > this.max) {
        const head = this.decoder.decode(chunk.subarray(at, at + Math.min(this.headBytes, length)));
        frames.push({ kind: 'oversize', head, limit: this.max });
        this.body = { due: length, keep: false };
      } else if (length === 0) {
        frames.push({ kind: 'message', text: '' });
      } else {
        this.body = { due: length, keep: true };
      }
    }
    return frames;
  }

  private fail(reason: string): Frame {
    this.broken = true;
    this.header = [];
    this.pending.clear();
    return { kind: 'invalid', reason };
  }
}

function endsWith(bytes: number[], tail: number[]): boolean {
  if (bytes.length < tail.length) return false;
  for (let i = 1; i <= tail.length; i++) if (bytes[bytes.length - i] !== tail[tail.length - i]) return false;
  return true;
}

/**
 * A body read up to a cap: all of it (`truncated: false`), or its first `maxBytes` when it is
 * longer (`truncated: true`; the rest is not read and the stream is cancelled).
 *
 * @example
 *   const { bytes, truncated } = await readCapped(response.body, 64 * 1024);
 */
export async function readCapped(body: AsyncIterable<Uint8Array> | null | undefined, maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const pending = new Pending();
  if (!body) return { bytes: new Uint8Array(0), truncated: false };
  const iterator = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const { done, value } = await iterator.next();
      if (done) return { bytes: pending.take(), truncated: false };
      if (pending.bytes + value.byteLength > maxBytes) {
        pending.add(value.subarray(0, maxBytes - pending.bytes));
        return { bytes: pending.take(), truncated: true };
      }
      pending.add(value);
    }
  } finally {
    // Stops reading (and lets go of the connection) when the cap ended it early.
    await iterator.return?.();
  }
}
