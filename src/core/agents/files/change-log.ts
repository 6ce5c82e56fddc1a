// What a task changed, file by file: each file's content before the task touched it and now,
// whatever happened in between (edited five times, created then renamed). From it come the
// task's changes with their diffs, and its revert.
import { unifiedDiff } from '../../text/diff.ts';
import type { AgentChange, ChangeAction } from '../types.ts';

/**
 * One file the task touched. `path` is where it is now (or was, when deleted); `origin` where it
 * was before the task, null when the task created it. `before` and `after` are its contents
 * (null: no file).
 */
export interface ChangeEntry {
  /** 1-based, in the order the task first touched the files; stable across renames. */
  id: number;
  path: string;
  origin: string | null;
  before: string | null;
  after: string | null;
}

/** A task's changes, kept as the task makes them; `onChange` hears of each entry changed (to persist it). */
export class ChangeLog {
  private readonly entries = new Map<number, ChangeEntry>();
  private nextId = 1;

  constructor(initial: readonly ChangeEntry[] = []) {
    for (const entry of initial) {
      this.entries.set(entry.id, { ...entry });
      this.nextId = Math.max(this.nextId, entry.id + 1);
    }
  }

  /** The entries, in the order their files were first touched. */
  all(): ChangeEntry[] {
    return [...this.entries.values()].sort((a, b) => a.id - b.id);
  }

  /**
   * The file at `path` was written: `before` is what it held (null: it did not exist). A file
   * the task deleted and writes again is the same entry: modified, not deleted and created.
   */
  wrote(path: string, before: string | null, after: string): ChangeEntry {
    const entry = this.current(path) ?? this.deleted(path) ?? this.add(path, before);
    entry.after = after;
    return { ...entry };
  }

  /** The file at `path`, holding `before`, was removed. Returns the entry, or its id when the entry is gone (a file the task created). */
  removed(path: string, before: string): ChangeEntry | { id: number; gone: true } {
    const entry = this.current(path) ?? this.add(path, before);
    if (entry.origin === null) {
      this.entries.delete(entry.id);
      return { id: entry.id, gone: true };
    }
    entry.after = null;
    return { ...entry };
  }

  /** The file at `from`, holding `content`, was renamed to `to`. */
  renamed(from: string, to: string, content: string): ChangeEntry {
    const entry = this.current(from) ?? this.add(from, content);
    entry.path = to;
    return { ...entry };
  }

  /** The changes as the status shows them: each file's action and its diff from before the task. */
  changes(): AgentChange[] {
    return this.all().flatMap((entry) => describeEntry(entry));
  }

  /** The entry of the file now at `path` (a deleted file's entry does not count: its path is free). */
  private current(path: string): ChangeEntry | undefined {
    for (const entry of this.entries.values()) if (entry.path === path && entry.after !== null) return entry;
    return undefined;
  }

  private deleted(path: string): ChangeEntry | undefined {
    for (const entry of this.entries.values()) if (entry.path === path && entry.after === null) return entry;
    return undefined;
  }

  private add(path: string, before: string | null): ChangeEntry {
    const entry: ChangeEntry = { id: this.nextId++, path, origin: before === null ? null : path, before, after: before };
    this.entries.set(entry.id, entry);
    return entry;
  }
}

/** An entry as a change: none when the file ended as it began (written back, renamed back). */
export function describeEntry(entry: ChangeEntry): AgentChange[] {
  const { path, origin, before, after } = entry;
  if (origin === path && before === after) return [];
  const action: ChangeAction = origin === null ? 'created' : after === null ? 'deleted' : origin !== path ? 'renamed' : 'modified';
  const diff = unifiedDiff(before, after, { from: origin, to: after === null ? null : path });
  return [{ file: path, action, ...(action === 'renamed' ? { from: origin! } : {}), diff }];
}
