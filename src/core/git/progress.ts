// git's `--progress` output, read as it comes: lines git redraws in place (ending in `\r`,
// "Writing objects:  40% (2/5)") and lines it finishes (ending in `\n`, "…, done." or
// "remote: …"), turned into one record per line, and a gate that lets at most a few through
// per second so a fast transfer never floods the event stream.
import type { GitProgress } from '../../contracts/local-resources.ts';

/** Longest partial line kept while waiting for its end; beyond it the text is passed on as is. */
const MAX_PENDING = 4096;

/**
 * Splits stderr into lines: every line goes to `onLine`; finished lines (`\n`) also go to
 * `keep` (they hold git's errors), redrawn ones (`\r`) do not.
 *
 * @example
 *   const lines = progressLines((line) => console.log(line), (text) => (stderr += text));
 *   lines.write('Writing objects:  50% (1/2)\rWriting objects: 100% (2/2), done.\n');
 *   lines.end();
 */
export function progressLines(onLine: (line: string) => void, keep: (text: string) => void): { write: (chunk: string) => void; end: () => void } {
  let pending = '';
  // Progress is a courtesy: a listener that throws must not break the git command it watches.
  const tell = (line: string) => {
    try {
      onLine(line);
    } catch {
      // Dropped.
    }
  };
  const write = (chunk: string) => {
    pending += chunk;
    let start = 0;
    for (let i = 0; i < pending.length; i++) {
      const c = pending[i];
      if (c !== '\n' && c !== '\r') continue;
      const line = pending.slice(start, i);
      if (c === '\n') keep(`${line}\n`);
      if (line.trim()) tell(line);
      start = i + 1;
    }
    pending = pending.slice(start);
    if (pending.length > MAX_PENDING) {
      keep(pending);
      pending = '';
    }
  };
  const end = () => {
    if (pending) {
      keep(pending);
      if (pending.trim()) tell(pending);
    }
    pending = '';
  };
  return { write, end };
}

/**
 * One progress line as data: `Writing objects:  40% (2/5), 1.2 MiB | 3 MiB/s` →
 * `{phase: 'Writing objects', percent: 40, done: 2, total: 5, text}`. A line of the remote's
 * (`remote: …`) keeps its words in `text`, phase `remote`.
 */
export function parseProgress(operation: GitProgress['operation'], line: string): GitProgress {
  // Credentials in a URL the remote echoes are masked, as in every message of Loom's.
  const text = line
    .trim()
    .slice(0, 300)
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1***@');
  const remote = /^remote:\s*(.*)$/.exec(text);
  const body = remote ? remote[1]! : text;
  const match = /^([A-Za-z][A-Za-z ]*?):\s+(?:(\d{1,3})%\s*)?(?:\((\d+)\/(\d+)\))?/.exec(body);
  const progress: GitProgress = { operation, phase: remote && !match ? 'remote' : (match?.[1] ?? 'git'), text, percent: null, done: null, total: null };
  if (match?.[2] !== undefined) progress.percent = Math.min(100, Number(match[2]));
  if (match?.[3] !== undefined) progress.done = Number(match[3]);
  if (match?.[4] !== undefined) progress.total = Number(match[4]);
  return progress;
}

/** Phases held back at once: a remote printing a new "phase" on every line keeps its latest few. */
const HELD_PHASES = 8;

/**
 * Passes on one record per `intervalMs`; the first of a new phase and the one that completes a
 * phase (100 %, "done") may go after a quarter of it, so a reader sees phases start and end.
 * What was held back — the latest record of each phase, in order, so that no phase goes unseen —
 * is sent when the interval has passed or on `flush`.
 *
 * @example
 *   const gate = new ProgressGate((p) => bus.emit('git:progress', p), 250, Date.now);
 *   gate.push(parseProgress('push', line)); … gate.flush();
 */
export class ProgressGate {
  private lastSent = -Infinity;
  private lastPhase: string | undefined;
  private readonly held = new Map<string, GitProgress>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly send: (progress: GitProgress) => void,
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {}

  push(progress: GitProgress): void {
    const since = this.now() - this.lastSent;
    const milestone = progress.phase !== this.lastPhase || progress.percent === 100 || /done\.?$/.test(progress.text);
    // Milestones go sooner when nothing waits; otherwise what waits goes with the next record
    // once the interval has passed, at most HELD_PHASES of them: a remote that prints a new
    // "phase" on every line cannot flood the stream.
    if (since >= this.intervalMs || (this.held.size === 0 && milestone && since >= this.intervalMs / 4)) {
      this.held.delete(progress.phase);
      this.sendHeld();
      this.emit(progress);
      return;
    }
    this.held.delete(progress.phase);
    this.held.set(progress.phase, progress);
    if (this.held.size > HELD_PHASES) this.held.delete(this.held.keys().next().value!);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.sendHeld();
    }, this.intervalMs);
  }

  /** Sends what is held back and stops the timer (the operation has ended). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.sendHeld();
  }

  private sendHeld(): void {
    const held = [...this.held.values()];
    this.held.clear();
    for (const progress of held) this.emit(progress);
  }

  private emit(progress: GitProgress): void {
    this.lastSent = this.now();
    this.lastPhase = progress.phase;
    this.send(progress);
  }
}
