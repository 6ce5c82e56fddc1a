// Answers to HTTP that never becomes a Fastify request: what Node's parser refuses (a broken
// request line, oversized headers, bad chunked encoding, two Content-Lengths), a request that
// did not arrive in time, CONNECT, and a connection over its client's cap. Each server writes
// them in its own error envelope, straight to the socket, and then closes it: a refused client
// keeps nothing open.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ERROR_CODES, type ErrorCode } from '../contracts/errors.ts';
import type { LoomError } from '../core/errors.ts';

export interface RawAnswerOptions {
  /** The server's error envelope: the hosted Error shape, or the local `{error: {code, message}}`. */
  envelope(code: ErrorCode, message: string, hint?: string): unknown;
  /**
   * Headers for an answer to this socket, or a refusal to send instead (the hosted API counts
   * these answers against the client's rate limit, as it does router errors).
   */
  admit?(socket: Socket): Promise<{ headers: Record<string, number>; refusal?: LoomError }>;
}

export interface RawAnswers {
  /** Fastify's `clientErrorHandler`: the parser refused what the client sent, or it was too slow. */
  clientError(error: Error & { code?: string }, socket: Socket): void;
  /** Answers with an error and closes the connection. */
  refuse(socket: Socket, code: ErrorCode, message: string, hint?: string): void;
}

/** Errors that say the peer is gone: there is no one to answer. */
const PEER_GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'ERR_STREAM_DESTROYED']);

/** How long a closing socket may take to hand its last bytes to the kernel before it is cut. */
const LINGER_MS = 5000;

export function rawAnswers(options: RawAnswerOptions): RawAnswers {
  const refuse = (socket: Socket, code: ErrorCode, message: string, hint?: string) => {
    if (!options.admit) {
      writeAndClose(socket, ERROR_CODES[code].status, options.envelope(code, message, hint), {});
      return;
    }
    options.admit(socket).then(
      ({ headers, refusal }) => {
        if (refusal) writeAndClose(socket, ERROR_CODES[refusal.code].status, options.envelope(refusal.code, refusal.message, refusal.hint), headers);
        else writeAndClose(socket, ERROR_CODES[code].status, options.envelope(code, message, hint), headers);
      },
      () => writeAndClose(socket, ERROR_CODES[code].status, options.envelope(code, message, hint), {}),
    );
  };
  return {
    clientError(error, socket) {
      // An answer already under way on this connection cannot be followed by another one
      // without corrupting it (Node's own handler makes the same check).
      const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
      if (!socket.writable || answering || PEER_GONE.has(error.code ?? '')) {
        socket.destroy();
        return;
      }
      const { code, message } = describeClientError(error.code);
      refuse(socket, code, message);
    },
    refuse,
  };
}

function describeClientError(code: string | undefined): { code: ErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers_too_large', message: 'The request line and headers are larger than the server accepts.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'The request did not arrive in the time allowed.' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', message: 'The chunk extensions of the body are larger than the server accepts.' };
    default:
      return { code: 'bad_request', message: 'The request is not valid HTTP.' };
  }
}

function writeAndClose(socket: Duplex, status: number, body: unknown, headers: Record<string, number | string>): void {
  if (socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const text = JSON.stringify(body);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(text)}`,
    'connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.write(`${head.join('\r\n')}\r\n\r\n${text}`);
  closeAfterWriting(socket);
}

/**
 * Ends a socket and destroys it once what was written has left: a peer that never closes its
 * side (or never reads) cannot keep it open, whatever `allowHalfOpen` says. What the peer still
 * sends meanwhile is read and dropped, so that closing does not reset the connection under the
 * answer.
 */
export function closeAfterWriting(socket: Duplex): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once('close', () => clearTimeout(timer));
  socket.resume();
  socket.end(() => socket.destroy());
}
