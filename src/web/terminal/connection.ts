// One terminal's connection to the local server: a ticket bought with the window's session
// (POST /api/terminal/ticket; the API token never opens a terminal), then /terminal as a
// WebSocket that carries keystrokes and the view's size one way and the shell's output (binary
// frames) the other. docs/local-api.md, "The terminal", is the protocol.
import type { TerminalInput, TerminalMessage, TerminalTicket } from '../../contracts/local-resources.ts';
import { api } from '../api.ts';

/** Characters per input message: a paste goes in pieces well under the server's 64 KiB per message. */
const INPUT_PIECE = 8 * 1024;

export interface ConnectionEvents {
  /** Bytes the shell wrote. */
  output(bytes: Uint8Array): void;
  /** The shell started. */
  ready(shell: string): void;
  /** The socket closed: why, in words, and the shell's exit code when it exited. */
  closed(reason: string, exitCode?: number): void;
}

export class TerminalConnection {
  private socket: WebSocket | undefined;
  private exitCode: number | undefined;

  constructor(private readonly events: ConnectionEvents) {}

  /** Buys a ticket and opens the socket; rejects (an ApiError) when the server refuses the ticket. */
  async open(): Promise<void> {
    const { ticket } = await api<TerminalTicket>('POST', '/api/terminal/ticket');
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/terminal?ticket=${encodeURIComponent(ticket)}`;
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.addEventListener('message', (message) => {
      if (message.data instanceof ArrayBuffer) {
        this.events.output(new Uint8Array(message.data));
        return;
      }
      let parsed: TerminalMessage;
      try {
        parsed = JSON.parse(String(message.data)) as TerminalMessage;
      } catch {
        return;
      }
      if (parsed.type === 'ready') this.events.ready(parsed.shell);
      else if (parsed.type === 'exit') this.exitCode = parsed.exitCode;
    });
    socket.addEventListener('close', (event) => this.events.closed(closeReason(event.code, event.reason, this.exitCode), this.exitCode));
  }

  /** Sends what the user typed or pasted. */
  input(data: string): void {
    for (let start = 0; start < data.length; start += INPUT_PIECE) this.send({ type: 'input', data: data.slice(start, start + INPUT_PIECE) });
  }

  resize(cols: number, rows: number): void {
    this.send({ type: 'resize', cols, rows });
  }

  /** Closes the socket: the server ends the shell and what it started. */
  close(): void {
    this.socket?.close();
  }

  private send(message: TerminalInput): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }
}

function closeReason(code: number, reason: string, exitCode: number | undefined): string {
  if (exitCode !== undefined) return `The shell exited with code ${exitCode}.`;
  if (code === 4401) return reason.startsWith('SIGNED_OUT') ? 'The window signed out.' : 'The API token changed; sign the window in again.';
  if (code === 4403) return 'The workspace is no longer trusted.';
  if (code === 1001) return 'Loom stopped.';
  // The server's reason is words already (`CODE: what happened`); say it without the code.
  return reason ? `${reason.replace(/^[A-Z_]+: /, '')}.` : 'The connection to Loom closed.';
}
