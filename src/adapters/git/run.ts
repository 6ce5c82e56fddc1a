// Runs the git binary directly (no shell), with an environment that can never wait for a
// person (no terminal prompt, no askpass, no editor, no pager), a time limit that stops the
// whole process group, and a cap on what it may print.
import { spawn } from 'node:child_process';
import { progressLines } from '../../core/git/progress.ts';

export interface RunOptions {
  /** The git executable. */
  gitPath: string;
  /** The environment to start from; Loom's own variables are laid over it. */
  baseEnv: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Written to git's standard input, then closed. Without it stdin is /dev/null. */
  input?: string;
  /** Extra variables, applied last. */
  env?: Record<string, string>;
  /** Stops git (and what it started) when aborted, as a timeout does; `aborted` tells. */
  signal?: AbortSignal;
  /**
   * Receives each line of stderr as it comes (`--progress` output, see progress.ts). Lines git
   * redraws (ending in a carriage return) go only here, so a long transfer's progress never
   * crowds the error lines out of `stderr`.
   */
  progress?: (line: string) => void;
}

export interface RunResult {
  /** Exit code; null when git was killed. */
  code: number | null;
  stdout: Buffer;
  /** The first 64 KiB of what git wrote on stderr. */
  stderr: string;
  timedOut: boolean;
  /** Stdout went past maxOutputBytes and git was stopped. */
  overflow: boolean;
  /** The signal was aborted and git was stopped. */
  aborted: boolean;
}

/** Git not found or not runnable. */
export class GitSpawnError extends Error {
  constructor(
    readonly errno: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

const STDERR_CAP = 64 * 1024;
const KILL_GRACE_MS = 1500;

// Variables that point git at another repository, index or object store (the list of
// `git rev-parse --local-env-vars`). Inherited from a hook or a shell they would redirect
// every command, so they are never passed on.
const REPOSITORY_VARIABLES = [
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_OBJECT_DIRECTORY',
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_IMPLICIT_WORK_TREE',
  'GIT_GRAFT_FILE',
  'GIT_INDEX_FILE',
  'GIT_NO_REPLACE_OBJECTS',
  'GIT_REPLACE_REF_BASE',
  'GIT_PREFIX',
  'GIT_SHALLOW_FILE',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_LITERAL_PATHSPECS',
  'GIT_GLOB_PATHSPECS',
  'GIT_NOGLOB_PATHSPECS',
  'GIT_ICASE_PATHSPECS',
];

/** The environment every git process gets. */
export function gitEnvironment(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of REPOSITORY_VARIABLES) delete env[name];
  for (const name of Object.keys(env)) if (/^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(name)) delete env[name];
  delete env.SSH_ASKPASS;
  Object.assign(env, {
    // Never ask for a user name or password: fail instead.
    GIT_TERMINAL_PROMPT: '0',
    // Empty, not unset: git then skips core.askPass and SSH_ASKPASS as well.
    GIT_ASKPASS: '',
    SSH_ASKPASS_REQUIRE: 'never',
    // Git Credential Manager: use stored credentials, never open a window.
    GCM_INTERACTIVE: 'never',
    GIT_EDITOR: ':',
    GIT_SEQUENCE_EDITOR: ':',
    GIT_MERGE_AUTOEDIT: 'no',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    // Messages in English, so that failures can be recognised.
    LC_ALL: 'C',
    LANGUAGE: 'C',
    ...extra,
  });
  return env;
}

/** Runs git once. Resolves with whatever happened; rejects only when git cannot be started. */
export function runGit(args: readonly string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const ownGroup = process.platform !== 'win32';
    let child;
    try {
      child = spawn(options.gitPath, args, {
        env: gitEnvironment(options.baseEnv, options.env),
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
        // Its own process group (and session): no controlling terminal, so ssh cannot prompt
        // on /dev/tty, and a timeout can stop git and every helper it started.
        detached: ownGroup,
      });
    } catch (error) {
      reject(new GitSpawnError((error as NodeJS.ErrnoException).code, (error as Error).message));
      return;
    }

    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let timedOut = false;
    let overflow = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;

    const stop = () => {
      signal('SIGTERM');
      killTimer = setTimeout(() => signal('SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const signal = (name: NodeJS.Signals) => {
      try {
        if (ownGroup && child.pid) process.kill(-child.pid, name);
        else child.kill(name);
      } catch {
        // Already gone.
      }
    };

    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      stop();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      settled = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
    };

    child.stdout!.on('data', (chunk: Buffer) => {
      if (overflow) return;
      size += chunk.length;
      if (size > options.maxOutputBytes) {
        overflow = true;
        stop();
        return;
      }
      chunks.push(chunk);
    });
    child.stderr!.setEncoding('utf8');
    const keep = (text: string) => {
      if (stderr.length < STDERR_CAP) stderr += text.slice(0, STDERR_CAP - stderr.length);
    };
    const lines = options.progress ? progressLines(options.progress, keep) : undefined;
    child.stderr!.on('data', lines ? lines.write : keep);
    if (options.input !== undefined && child.stdin) {
      child.stdin.on('error', () => {}); // git may exit before reading it all (EPIPE).
      child.stdin.end(options.input);
    }

    child.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      finish();
      reject(new GitSpawnError(error.code, error.message));
    });
    child.on('close', (code) => {
      if (settled) return;
      lines?.end();
      finish();
      resolve({ code, stdout: Buffer.concat(chunks), stderr, timedOut, overflow, aborted });
    });
  });
}
