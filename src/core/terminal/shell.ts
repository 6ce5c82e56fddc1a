// What the window's terminals need of a shell in a pseudo-terminal, whatever runs it (node-pty
// in src/adapters/terminal): the server's terminals (src/local/terminal) drive it through these
// interfaces, wired in compose.

/** A running shell: its output, its input, its size, and how it is ended. */
export interface TerminalShell {
  /** The shell program's name (`bash`), for the window's tab. */
  readonly name: string;
  /** Output, decoded from UTF-8 (a character split between two reads is kept whole). */
  onData(listener: (text: string) => void): void;
  onExit(listener: (exit: { exitCode: number; signal?: number }) => void): void;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Stops reading the shell's output (its writes block meanwhile), and reads it again. */
  pause(): void;
  resume(): void;
  /** Bytes written to the shell and not yet taken by the pseudo-terminal. */
  queuedInput(): number;
  /** Ends the shell and every process of its session (SIGHUP, then SIGKILL after a grace); resolves once done. */
  end(): Promise<void>;
}

export interface ShellStart {
  /** The folder the shell starts in: the workspace. */
  cwd: string;
  cols: number;
  rows: number;
  /** Values no variable of the shell's environment may contain (the API token, a provider's key). */
  secrets: readonly string[];
}

/**
 * Starts shells.
 *
 * @example
 *   await shells.check(); // before a ticket is sold: throws terminal_unavailable when no shell can run here
 *   const shell = await shells.start({ cwd: workspace, cols: 80, rows: 24, secrets: [token] });
 *   shell.onData((text) => socket.send(Buffer.from(text), { binary: true }));
 */
export interface ShellLauncher {
  /** Throws terminal_unavailable when no shell can start here (the native module does not load, no shell is found). */
  check(): Promise<void>;
  start(options: ShellStart): Promise<TerminalShell>;
}
