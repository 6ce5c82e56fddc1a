// Diagnostics after each edit: before a tool or an edit block changes a file, the language
// server's diagnostics of it and of the files importing it are taken (once per file: later
// checks start from the last one); after the change they are taken again, and the model is told
// which errors and warnings the change introduced and which it fixed, so that it repairs what it
// broke in its next turn. Diagnostics are compared by what they say (severity, code, message),
// not where: an edit that moves lines does not make every diagnostic below it new.
import { setMaxListeners } from 'node:events';
import type { AgentCodeIndex, AgentLanguages, CodeDiagnostic } from './intel.ts';

/** Files checked after one change, at most: the changed ones first, then their importers. */
export const MAX_CHECKED_FILES = 8;
/** Importers of one changed file checked, at most. */
const MAX_IMPORTERS = 6;
/** Diagnostics listed of each kind (introduced, fixed), errors first. */
export const MAX_LISTED = 20;
/** Characters of a diagnostic's message kept. */
const MESSAGE_CHARS = 300;

/** A diagnostic as a step records it. */
export interface StepDiagnostic {
  path: string;
  line: number;
  column: number;
  severity: 'error' | 'warning';
  message: string;
  code?: string;
}

/** What one change did to the diagnostics: a step's `diagnostics`. */
export interface StepDiagnostics {
  /** Files whose diagnostics were compared. */
  checked: string[];
  /** Errors first, at most MAX_LISTED. */
  introduced: StepDiagnostic[];
  fixed: StepDiagnostic[];
  /** Introduced and fixed diagnostics beyond those listed. */
  more?: { introduced: number; fixed: number };
  /** Files the server did not report on in time (before or after the change): not compared. */
  notChecked?: string[];
}

export interface EditChecksOptions {
  languages: AgentLanguages;
  /** Who imports a changed file; without it, only the changed files are checked. */
  index?: AgentCodeIndex;
  /** Whether the task still has the file (a deleted file has no diagnostics of its own). */
  exists(path: string): boolean;
  /** Longest wait for the servers in one check (before or after a change). */
  waitMs: number;
}

/**
 * A task's diagnostics checks.
 *
 * @example
 *   const checks = new EditChecks({ languages, index, exists: (path) => workspace.read(path) !== null, waitMs: 15_000 });
 *   await checks.prepare(['src/math.ts'], signal);
 *   // … the edit …
 *   const report = await checks.check(['src/math.ts'], signal); // { introduced: [{ path: 'src/app.ts', line: 4, … }], fixed: [], … }
 *   describeDiagnostics(report); // "Diagnostics after this change: 1 introduced …"
 */
export class EditChecks {
  /** The last diagnostics seen of each file (errors and warnings); a file not here was never checked. */
  private readonly baseline = new Map<string, CodeDiagnostic[]>();
  /** Importers of each file, as found before its change (a deleted file's are gone from the index after). */
  private readonly importers = new Map<string, string[]>();

  constructor(private readonly options: EditChecksOptions) {}

  /** Takes the diagnostics of `paths` and their importers before a change, where not taken yet. Never throws but for the task's own stop. */
  async prepare(paths: readonly string[], signal: AbortSignal): Promise<void> {
    const files = (await this.filesOf(paths)).filter((path) => !this.baseline.has(path) && this.options.exists(path));
    await this.collect(files, signal, (path, diagnostics) => this.baseline.set(path, diagnostics));
  }

  /**
   * Compares the diagnostics of `changed` and their importers now with those before; undefined
   * when no file of them is served by a language server. Never throws but for the task's own stop.
   */
  async check(changed: readonly string[], signal: AbortSignal): Promise<StepDiagnostics | undefined> {
    const files = await this.filesOf(changed);
    if (files.length === 0) return undefined;
    const introduced: StepDiagnostic[] = [];
    const fixed: StepDiagnostic[] = [];
    const notChecked = new Set<string>();
    const checked: string[] = [];
    const present = files.filter((path) => this.options.exists(path));
    // A file gone: what it had is gone with it, not fixed.
    for (const path of files) if (!present.includes(path)) this.baseline.delete(path);
    const answered = await this.collect(present, signal, (path, after) => {
      const before = this.baseline.get(path);
      this.baseline.set(path, after);
      if (before === undefined && !changed.includes(path)) {
        notChecked.add(path); // an importer not checked before the change: nothing to compare with
        return;
      }
      checked.push(path);
      const { added, removed } = difference(before ?? [], after);
      introduced.push(...added.map((diagnostic) => stepDiagnostic(path, diagnostic)));
      fixed.push(...removed.map((diagnostic) => stepDiagnostic(path, diagnostic)));
    });
    for (const path of present) if (!answered.has(path)) notChecked.add(path);
    if (checked.length === 0 && notChecked.size === 0) return undefined;
    const sort = (a: StepDiagnostic, b: StepDiagnostic) =>
      (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.line - b.line;
    introduced.sort(sort);
    fixed.sort(sort);
    const more = { introduced: Math.max(0, introduced.length - MAX_LISTED), fixed: Math.max(0, fixed.length - MAX_LISTED) };
    return {
      checked,
      introduced: introduced.slice(0, MAX_LISTED),
      fixed: fixed.slice(0, MAX_LISTED),
      ...(more.introduced || more.fixed ? { more } : {}),
      ...(notChecked.size ? { notChecked: [...notChecked] } : {}),
    };
  }

  /** `paths` the servers serve and their importers, changed files first, at most MAX_CHECKED_FILES. */
  private async filesOf(paths: readonly string[]): Promise<string[]> {
    const files: string[] = [];
    const add = (path: string) => {
      if (files.length < MAX_CHECKED_FILES && !files.includes(path) && this.options.languages.serves(path)) files.push(path);
    };
    for (const path of paths) add(path);
    for (const path of paths) {
      if (!this.options.languages.serves(path)) continue;
      let importers = this.importers.get(path);
      if (importers === undefined && this.options.index) {
        importers = await this.options.index.importers(path, MAX_IMPORTERS).catch(() => []);
        this.importers.set(path, importers);
      }
      for (const importer of importers ?? []) add(importer);
    }
    return files;
  }

  /**
   * Asks the server for each file's diagnostics, all within `waitMs`; `found` hears each file
   * whose answer is current. Answers the files that answered. Throws only the task's stop.
   */
  private async collect(files: readonly string[], signal: AbortSignal, found: (path: string, diagnostics: CodeDiagnostic[]) => void): Promise<Set<string>> {
    const answered = new Set<string>();
    if (files.length === 0) return answered;
    // One signal for the check's requests, aborted by the task's stop or the time limit; both
    // let go of it when the check ends (the task's signal lives on through many checks).
    const controller = new AbortController();
    const deadline = controller.signal;
    setMaxListeners(MAX_CHECKED_FILES * 4, deadline);
    const stop = () => controller.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    const timer = setTimeout(() => controller.abort(new Error('the diagnostics check ran out of time')), this.options.waitMs);
    try {
      await this.collectWithin(files, deadline, answered, found);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
    if (signal.aborted) throw signal.reason;
    return answered;
  }

  private async collectWithin(
    files: readonly string[],
    deadline: AbortSignal,
    answered: Set<string>,
    found: (path: string, diagnostics: CodeDiagnostic[]) => void,
  ): Promise<void> {
    await Promise.all(
      files.map(async (path) => {
        try {
          const { current, diagnostics } = await this.options.languages.diagnostics(path, deadline);
          if (!current || deadline.aborted) return;
          answered.add(path);
          found(
            path,
            diagnostics.filter((diagnostic) => diagnostic.severity === 'error' || diagnostic.severity === 'warning'),
          );
        } catch {
          // Not answered (no server after all, a timeout, a crash): listed as not checked.
        }
      }),
    );
  }
}

/** What `after` has that `before` has not, and the reverse, compared by severity, code and message (as multisets). */
function difference(before: readonly CodeDiagnostic[], after: readonly CodeDiagnostic[]): { added: CodeDiagnostic[]; removed: CodeDiagnostic[] } {
  const key = (diagnostic: CodeDiagnostic) => `${diagnostic.severity}\u0000${diagnostic.code ?? ''}\u0000${diagnostic.message}`;
  const counts = new Map<string, number>();
  for (const diagnostic of before) counts.set(key(diagnostic), (counts.get(key(diagnostic)) ?? 0) + 1);
  const added: CodeDiagnostic[] = [];
  for (const diagnostic of after) {
    const left = counts.get(key(diagnostic)) ?? 0;
    if (left > 0) counts.set(key(diagnostic), left - 1);
    else added.push(diagnostic);
  }
  const removed: CodeDiagnostic[] = [];
  for (const diagnostic of [...before].reverse()) {
    const left = counts.get(key(diagnostic)) ?? 0;
    if (left > 0) {
      counts.set(key(diagnostic), left - 1);
      removed.unshift(diagnostic);
    }
  }
  return { added, removed };
}

function stepDiagnostic(path: string, diagnostic: CodeDiagnostic): StepDiagnostic {
  const message = diagnostic.message.replace(/\s+/g, ' ').trim();
  return {
    path,
    line: diagnostic.range.start.line,
    column: diagnostic.range.start.column,
    severity: diagnostic.severity === 'error' ? 'error' : 'warning',
    message: message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS)}…` : message,
    ...(diagnostic.code !== undefined ? { code: diagnostic.code } : {}),
  };
}

/**
 * What the model is told of a check, after the tool's own result.
 *
 * @example describeDiagnostics({ checked: ['src/a.ts'], introduced: [], fixed: [] }) // 'Diagnostics: no new errors or warnings in src/a.ts.'
 */
export function describeDiagnostics(report: StepDiagnostics): string {
  const line = (entry: StepDiagnostic) =>
    `  ${entry.path}:${entry.line}:${entry.column}: ${entry.severity}${entry.code ? ` ${entry.code}` : ''}: ${entry.message}`;
  const out: string[] = [];
  const named = report.checked.length <= 3 ? report.checked.join(', ') : `${report.checked.slice(0, 3).join(', ')} and ${report.checked.length - 3} more`;
  if (report.introduced.length) {
    out.push(`Diagnostics: this change introduced ${report.introduced.length + (report.more?.introduced ?? 0)} (fix them next):`);
    out.push(...report.introduced.map(line));
    if (report.more?.introduced) out.push(`  … and ${report.more.introduced} more.`);
  }
  if (report.fixed.length) {
    out.push(`Diagnostics: this change fixed ${report.fixed.length + (report.more?.fixed ?? 0)}:`);
    out.push(...report.fixed.map(line));
    if (report.more?.fixed) out.push(`  … and ${report.more.fixed} more.`);
  }
  if (out.length === 0 && report.checked.length) out.push(`Diagnostics: no new errors or warnings in ${named}.`);
  if (report.notChecked?.length)
    out.push(`Diagnostics not checked for ${report.notChecked.join(', ')}: the language server did not answer in time. Use the diagnostics tool to ask again.`);
  return out.join('\n');
}
