// The window's terminal as a test drives it: buy a ticket with the window's session (cookie and
// CSRF value), open /terminal with the cookie from the page's Origin, type, read what the shell
// writes, and see how the socket ends.
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import WebSocket from 'ws';
import type { TestLocal } from './local.ts';
import { waitFor } from './wait.ts';

export interface TerminalClient {
  socket: WebSocket;
  /** Everything the shell wrote so far, decoded. */
  output(): string;
  /** The text messages (ready, exit), parsed. */
  messages: any[];
  /** How the socket closed, once it has. */
  closed: { code: number; reason: string } | undefined;
  type(text: string): void;
  resize(cols: number, rows: number): void;
  /** Waits until the output matches. */
  see(pattern: RegExp, what?: string): Promise<RegExpMatchArray>;
}

/** Buys a terminal ticket with these headers: the answer's status and body. */
export async function buyTicket(local: TestLocal, headers: Record<string, string>): Promise<{ status: number; json: any }> {
  return local.request('POST', '/api/terminal/ticket', undefined, headers);
}

/**
 * Opens /terminal with a ticket and the window's cookie, from the page's Origin (unless
 * `headers` says otherwise). Resolves once the shell is ready, or with the HTTP status the
 * upgrade was refused with.
 */
export function connectTerminal(
  local: TestLocal,
  ticket: string,
  headers: Record<string, string>,
): Promise<{ client?: TerminalClient; status?: number; json?: any }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${local.port}/terminal?ticket=${encodeURIComponent(ticket)}`, { headers });
    // Decoded as it comes (a character split between frames kept whole).
    const decoder = new StringDecoder('utf8');
    const parts: string[] = [];
    const client: TerminalClient = {
      socket,
      messages: [],
      closed: undefined,
      output: () => parts.join(''),
      type: (text) => socket.send(JSON.stringify({ type: 'input', data: text })),
      resize: (cols, rows) => socket.send(JSON.stringify({ type: 'resize', cols, rows })),
      async see(pattern, what = String(pattern)) {
        let match: RegExpMatchArray | null = null;
        // Each look reads what came since the last one, and the end of what it read then: a
        // long output is not searched over and over.
        let read = 0;
        let carry = '';
        const look = () => {
          const text = carry + parts.slice(read).join('');
          read = parts.length;
          carry = text.slice(-1000);
          match = text.match(pattern);
          return match !== null;
        };
        try {
          await waitFor(look, undefined, `terminal output ${what}`);
        } catch (error) {
          throw new Error(`${(error as Error).message}; the output ends with ${JSON.stringify(carry.slice(-300))}`);
        }
        return match!;
      },
    };
    socket.on('message', (data, isBinary) => {
      if (isBinary) parts.push(decoder.write(data as Buffer));
      else {
        const message = JSON.parse(String(data));
        client.messages.push(message);
        if (message.type === 'ready') resolve({ client });
      }
    });
    socket.once('unexpected-response', (request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk));
      response.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode, json });
        request.destroy();
      });
    });
    socket.on('close', (code, reason) => {
      client.closed = { code, reason: String(reason) };
      resolve({ client });
    });
    socket.on('error', () => resolve({ client }));
  });
}

/** The page's Origin and the window's headers, for the upgrade (no CSRF header: a browser cannot set one there). */
export function upgradeHeaders(local: TestLocal, window: Record<string, string>): Record<string, string> {
  return { origin: `http://127.0.0.1:${local.port}`, cookie: window['cookie'] ?? '' };
}

/** Whether a process runs (a zombie, ended but not yet reaped, does not count). */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}
