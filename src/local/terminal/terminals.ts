// The window's terminals: each `/terminal` WebSocket drives one shell in a pseudo-terminal
// (core/terminal/shell.ts's interface; node-pty's in adapters/terminal, wired in compose). The socket and the shell live and die together: the socket closing (the window
// closed, signed out, the token rotated) ends the shell's whole session, and the shell exiting
// closes the socket. What the shell writes goes to the socket and nowhere else (no log line,
// event or webhook carries it). A window that stops reading pauses the shell: at most about
// OUTPUT_HIGH_WATER bytes wait in memory per terminal, and the shell blocks on its writes
// meanwhile, as it would on a real terminal nobody scrolls.
import type { WebSocket } from 'ws';
import type { TerminalInput } from '../../contracts/local-resources.ts';
import { LoomError } from '../../core/errors.ts';
import { hashToken } from '../../core/identity/secrets.ts';
import type { ShellLauncher, TerminalShell } from '../../core/terminal/shell.ts';

/** Output bytes handed to a socket and not yet written to the connection, above which the shell is paused. */
export const OUTPUT_HIGH_WATER = 1024 * 1024;
/** …and at or below which it is resumed. */
export const OUTPUT_LOW_WATER = 256 * 1024;
/** Input bytes queued for the shell (it is not reading them) above which the socket is no longer read. */
export const INPUT_HIGH_WATER = 1024 * 1024;
/** Terminals open at once, over every window. */
export const MAX_TERMINALS = 16;
/** Messages kept from a socket before its shell has started. */
const EARLY_MESSAGES = 64;

/** Close codes (private use, mirroring HTTP statuses), each with a reason that says what happened. */
export const TERMINAL_CLOSE = {
  exited: { code: 1000, reason: 'the shell exited' },
  invalid: { code: 1008, reason: 'not a terminal message: send {type: "input", data} or {type: "resize", cols, rows}' },
  shuttingDown: { code: 1001, reason: 'server shutting down' },
  failed: { code: 1011, reason: 'TERMINAL_UNAVAILABLE: the shell did not start' },
  tokenRotated: { code: 4401, reason: 'TOKEN_ROTATED: the API token changed; the window must sign in again' },
  signedOut: { code: 4401, reason: 'SIGNED_OUT: the window signed out' },
  untrusted: { code: 4403, reason: 'WORKSPACE_UNTRUSTED: a terminal runs only in a trusted workspace' },
  tooMany: { code: 4429, reason: `TOO_MANY_TERMINALS: ${MAX_TERMINALS} terminals are open` },
} as const;

export interface TerminalsOptions {
  /** The workspace folder: where each shell starts. */
  cwd: string;
  /** Values no variable of a shell's environment may contain. */
  secrets: () => readonly string[];
  /** Whether the workspace is trusted now (checked when a ticket is bought, when its socket opens, and when trust is taken back). */
  trusted: () => boolean;
  /** The fingerprint of the token in force (guard.ts `grantedBy`). */
  currentGrant: () => string;
  /** What starts the shells. */
  shells: ShellLauncher;
}

/** Who opened a socket: the token's fingerprint and the window session's cookie id. */
export interface SocketGrant {
  grantedBy: string | undefined;
  session: string | undefined;
}

interface Terminal {
  shell: TerminalShell | undefined;
  grantedBy: string | undefined;
  /** The hash of the window session that opened it. */
  session: string | undefined;
  /** Output bytes sent to the socket and not yet written out. */
  outstanding: number;
  paused: boolean;
  /** Set once the session is being ended: resolves when it is. */
  ending: Promise<void> | undefined;
}

/**
 * The terminals of one local server.
 *
 * @example
 *   const terminals = new Terminals({ cwd: paths.root, secrets, trusted: () => extensions.workspaceTrusted, currentGrant, shells: createShellLauncher() });
 *   await terminals.checkCanOpen(); // before selling a ticket
 *   terminals.accept(socket, { grantedBy, session }); // the /terminal route's WebSocket handler
 */
export class Terminals {
  private readonly terminals = new Map<WebSocket, Terminal>();

  constructor(private readonly options: TerminalsOptions) {}

  /** Throws what would keep a new terminal from opening: an untrusted workspace, no node-pty, too many open. */
  async checkCanOpen(): Promise<void> {
    if (!this.options.trusted()) {
      throw new LoomError(
        'workspace_untrusted',
        'A terminal runs anything in this workspace, and the workspace is not trusted.',
        'Trust the workspace first (the window, or loom extension trust).',
      );
    }
    if (this.terminals.size >= MAX_TERMINALS) throw new LoomError('too_many_terminals', `${MAX_TERMINALS} terminals are open; close one first.`);
    await this.options.shells.check();
  }

  /** The `/terminal` route's WebSocket handler: starts a shell for the socket the guard let in. */
  accept(socket: WebSocket, grant: SocketGrant): void {
    const refusal =
      grant.grantedBy !== this.options.currentGrant()
        ? TERMINAL_CLOSE.tokenRotated
        : !this.options.trusted()
          ? TERMINAL_CLOSE.untrusted
          : this.terminals.size >= MAX_TERMINALS
            ? TERMINAL_CLOSE.tooMany
            : undefined;
    if (refusal) {
      socket.close(refusal.code, refusal.reason);
      return;
    }
    const terminal: Terminal = {
      shell: undefined,
      grantedBy: grant.grantedBy,
      session: grant.session === undefined ? undefined : hashToken(grant.session),
      outstanding: 0,
      paused: false,
      ending: undefined,
    };
    this.terminals.set(socket, terminal);
    // Listened to at once: a message may come before the shell has started.
    const early: TerminalInput[] = [];
    socket.on('message', (data, isBinary) => {
      const message = isBinary ? undefined : parseInput(String(data));
      if (!message) {
        socket.close(TERMINAL_CLOSE.invalid.code, TERMINAL_CLOSE.invalid.reason);
        return;
      }
      if (terminal.shell) this.deliver(socket, terminal.shell, message);
      else if (early.push(message) > EARLY_MESSAGES) socket.close(TERMINAL_CLOSE.invalid.code, TERMINAL_CLOSE.invalid.reason);
    });
    const ended = () => void this.end(socket);
    socket.on('close', ended);
    socket.on('error', ended);

    void this.options.shells
      .start({ cwd: this.options.cwd, cols: 80, rows: 24, secrets: this.options.secrets() })
      .then((shell) => this.start(socket, terminal, shell))
      .then((shell) => {
        for (const message of early.splice(0)) this.deliver(socket, shell, message);
      })
      .catch(() => {
        this.terminals.delete(socket);
        socket.close(TERMINAL_CLOSE.failed.code, TERMINAL_CLOSE.failed.reason);
      });
  }

  private start(socket: WebSocket, terminal: Terminal, shell: TerminalShell): TerminalShell {
    terminal.shell = shell;
    if (terminal.ending || socket.readyState !== socket.OPEN) {
      // The window went away while the shell started.
      void this.end(socket, terminal);
      return shell;
    }
    shell.onData((text) => {
      const bytes = Buffer.from(text, 'utf8');
      terminal.outstanding += bytes.length;
      socket.send(bytes, { binary: true }, () => {
        terminal.outstanding -= bytes.length;
        if (terminal.paused && terminal.outstanding <= OUTPUT_LOW_WATER && !terminal.ending) {
          terminal.paused = false;
          shell.resume();
        }
      });
      if (!terminal.paused && terminal.outstanding > OUTPUT_HIGH_WATER) {
        terminal.paused = true;
        shell.pause();
      }
    });
    shell.onExit(({ exitCode, signal }) => {
      if (socket.readyState === socket.OPEN) {
        socket.send(JSON.stringify({ type: 'exit', exitCode, ...(signal ? { signal } : {}) }));
        socket.close(TERMINAL_CLOSE.exited.code, TERMINAL_CLOSE.exited.reason);
      }
      void this.end(socket, terminal);
    });
    socket.send(JSON.stringify({ type: 'ready', shell: shell.name }));
    return shell;
  }

  private deliver(socket: WebSocket, shell: TerminalShell, message: TerminalInput): void {
    if (message.type === 'resize') {
      shell.resize(message.cols, message.rows);
      return;
    }
    shell.write(message.data);
    // A shell that does not read its input (a program busy elsewhere) must not let a paste
    // pile up in memory: stop reading the socket until the queue drains.
    if (shell.queuedInput() > INPUT_HIGH_WATER && !socket.isPaused) {
      socket.pause();
      const check = () => {
        if (socket.readyState !== socket.OPEN) return;
        if (shell.queuedInput() > INPUT_HIGH_WATER / 4) setTimeout(check, 20).unref();
        else socket.resume();
      };
      setTimeout(check, 20).unref();
    }
  }

  /** Ends a terminal: its socket closed (if it is not), its shell's session hung up, then killed. */
  private end(socket: WebSocket, terminal = this.terminals.get(socket)): Promise<void> {
    if (!terminal) return Promise.resolve();
    this.terminals.delete(socket);
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.terminate();
    terminal.ending ??= terminal.shell ? terminal.shell.end() : Promise.resolve();
    return terminal.ending;
  }

  private closeWhere(match: (terminal: Terminal) => boolean, close: { code: number; reason: string }): Promise<void>[] {
    const ending: Promise<void>[] = [];
    for (const [socket, terminal] of [...this.terminals]) {
      if (!match(terminal)) continue;
      if (socket.readyState === socket.OPEN) socket.close(close.code, close.reason);
      ending.push(this.end(socket, terminal));
    }
    return ending;
  }

  /** Closes every terminal a token other than the one with this fingerprint opened (the token was rotated). */
  revokeExcept(grantedBy: string): void {
    this.closeWhere((terminal) => terminal.grantedBy !== grantedBy, TERMINAL_CLOSE.tokenRotated);
  }

  /** Closes every terminal once the workspace is no longer trusted (`loom extension untrust`, the window); resolves when their shells have ended. */
  async closeUnlessTrusted(): Promise<void> {
    if (this.options.trusted()) return;
    await Promise.all(this.closeWhere(() => true, TERMINAL_CLOSE.untrusted));
  }

  /** Closes the terminals of a window session that ended (signed out), by its cookie id. */
  endWindowSession(sessionId: string): void {
    const session = hashToken(sessionId);
    this.closeWhere((terminal) => terminal.session === session, TERMINAL_CLOSE.signedOut);
  }

  /**
   * Open terminals; how many shells are paused because their window does not read, and the
   * most output waiting for one; how many sockets are not read because their shell does not
   * take its input.
   */
  stats(): { open: number; paused: number; maxOutstanding: number; inputPaused: number } {
    const all = [...this.terminals.values()];
    return {
      open: all.length,
      paused: all.filter((terminal) => terminal.paused).length,
      maxOutstanding: Math.max(0, ...all.map((terminal) => terminal.outstanding)),
      inputPaused: [...this.terminals.keys()].filter((socket) => socket.isPaused).length,
    };
  }

  /** Ends every terminal (the server shuts down); resolves once every shell's session is ended. */
  async close(): Promise<void> {
    await Promise.all(this.closeWhere(() => true, TERMINAL_CLOSE.shuttingDown));
  }
}

/** A message of the window, or undefined when it is not one (the shapes of TerminalInput). */
export function parseInput(text: string): TerminalInput | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const message = value as Record<string, unknown>;
  if (message['type'] === 'input' && typeof message['data'] === 'string') return { type: 'input', data: message['data'] };
  const size = (n: unknown) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 1000;
  if (message['type'] === 'resize' && size(message['cols']) && size(message['rows'])) {
    return { type: 'resize', cols: message['cols'] as number, rows: message['rows'] as number };
  }
  return undefined;
}
