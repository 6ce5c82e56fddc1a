// Where an agent's tools read and write: a folder on disk (a composer session's scratch copy), or
// the desktop workspace through the editor's documents, so that a file open in the app changes live. Every path goes through the workspace's gate:
// reads resolve inside the workspace (symlinks followed), writes are refused in protected
// paths (.git, .loom, git directories). Files are read whole, as text, up to a size limit.
import { LoomError } from '../../errors.ts';
import { readRegularFile } from '../../files/read-regular.ts';
import { withFileSystemErrors } from '../../files/fs-errors.ts';
import type { EventBus } from '../../events/bus.ts';
import type { Documents } from '../../workspace/documents.ts';
import type { WorkspacePaths } from '../../workspace/paths.ts';
import fs from 'node:fs';

/** Largest file an agent reads or writes: beyond it a file is data, not code to edit by hand. */
export const AGENT_FILE_LIMIT = 1024 * 1024;

export interface AgentFiles {
  /** The workspace's real path. */
  readonly root: string;
  /** The workspace's gate, which walks of it (list_files, search, a task's globs) go through. */
  readonly paths: WorkspacePaths;
  /**
   * The workspace-relative real path of `relative` (symlinks followed): the one name a file
   * has for views, scopes and locks. Throws LoomError forbidden_path outside the workspace.
   */
  key(relative: string): string;
  /**
   * The file's text now, or null when nothing is there. Throws LoomError for a folder, a file
   * over AGENT_FILE_LIMIT, a binary file, or a file-system failure.
   */
  read(key: string): string | null;
  /** Whether the editor holds edits of the file that are not saved. */
  hasUnsavedEdits(key: string): boolean;
  /** Throws LoomError protected_path (or forbidden_path) when `key` may not be written. */
  checkWritable(key: string): void;
  /** Writes the whole file; done before the promise is returned (it settles once the save is announced). */
  write(key: string, text: string): Promise<void>;
  /**
   * Removes the file: done, or refused with a thrown LoomError, before the promise is returned
   * (callers check and change several files in one synchronous pass); it settles once the
   * deletion is told.
   */
  remove(key: string): Promise<void>;
  /** Renames the file, never replacing an existing one: done or thrown as `remove`; the promise settles once the rename is told. */
  rename(from: string, to: string): Promise<void>;
}

/**
 * A folder's files, straight on disk: a composer session's scratch copy (attached files, or a
 * git worktree). Nobody edits it but the task, so there are never unsaved edits; every path
 * still goes through the workspace's gate, since the files come from an untrusted repository
 * or request.
 *
 * @example
 * const files = new FolderFiles(new WorkspacePaths('/var/lib/loom/composer/scratch/3f2a…'));
 * files.read(files.key('src/app.ts'));
 */
export class FolderFiles implements AgentFiles {
  readonly root: string;

  constructor(readonly paths: WorkspacePaths) {
    this.root = paths.root;
  }

  key(relative: string): string {
    return this.paths.relative(this.paths.resolve(relative));
  }

  read(key: string): string | null {
    const absolute = this.paths.resolve(key);
    const stat = withFileSystemErrors(key, () => fs.statSync(absolute, { throwIfNoEntry: false }));
    if (!stat) return null;
    const { text } = readRegularFile(absolute, key, AGENT_FILE_LIMIT);
    if (text.includes('\u0000')) throw new LoomError('not_a_file', `${key} is a binary file; agents read and edit text files only.`);
    return text;
  }

  hasUnsavedEdits(_key: string): boolean {
    return false;
  }

  checkWritable(key: string): void {
    this.paths.resolveForWrite(key);
  }

  async write(key: string, text: string): Promise<void> {
    this.paths.writeFile(key, text);
  }

  remove(key: string): Promise<void> {
    this.paths.remove(key);
    return Promise.resolve();
  }

  rename(from: string, to: string): Promise<void> {
    this.paths.rename(from, to);
    return Promise.resolve();
  }
}

/**
 * The desktop workspace's files, through the editor's documents: a file open in the app changes
 * live, and follows a rename. A deletion or a rename is told on the event stream as the file
 * tree's own are (`file:delete`, `file:rename`): the window's tabs and tree, webhooks and
 * extensions see what an agent did as they see what a user did.
 */
export class EditorFiles extends FolderFiles {
  constructor(
    paths: WorkspacePaths,
    private readonly documents: Documents,
    private readonly events: EventBus,
  ) {
    super(paths);
  }

  override hasUnsavedEdits(key: string): boolean {
    return this.documents.openState(key)?.dirty ?? false;
  }

  override write(key: string, text: string): Promise<void> {
    return this.documents.writeThrough(key, text);
  }

  override remove(key: string): Promise<void> {
    this.paths.remove(key);
    this.documents.closeRemoved(key);
    return this.events.emit('file:delete', { path: key, kind: 'file' }).then(() => undefined);
  }

  /** The open document follows (a task renames only a file with no unsaved edits). */
  override rename(from: string, to: string): Promise<void> {
    this.paths.rename(from, to);
    this.documents.followRename(from, to);
    return this.events.emit('file:rename', { from, to, kind: 'file' }).then(() => undefined);
  }
}
