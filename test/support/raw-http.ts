// A minimal HTTP/1.1 client over a plain socket, for tests that must send what node:http and
// fetch refuse to (control characters in headers, duplicate or contradictory headers, bytes
// that are not UTF-8 in the request target). Each request has its own connection
// (Connection: close); the answer is read as the server wrote it.
import net from 'node:net';

export interface RawRequest {
  method: string;
  /** The request target exactly as sent (path and query, already encoded or deliberately not). */
  target: string;
  /** Header lines in order; a name may repeat. Content-Length is added for a body unless given. */
  headers: [string, string][];
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

/** Bytes of a request: header values are written as latin1, so any byte can be sent. */
export function encodeRequest(request: RawRequest): Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`];
  const names = new Set(request.headers.map(([name]) => name.toLowerCase()));
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (!names.has('connection')) lines.push('Connection: close');
  if (request.body && !names.has('content-length') && !names.has('transfer-encoding')) lines.push(`Content-Length: ${request.body.length}`);
  return Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), request.body ?? Buffer.alloc(0)]);
}

/**
 * Sends one request and resolves with the response, or rejects when no complete response
 * arrives within `timeoutMs` (a hang) or the connection fails before any byte came back.
 */
export function sendRaw(port: number, request: RawRequest, timeoutMs = 15_000): Promise<RawResponse> {
  const bytes = encodeRequest(request);
  const head = request.method.toUpperCase() === 'HEAD';
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error: Error | undefined, response?: RawResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(response!);
    };
    const timer = setTimeout(
      () => finish(new Error(`no complete answer within ${timeoutMs} ms to ${request.method} ${request.target.slice(0, 200)}`)),
      timeoutMs,
    );
    // No half-close after the request: Node's server takes a client's FIN as the client going away.
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const response = parseResponse(Buffer.concat(chunks), head, false);
      if (response) finish(undefined, response);
    });
    socket.on('end', () => {
      const response = parseResponse(Buffer.concat(chunks), head, true);
      finish(
        response
          ? undefined
          : new Error(
              `the connection closed without a complete answer (${chunks.length ? 'partial' : 'no'} bytes) to ${request.method} ${request.target.slice(0, 200)}`,
            ),
        response,
      );
    });
    // A server may reset the connection after answering a request it refused while the body
    // was still being written: what arrived before counts.
    socket.on('error', (error) => {
      const response = parseResponse(Buffer.concat(chunks), head, true);
      finish(response ? undefined : error, response);
    });
  });
}

/** The response in `data`, or undefined while it is incomplete (`closed`: no more bytes will come). */
function parseResponse(data: Buffer, head: boolean, closed: boolean): RawResponse | undefined {
  return parseFirst(data, head, closed)?.response;
}

/**
 * Sends bytes exactly as given (a request no client would write, or several pipelined ones)
 * and resolves, once the server closes the connection, with every response it wrote.
 */
export function sendRawBytes(port: number, bytes: string | Buffer, timeoutMs = 15_000): Promise<RawResponse[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server did not close the connection; it sent: ${Buffer.concat(chunks).toString('latin1').slice(0, 300)}`));
    }, timeoutMs).unref();
    socket.on('data', (chunk) => chunks.push(chunk));
    // A reset after the answer (the server closing with unread bytes) still counts as closing.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(guard);
      const head = /^HEAD /.test(String(bytes));
      const responses: RawResponse[] = [];
      let rest = Buffer.concat(chunks);
      for (let parsed = parseFirst(rest, head, true); parsed && parsed.response.status !== 0; parsed = parseFirst(rest, head, true)) {
        responses.push(parsed.response);
        rest = rest.subarray(parsed.consumed);
      }
      resolve(responses);
    });
  });
}

/** The first response in `data` and how many bytes it took, or undefined while it is incomplete. */
function parseFirst(data: Buffer, head: boolean, closed: boolean): { response: RawResponse; consumed: number } | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!match) return closed ? { response: { status: 0, headers: {}, body: data, text: data.toString('utf8') }, consumed: data.length } : undefined;
  const status = Number(match[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  const rest = data.subarray(end + 4);
  const done = (body: Buffer, used: number) => ({ response: { status, headers, body, text: body.toString('utf8') }, consumed: end + 4 + used });
  if (head || status === 204 || status === 304 || (status >= 100 && status < 200)) return done(Buffer.alloc(0), 0);
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    const body = dechunk(rest);
    return body ? done(body.body, body.consumed) : closed ? done(rest, rest.length) : undefined;
  }
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (rest.length >= length) return done(rest.subarray(0, length), length);
    return closed ? done(rest, rest.length) : undefined;
  }
  return closed ? done(rest, rest.length) : undefined;
}

/** A chunked body decoded and the bytes it took, or undefined while its last chunk has not arrived. */
function dechunk(data: Buffer): { body: Buffer; consumed: number } | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return { body: Buffer.concat(parts), consumed: data.indexOf('\r\n\r\n', at) < 0 ? data.length : data.indexOf('\r\n\r\n', at) + 4 };
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    at = start + size + 2;
  }
}
