// A shell in a pseudo-terminal (node-pty), in the workspace folder, and how it is ended: the
// shell leads a session of its own (node-pty calls setsid), and its jobs may sit in process
// groups of their own (an interactive shell's job control), so ending it signals every process
// of that session, not only the shell.
import fs from 'node:fs';
import path from 'node:path';
import type { IPty } from 'node-pty';
import { commandEnvironment } from '../../core/agents/tools/run-command.ts';
import { LoomError } from '../../core/errors.ts';
import type { ShellLauncher, ShellStart, TerminalShell } from '../../core/terminal/shell.ts';

type NodePty = typeof import('node-pty');

let loaded: NodePty | undefined;

/**
 * node-pty, loaded on first use: a native module that may have failed to build, which must
 * not keep the rest of the server from starting. Throws terminal_unavailable when it cannot load.
 */
async function loadPty(): Promise<NodePty> {
  if (loaded) return loaded;
  try {
    const module = await import('node-pty');
    loaded = ((module as { default?: NodePty }).default ?? module) as NodePty;
    return loaded;
  } catch (error) {
    throw new LoomError(
      'terminal_unavailable',
      `The terminal's native module (node-pty) does not load here: ${(error as Error).message.split('\n')[0]}`,
      'npm rebuild node-pty (it needs a C++ compiler and Python), then restart Loom.',
    );
  }
}

/** The shell to run: $SHELL when it is an absolute path to a file, else bash or sh (cmd.exe on Windows). */
function defaultShell(env: NodeJS.ProcessEnv = process.env): { file: string; args: string[] } {
  if (process.platform === 'win32') return { file: env['COMSPEC'] ?? 'cmd.exe', args: [] };
  const candidates = [env['SHELL'], '/bin/bash', '/bin/sh'];
  for (const file of candidates) {
    if (file && path.isAbsolute(file) && fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return { file, args: [] };
  }
  throw new LoomError('terminal_unavailable', 'No shell was found: neither $SHELL, /bin/bash nor /bin/sh.');
}

interface ShellOptions extends ShellStart {
  shell?: { file: string; args: string[] };
}

/**
 * Starts a shell with node-pty (`loadPty()`). Its output comes as text decoded from UTF-8 (a
 * character split between two reads is kept whole; the terminal is set up for UTF-8, so
 * erasing one erases all its bytes). Its environment is Loom's without Loom's own settings
 * (`LOOM_*`) or any variable holding a secret Loom knows: the terminal is the user's, but the
 * token stays out of what runs there.
 *
 * @example
 *   const shell = startShell(await loadPty(), { cwd: workspace, cols: 80, rows: 24, secrets: [token] });
 *   shell.onData((text) => socket.send(Buffer.from(text), { binary: true }));
 */
function startShell(pty: NodePty, options: ShellOptions): IPty {
  const { file, args } = options.shell ?? defaultShell();
  const env = {
    ...commandEnvironment(process.env, options.secrets),
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    TERM_PROGRAM: 'loom',
  };
  try {
    return pty.spawn(file, args, { name: 'xterm-256color', cols: options.cols, rows: options.rows, cwd: options.cwd, env: env as Record<string, string> });
  } catch (error) {
    throw new LoomError('terminal_unavailable', `The shell ${path.basename(file)} did not start: ${(error as Error).message}`);
  }
}

/**
 * The processes of the session `leader` leads (Linux, from /proc): the shell, its jobs in their
 * own process groups, and what they started, but for what left the session on purpose (setsid,
 * a daemon). Elsewhere, just the leader.
 */
function sessionMembers(leader: number): number[] {
  if (process.platform !== 'linux') return [leader];
  const members: number[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [leader];
  }
  for (const entry of entries) {
    if (!/^[0-9]+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp session …; comm may hold spaces and parentheses: read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[3]) === leader) members.push(Number(entry));
  }
  return members.includes(leader) ? members : [leader, ...members];
}

/** Sends `signal` to every process of the session and to the leader's process group; answers how many were signalled. */
function signalSession(leader: number, signal: NodeJS.Signals): number {
  let signalled = 0;
  for (const pid of new Set([...sessionMembers(leader)])) {
    try {
      process.kill(pid, signal);
      signalled += 1;
    } catch {
      // Already gone.
    }
  }
  try {
    process.kill(-leader, signal);
  } catch {
    // No such group any more.
  }
  return signalled;
}

/** How long the session has to end on SIGHUP before it is killed. */
const HANGUP_GRACE_MS = 1000;

/**
 * Ends a shell and everything its session runs: SIGHUP (what closing a terminal sends; shells
 * pass it on to their jobs), then SIGKILL to whatever is left once `graceMs` have passed.
 * Resolves once the SIGKILL round is done.
 */
function endSession(shell: IPty, graceMs = HANGUP_GRACE_MS): Promise<void> {
  const leader = shell.pid;
  // Input still queued for the shell has nowhere to go: dropped now, so that no write is under
  // way when the file descriptor closes (node-pty would report it on stderr).
  const queue = writeQueue(shell);
  if (Array.isArray(queue)) queue.length = 0;
  signalSession(leader, 'SIGHUP');
  return new Promise((resolve) => {
    setTimeout(() => {
      signalSession(leader, 'SIGKILL');
      try {
        // Closes the master side (its file descriptor): nothing holds the other side any more.
        // (destroy is on node-pty's terminals, not in its IPty type.)
        (shell as IPty & { destroy?: () => void }).destroy?.();
      } catch {
        // Already closed.
      }
      resolve();
    }, graceMs).unref();
  });
}

/**
 * Bytes written to the shell and not yet taken by the pseudo-terminal. node-pty queues them
 * itself and says nothing of it in its API: read from its write queue where it has one
 * (1.x on Unix), else taken as none.
 */
function queuedInput(shell: IPty): number {
  const queue = writeQueue(shell);
  if (!Array.isArray(queue)) return 0;
  let total = 0;
  for (const task of queue) total += task.buffer.length - task.offset;
  return total;
}

function writeQueue(shell: IPty): { buffer: Buffer; offset: number }[] | undefined {
  return (shell as unknown as { _writeStream?: { _writeQueue?: { buffer: Buffer; offset: number }[] } })._writeStream?._writeQueue;
}

/**
 * The window's shells, in pseudo-terminals from node-pty (loaded on first use).
 *
 * @example
 *   const shells = new PtyShellLauncher();
 *   await shells.check();
 *   const shell = await shells.start({ cwd: workspace, cols: 80, rows: 24, secrets: [token] });
 */
export class PtyShellLauncher implements ShellLauncher {
  async check(): Promise<void> {
    await loadPty();
  }

  async start(options: ShellStart): Promise<TerminalShell> {
    const chosen = defaultShell();
    const pty = startShell(await loadPty(), { ...options, shell: chosen });
    return {
      name: path.basename(chosen.file) || 'shell',
      onData: (listener) => void pty.onData(listener),
      onExit: (listener) => void pty.onExit(({ exitCode, signal }) => listener(signal ? { exitCode, signal } : { exitCode })),
      write: (data) => pty.write(data),
      resize: (cols, rows) => pty.resize(cols, rows),
      pause: () => pty.pause(),
      resume: () => pty.resume(),
      queuedInput: () => queuedInput(pty),
      end: () => endSession(pty),
    };
  }
}
