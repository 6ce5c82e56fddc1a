// One task's access to the workspace, with the rules its tools obey:
// - every path resolves inside the workspace (symlinks followed); writes also fall inside the
//   task's `files` globs and outside protected paths, and take the file for this task (FileLocks);
// - the task's view of each file (what it last read or wrote) must still be the file when it
//   writes: an edit by the user meanwhile, saved or still in the editor, is a conflict the
//   model is told about, and the file is left as the user made it;
// - every change is recorded (ChangeLog) and persisted before the next step.
// Checks and the write happen in one synchronous step: nothing else in the process can change
// the file in between. A refusal is a ToolFailure, whose message is for the model.
import { LoomError } from '../../errors.ts';
import type { GlobSet } from '../scope/glob.ts';
import { AGENT_FILE_LIMIT, type AgentFiles } from './agent-files.ts';
import type { ChangeEntry, ChangeLog } from './change-log.ts';
import type { FileLocks } from './file-locks.ts';

/** A tool's refusal or failure, worded for the model. */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
}

/** What happened to an entry of the change log: changed, or gone (a created file deleted again). */
export type ChangeRecord = ChangeEntry | { id: number; gone: true };

export interface TaskFilesOptions {
  taskId: string;
  files: AgentFiles;
  /** The globs of the files the task may change. */
  scope: GlobSet;
  locks: FileLocks;
  changes: ChangeLog;
  /** Persists a change (awaited after each write, before the tool answers). */
  onChange(record: ChangeRecord): Promise<void>;
}

export class TaskFiles {
  /** What the task last read or wrote of each file (null: it saw no file there). */
  private readonly views = new Map<string, string | null>();

  constructor(private readonly options: TaskFilesOptions) {}

  /** The workspace-relative real path of a path the model gave. */
  resolve(path: string): string {
    if (typeof path !== 'string' || path.trim() === '') throw new ToolFailure('A path is required.');
    return this.guard(() => this.options.files.key(path.trim().replace(/^\.\//, '')));
  }

  /** Whether the task may change `key` (its globs). */
  inScope(key: string): boolean {
    return this.options.scope.matches(key);
  }

  /** Records that the task was shown `text` as the content of `key` (the first prompt shows small files). */
  saw(key: string, text: string): void {
    this.views.set(key, text);
  }

  /** Reads a file, recording the task's view of it; throws ToolFailure when it is missing or unreadable. */
  read(path: string): { key: string; text: string } {
    const key = this.resolve(path);
    const text = this.guard(() => this.options.files.read(key));
    this.views.set(key, text);
    if (text === null) throw new ToolFailure(`${key} does not exist.`);
    return { key, text };
  }

  /**
   * Writes the file at `path` with what `produce` makes of its current content (null: no file),
   * after the checks above; `produce` may throw ToolFailure (an edit that does not apply).
   * `seenFirst`: refuse an existing file the task has not read (an edit must be made on what
   * the model saw, and a path it never looked at is likely a wrong one). Content over
   * AGENT_FILE_LIMIT is refused, nothing written: every write of a task (edits, blocks,
   * creations) comes through here.
   */
  async write(
    path: string,
    produce: (current: string | null, key: string) => string,
    options: { seenFirst?: boolean } = {},
  ): Promise<{ key: string; before: string | null; after: string }> {
    const key = this.claim(path);
    const before = this.unchanged(key);
    if (options.seenFirst && before !== null && !this.views.has(key)) {
      throw new ToolFailure(`You have not read ${key}: read it first (read_file), then make your change on what it holds.`);
    }
    const after = produce(before, key);
    if (after === before) return { key, before, after };
    const bytes = Buffer.byteLength(after, 'utf8');
    if (bytes > AGENT_FILE_LIMIT) {
      throw new ToolFailure(
        `${key} would be ${bytes.toLocaleString('en-US')} bytes; agents write files of at most ${AGENT_FILE_LIMIT.toLocaleString('en-US')} bytes (1 MiB). Nothing was written: split the content into smaller files.`,
      );
    }
    const written = this.guard(() => this.options.files.write(key, after));
    this.views.set(key, after);
    await written.catch((error: unknown) => {
      throw asToolFailure(error);
    });
    await this.options.onChange(this.options.changes.wrote(key, before, after));
    return { key, before, after };
  }

  /** Deletes the file at `path`; resolves with its path and what it held. */
  async remove(path: string): Promise<{ key: string; before: string }> {
    const key = this.claim(path);
    const before = this.unchanged(key);
    if (before === null) throw new ToolFailure(`${key} does not exist.`);
    const removed = this.guard(() => this.options.files.remove(key));
    this.views.set(key, null);
    await removed;
    await this.options.onChange(this.options.changes.removed(key, before));
    return { key, before };
  }

  /** Renames the file at `from` to `to` (which must not exist). */
  async rename(from: string, to: string): Promise<{ from: string; to: string }> {
    const source = this.claim(from);
    const target = this.claim(to);
    const content = this.unchanged(source);
    if (content === null) throw new ToolFailure(`${source} does not exist.`);
    if (this.guard(() => this.options.files.read(target)) !== null) throw new ToolFailure(`${target} already exists; nothing was renamed.`);
    const renamed = this.guard(() => this.options.files.rename(source, target));
    this.views.set(source, null);
    this.views.set(target, content);
    await renamed;
    await this.options.onChange(this.options.changes.renamed(source, target, content));
    return { from: source, to: target };
  }

  /** The checks every write starts with: inside the globs, not protected, not another task's. */
  private claim(path: string): string {
    const key = this.resolve(path);
    if (!this.inScope(key)) {
      throw new ToolFailure(
        `${key} is outside the files this task may change (${this.options.scope.globs.map((glob) => glob.source).join(', ')}); it may be read, not changed.`,
      );
    }
    this.guard(() => this.options.files.checkWritable(key));
    const holder = this.options.locks.claim(key, this.options.taskId);
    if (holder !== undefined) {
      throw new ToolFailure(
        `${key} is being changed by another agent task (${holder}), which holds it until it ends. Work on other files, or finish and say what you would change in it.`,
      );
    }
    return key;
  }

  /** The file's content now, when it is still what the task last saw of it; else a conflict. */
  private unchanged(key: string): string | null {
    const now = this.guard(() => this.options.files.read(key));
    if (this.options.files.hasUnsavedEdits(key)) {
      throw new ToolFailure(
        `${key} has edits in the editor that the user has not saved; Loom does not write it meanwhile. Work on other files, or finish and say what you would change in it.`,
      );
    }
    if (this.views.has(key) && this.views.get(key) !== now) {
      this.views.set(key, now);
      throw new ToolFailure(
        `${key} changed since you last read it: the user (or another program) edited it, and your change was not applied. Read it again and make your change on what it holds now.`,
      );
    }
    return now;
  }

  private guard<T>(work: () => T): T {
    return withToolFailures(work);
  }
}

/** Runs `work`, turning a LoomError it throws (a path refused, a file-system failure) into a ToolFailure with the same words. */
export function withToolFailures<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw asToolFailure(error);
  }
}

/** A LoomError (a path refused, a file-system failure) as the model is told it; anything else as it is. */
function asToolFailure(error: unknown): unknown {
  return error instanceof LoomError ? new ToolFailure(error.hint ? `${error.message} ${error.hint}` : error.message) : error;
}
