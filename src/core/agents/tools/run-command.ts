// Running an agent's commands: those the user listed in settings.json (`agents.commands`, matched
// exactly) run as asked, any other only once the user approved it (command-tool.ts). Every one
// is split into arguments the way a shell would split plain words and quotes, and run without a
// shell (no pipes, redirections, variables or globs), in the workspace folder, with a time limit
// and a cap on the output kept. The environment is Loom's without its own settings (LOOM_*) and
// without any variable that holds a secret Loom knows (the local API token, a provider's key).
import { spawn } from 'node:child_process';

export interface CommandResult {
  /** Null when the command was killed or could not start. */
  exitCode: number | null;
  /** Why it ended other than by exiting: its time limit, the task's end, or a failure to start. */
  stopped?: 'timeout' | 'aborted' | 'failed_to_start';
  /** stdout and stderr as they came, cut to the cap in the middle. */
  output: string;
}

export interface CommandRunnerOptions {
  /** The workspace folder: where commands run. */
  cwd: string;
  /** The commands that run without asking, as settings.json lists them now (read at each call: an approval "always" adds one). */
  allowed: () => readonly string[];
  timeoutMs: number;
  /** Values no variable of the command's environment may contain. */
  secrets: readonly string[];
  /** The environment to start from (default: Loom's own). */
  env?: NodeJS.ProcessEnv;
}

/** Output kept of one command: its start and its end (where test runners put their summary). */
const OUTPUT_HEAD = 4 * 1024;
const OUTPUT_TAIL = 28 * 1024;

export class CommandRunner {
  constructor(private readonly options: CommandRunnerOptions) {}

  /** The commands that run without asking, as listed (surrounding whitespace aside). */
  commands(): string[] {
    return [...new Set(this.options.allowed().map((command) => command.trim()))];
  }

  /** Whether `command` is one of the listed ones (surrounding whitespace aside). */
  allows(command: string): boolean {
    const wanted = command.trim();
    return this.options.allowed().some((listed) => listed.trim() === wanted);
  }

  /**
   * Runs a command that is listed or that the user approved (the caller checked); kills it (its
   * whole process group) at its time limit or when `signal` aborts.
   */
  run(command: string, signal: AbortSignal): Promise<CommandResult> {
    const [file, ...args] = splitCommand(command.trim());
    const output = new CappedOutput();
    return new Promise((resolve) => {
      let stopped: CommandResult['stopped'];
      const child = spawn(file!, args, {
        cwd: this.options.cwd,
        env: commandEnvironment(this.options.env ?? process.env, this.options.secrets),
        stdio: ['ignore', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
        // Its own process group, so that what it starts is killed with it.
        detached: process.platform !== 'win32',
      });
      const kill = (why: 'timeout' | 'aborted') => {
        stopped ??= why;
        try {
          if (process.platform !== 'win32' && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
          else child.kill('SIGKILL');
        } catch {
          // Already gone.
        }
      };
      const timer = setTimeout(() => kill('timeout'), this.options.timeoutMs);
      const onAbort = () => kill('aborted');
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      child.stdout.on('data', (chunk: Buffer) => output.add(chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => output.add(chunk.toString('utf8')));
      const finish = (exitCode: number | null) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve({ exitCode: stopped ? null : exitCode, ...(stopped ? { stopped } : {}), output: output.text() });
      };
      child.on('error', (error) => {
        stopped ??= 'failed_to_start';
        output.add(`could not start ${file}: ${error.message}`);
        finish(null);
      });
      child.on('close', (code) => finish(code));
    });
  }
}

/**
 * The words of a command line as a POSIX shell splits plain text: whitespace separates them;
 * '…' keeps everything literally; "…" keeps everything but \" and \\; a backslash outside
 * quotes keeps the next character. Nothing is expanded. Throws Error on an unclosed quote.
 *
 * @example
 * splitCommand(`npx tsc -p "my app/tsconfig.json"`); // ['npx', 'tsc', '-p', 'my app/tsconfig.json']
 */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const char = command[i]!;
    if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (char === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed ' in ${JSON.stringify(command)}`);
      word += command.slice(i + 1, end);
      i = end;
    } else if (char === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        if (command[j] === '\\' && (command[j + 1] === '"' || command[j + 1] === '\\')) j++;
        word += command[j];
      }
      if (j >= command.length) throw new Error(`unclosed " in ${JSON.stringify(command)}`);
      i = j;
    } else if (char === '\\' && i + 1 < command.length) {
      word += command[++i];
    } else word += char;
  }
  if (inWord) words.push(word);
  return words;
}

/** Loom's environment without its own settings and without any variable holding a known secret. */
export function commandEnvironment(env: NodeJS.ProcessEnv, secrets: readonly string[]): NodeJS.ProcessEnv {
  const known = secrets.filter((secret) => secret.length >= 8);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || /^LOOM_/i.test(name)) continue;
    if (known.some((secret) => value.includes(secret))) continue;
    out[name] = value;
  }
  return out;
}

/** Output that keeps its first and last parts once it is over the cap. */
class CappedOutput {
  private head = '';
  private tail = '';
  private dropped = 0;

  add(text: string): void {
    if (this.head.length < OUTPUT_HEAD) {
      const room = OUTPUT_HEAD - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    this.tail += text;
    if (this.tail.length > OUTPUT_TAIL) {
      this.dropped += this.tail.length - OUTPUT_TAIL;
      this.tail = this.tail.slice(-OUTPUT_TAIL);
    }
  }

  text(): string {
    return this.dropped ? `${this.head}\n… [${this.dropped} characters of output left out] …\n${this.tail}` : this.head + this.tail;
  }
}
