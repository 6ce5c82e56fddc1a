import type { Socket } from 'node:net';
import { errorBody } from './errors.ts';

/** Malformed HTTP (bad request line, oversized headers): answered in the Error shape, then closed. */
export function onClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify(
    errorBody('bad_request', tooLarge ? 'The request headers are too large.' : 'The request is not valid HTTP.'),
  );
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
