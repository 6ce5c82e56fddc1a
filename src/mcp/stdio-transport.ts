// `loom mcp`'s transport: JSON-RPC messages, one per line, on stdin and stdout. The SDK's own
// stdio transport joined every chunk onto its buffer and searched it from the start (quadratic
// in a long message), closed itself, and so ended `loom mcp`, on a message over 10 MiB, and
// answered nothing to a line it could not read. This one reads lines with a cap (LineFramer),
// answers what it cannot take with a JSON-RPC error and goes on serving:
//
// - a message over the cap: -32600, with its id when the first bytes hold it, else null;
// - a line that is not JSON: -32700, id null;
// - a batch (an array; MCP's current revision has none): -32600, id null;
// - an id that is neither a string nor a safe integer (1e308, 1.5, null, an object): -32600, id null;
// - anything else that is no JSON-RPC message: -32600, with its id when it has a valid one.
//
// Notifications and responses are never answered (JSON-RPC forbids it); what cannot be read of
// them only reaches `onerror`. Every refusal reaches `onerror` too (`--verbose` prints it).
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineFramer, type Frame } from '../contracts/framing.ts';

/** The largest message `loom mcp` reads (docs/mcp.md). */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A JSON-RPC id as MCP allows it. */
type RequestId = string | number;

/** An error answer; `id` null when the message's own cannot be told. */
interface ErrorAnswer {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string };
}

export interface StdioTransportOptions {
  /** Largest message read, in bytes; MAX_STDIO_MESSAGE_BYTES by default. */
  maxMessageBytes?: number;
}

/**
 * The SDK's Transport over a pair of streams, reading with limits.
 *
 * @example
 *   const transport = new GuardedStdioTransport(process.stdin, process.stdout);
 *   await server.connect(transport);
 */
export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly lines: LineFramer;
  private started = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    options: StdioTransportOptions = {},
  ) {
    this.lines = new LineFramer({ maxMessageBytes: options.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES });
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('GuardedStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('error', this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.handle(this.lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  };

  /** The last line, when the input ended without a newline after it. */
  private readonly onEnd = () => this.handle(this.lines.end());

  private readonly onStreamError = (error: Error) => this.onerror?.(error);

  private handle(frames: Frame[]): void {
    for (const frame of frames) {
      if (frame.kind === 'message') this.read(frame.text);
      else if (frame.kind === 'oversize') {
        const id = leadingId(frame.head);
        this.refuse(id, ErrorCode.InvalidRequest, `Invalid Request: the message is larger than ${frame.limit} bytes, the most loom mcp reads.`);
      }
    }
  }

  private read(line: string): void {
    // A blank line between messages carries nothing.
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return this.refuse(null, ErrorCode.ParseError, 'Parse error: the line is not valid JSON.');
    }
    if (Array.isArray(value)) return this.refuse(null, ErrorCode.InvalidRequest, 'Invalid Request: batches are not supported; send one message per line.');
    if (value === null || typeof value !== 'object') return this.refuse(null, ErrorCode.InvalidRequest, 'Invalid Request: a message is a JSON object.');
    const message = value as Record<string, unknown>;
    // Neither is ever answered (JSON-RPC forbids it): what cannot be read of them only reaches onerror.
    const response = !('method' in message) && ('result' in message || 'error' in message);
    const notification = typeof message.method === 'string' && !('id' in message);
    if ('id' in message && !validId(message.id)) {
      if (response) return this.onerror?.(new Error('A response whose id is neither a string nor a safe integer was dropped.'));
      return this.refuse(null, ErrorCode.InvalidRequest, 'Invalid Request: the id must be a string or an integer from -(2^53 - 1) to 2^53 - 1.');
    }
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (parsed.success) return this.onmessage?.(parsed.data);
    const why = 'Invalid Request: not a JSON-RPC 2.0 request, notification or response that MCP allows.';
    if (response || notification) return this.onerror?.(new Error(why));
    this.refuse(validId(message.id) ? message.id : null, ErrorCode.InvalidRequest, why);
  }

  private refuse(id: RequestId | null, code: number, message: string): void {
    this.onerror?.(new Error(message));
    const answer: ErrorAnswer = { jsonrpc: '2.0', id, error: { code, message } };
    // The SDK's type has no null id; JSON-RPC requires one when the request's cannot be told.
    void this.send(answer as unknown as JSONRPCMessage);
  }
}

function validId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

/**
 * The id of a message too long to parse, read from its first bytes when the top-level object
 * names it there (`{"jsonrpc":"2.0","id":7,"method":…`); null when it does not, or it is not
 * a valid id. One pass over the text, skipping nested values and strings.
 */
export function leadingId(head: string): RequestId | null {
  let i = skipSpace(head, 0);
  if (head[i] !== '{') return null;
  let depth = 0;
  let expectKey = false;
  for (; i < head.length; i++) {
    const ch = head[i];
    if (ch === '"') {
      const end = stringEnd(head, i);
      if (end < 0) return null;
      if (depth === 1 && expectKey) {
        const colon = skipSpace(head, end + 1);
        if (head[colon] !== ':') return null;
        if (head.slice(i, end + 1) === '"id"') return idValue(head, skipSpace(head, colon + 1));
        expectKey = false;
        i = colon;
      } else {
        i = end;
      }
    } else if (ch === '{' || ch === '[') {
      depth++;
      expectKey = ch === '{' && depth === 1;
    } else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return null;
    } else if (ch === ',' && depth === 1) {
      expectKey = true;
    }
  }
  return null;
}

/** The id's value at `at`: a string, or an integer followed by the end of the value. */
function idValue(text: string, at: number): RequestId | null {
  if (text[at] === '"') {
    const end = stringEnd(text, at);
    if (end < 0) return null;
    try {
      return JSON.parse(text.slice(at, end + 1)) as string;
    } catch {
      return null;
    }
  }
  const number = /^-?\d+(?=\s*[,}])/.exec(text.slice(at, at + 40));
  if (!number) return null;
  const id = Number(number[0]);
  return Number.isSafeInteger(id) ? id : null;
}

/** The index of the quote closing the string opened at `start`, or -1 if the text ends first. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && (text[at] === ' ' || text[at] === '\t' || text[at] === '\n' || text[at] === '\r')) at++;
  return at;
}
