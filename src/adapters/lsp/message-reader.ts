// Reads LSP's framing (`Content-Length: N\r\n\r\n` + N bytes of JSON) from a language server's
// stdout, in time linear in the bytes read and memory bounded by one message. vscode-jsonrpc's
// own StreamMessageReader has no bound: it buffers whatever Content-Length announces (a server
// saying 10 GB is read until memory runs out), rescans every chunk received so far while a
// header is incomplete (quadratic on a header that never ends), and parses "12abc" or "-5" as
// a length. This one refuses a header section over MAX_HEADER_BYTES, a length that is not
// digits, and a message over the cap, each as an error (the server is then stopped); and it
// hands messages to the connection one per turn of the event loop with the stream paused
// meanwhile, so that a server flooding small messages cannot grow the connection's queue.
import type { Readable } from 'node:stream';
import { AbstractMessageReader, Disposable, type DataCallback, type Message } from 'vscode-jsonrpc/node.js';

/** Largest header section (every header line and the blank line after them). */
const MAX_HEADER_BYTES = 8 * 1024;
/** The blank line that ends the headers. */
const HEADER_END = Buffer.from('\r\n\r\n');

/** An error of the server's output: it broke the framing or sent more than the cap. */
export class MessageLimitError extends Error {
  override name = 'MessageLimitError';
}

function headerTooLong(): MessageLimitError {
  return new MessageLimitError(`sent a header section over ${MAX_HEADER_BYTES} bytes`);
}

/**
 * A MessageReader for vscode-jsonrpc's MessageConnection over a stream.
 *
 * @example
 *   const reader = new CappedMessageReader(child.stdout, 64 * 1024 * 1024);
 *   const connection = createMessageConnection(reader, new StreamMessageWriter(child.stdin));
 *   reader.onError((error) => console.log(error.message)); // "announced a message of 10737418240 bytes, over the cap of 67108864"
 */
export class CappedMessageReader extends AbstractMessageReader {
  /** Header bytes received so far (at most MAX_HEADER_BYTES). */
  private header = Buffer.alloc(0);
  /** Bytes of the message body still to come, or -1 while reading headers. */
  private bodyLeft = -1;
  private bodyChunks: Buffer[] = [];
  private bodyLength = 0;
  /** Messages parsed and not yet handed over. */
  private readonly ready: Message[] = [];
  private callback?: DataCallback;
  private failed = false;
  private handing = false;

  constructor(
    private readonly stream: Readable,
    /** Largest message body, in bytes. */
    readonly maxMessageBytes: number,
  ) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const onData = (chunk: Buffer) => this.receive(chunk);
    const onError = (error: Error) => this.fireError(error);
    const onClose = () => this.fireClose();
    this.stream.on('data', onData);
    this.stream.on('error', onError);
    this.stream.on('close', onClose);
    return Disposable.create(() => {
      this.stream.off('data', onData);
      this.stream.off('error', onError);
      this.stream.off('close', onClose);
    });
  }

  private receive(chunk: Buffer): void {
    if (this.failed) return;
    try {
      let at = 0;
      while (at < chunk.length) at = this.bodyLeft < 0 ? this.readHeader(chunk, at) : this.readBody(chunk, at);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    if (this.ready.length > 0 && !this.handing) this.handOver();
  }

  /** Takes header bytes from `chunk` at `at`; returns where it stopped. */
  private readHeader(chunk: Buffer, at: number): number {
    if (this.header.length === 0) {
      const end = chunk.indexOf(HEADER_END, at);
      if (end < 0) {
        this.keepHeader(chunk.subarray(at));
        return chunk.length;
      }
      if (end + HEADER_END.length - at > MAX_HEADER_BYTES) throw headerTooLong();
      this.startBody(chunk.toString('latin1', at, end));
      return end + HEADER_END.length;
    }
    // A header cut by a chunk's end (rare): joined with at most what could still belong to it.
    const held = this.header.length;
    const joined = Buffer.concat([this.header, chunk.subarray(at, at + MAX_HEADER_BYTES - held)]);
    const end = joined.indexOf(HEADER_END, Math.max(0, held - (HEADER_END.length - 1)));
    if (end < 0) {
      this.keepHeader(joined, chunk.length - at > MAX_HEADER_BYTES - held);
      return chunk.length;
    }
    this.header = Buffer.alloc(0);
    this.startBody(joined.toString('latin1', 0, end));
    return at + end + HEADER_END.length - held;
  }

  /** Holds the start of a header until the rest arrives (a copy: the chunk is not kept alive). */
  private keepHeader(bytes: Buffer, more = false): void {
    if (more || bytes.length >= MAX_HEADER_BYTES) throw headerTooLong();
    this.header = Buffer.from(bytes);
  }

  private startBody(headerText: string): void {
    let length: number | undefined;
    for (const line of headerText.split('\r\n')) {
      if (line === '') continue;
      const colon = line.indexOf(':');
      if (colon < 0) throw new MessageLimitError(`sent a header line without a colon: ${JSON.stringify(line.slice(0, 100))}`);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d{1,16}$/.test(value))
          throw new MessageLimitError(`sent a Content-Length that is not a number of bytes: ${JSON.stringify(value.slice(0, 100))}`);
        length = Number(value);
      } else if (name === 'content-type' && /charset\s*=/i.test(value) && !/charset\s*=\s*"?utf-?8"?/i.test(value)) {
        throw new MessageLimitError(`sent messages in a charset other than UTF-8: ${JSON.stringify(value.slice(0, 100))}`);
      }
    }
    if (length === undefined) throw new MessageLimitError('sent a message without a Content-Length');
    if (length > this.maxMessageBytes) throw new MessageLimitError(`announced a message of ${length} bytes, over the cap of ${this.maxMessageBytes}`);
    this.bodyLeft = length;
    this.bodyChunks = [];
    this.bodyLength = 0;
    if (length === 0) this.finishBody();
  }

  private readBody(chunk: Buffer, at: number): number {
    const taken = Math.min(this.bodyLeft, chunk.length - at);
    this.bodyChunks.push(chunk.subarray(at, at + taken));
    this.bodyLength += taken;
    this.bodyLeft -= taken;
    if (this.bodyLeft === 0) this.finishBody();
    return at + taken;
  }

  private finishBody(): void {
    const body = Buffer.concat(this.bodyChunks, this.bodyLength);
    this.bodyChunks = [];
    this.bodyLeft = -1;
    let message: unknown;
    try {
      message = JSON.parse(body.toString('utf8'));
    } catch {
      throw new MessageLimitError('sent a message that is not JSON');
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) throw new MessageLimitError('sent a message that is not a JSON-RPC object');
    this.ready.push(message as Message);
  }

  /** One message per turn of the event loop, the stream paused until all are handed over. */
  private handOver(): void {
    this.handing = true;
    this.stream.pause();
    const next = () => {
      const message = this.ready.shift();
      if (message === undefined || this.failed) {
        this.handing = false;
        if (!this.failed) this.stream.resume();
        return;
      }
      try {
        this.callback?.(message);
      } finally {
        setImmediate(next);
      }
    };
    next();
  }

  private fail(error: Error): void {
    this.failed = true;
    this.ready.length = 0;
    this.bodyChunks = [];
    this.header = Buffer.alloc(0);
    this.stream.pause();
    this.fireError(error);
  }
}
