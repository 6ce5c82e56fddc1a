// Creating, renaming and deleting the workspace's files and folders on behalf of the user (the
// window's file tree, the local API, `loom mcp`). Every change goes through the workspace's
// one gate (WorkspacePaths: inside the workspace, never a protected path, checked and done in
// one synchronous step), the same gate an agent's create_file, rename_file and delete_file go
// through; the editor's open documents follow (a rename moves them, a deletion closes them),
// and the change is told on the event stream (`file:create`, `file:rename`, `file:delete`), so
// that the window, webhooks and extensions see it. The code index and the workspace learner
// follow the disk through the workspace's watcher, as they do for every write.
import fs from 'node:fs';
import type { EventBus } from '../events/bus.ts';
import { LoomError } from '../errors.ts';
import { withFileSystemErrors } from '../files/fs-errors.ts';
import type { Documents } from './documents.ts';
import type { WorkspacePaths } from './paths.ts';

export type EntryKind = 'file' | 'folder';

/** Longest name of one file or folder, in UTF-8 bytes (most file systems' limit). */
const MAX_NAME_BYTES = 255;

/** What a deletion did: the entry, and the open documents it closed. */
export interface Deleted {
  path: string;
  kind: EntryKind;
  closed: string[];
}

/** What a rename did: both paths, and the open documents that moved with it. */
export interface Renamed {
  from: string;
  to: string;
  kind: EntryKind;
  documents: { from: string; to: string }[];
}

/**
 * The user's file operations on the workspace.
 *
 * @example
 *   const files = new FileOperations(paths, documents, bus);
 *   await files.create('src/new.ts', 'file', 'export {};\n'); // {path: 'src/new.ts', kind: 'file'}; file:create
 *   await files.rename('src/new.ts', 'src/renamed.ts');       // its open document follows; file:rename
 *   await files.remove('src/renamed.ts');                     // its open document closes; file:delete
 */
export class FileOperations {
  constructor(
    private readonly paths: WorkspacePaths,
    private readonly documents: Documents,
    private readonly events: EventBus,
  ) {}

  /**
   * Creates a file (with `text`, empty by default) or a folder, and the missing folders on its
   * way. Anything already at the path is 409 ALREADY_EXISTS, and nothing is written.
   */
  async create(path: string, kind: EntryKind, text = ''): Promise<{ path: string; kind: EntryKind }> {
    const written = checkedPath(path, 'path');
    if (kind === 'folder' && text !== '') throw new LoomError('validation_error', 'A folder has no text: leave `text` out, or create a file.');
    const entry = this.paths.resolveEntryForWrite(written);
    const key = this.paths.relative(entry);
    if (this.exists(entry, written)) throw new LoomError('already_exists', `${key} already exists; nothing was created.`);
    if (kind === 'folder') this.paths.makeFolder(written);
    else this.paths.writeFile(written, text);
    await this.events.emit('file:create', { path: key, kind });
    return { path: key, kind };
  }

  /**
   * Renames (moves) a file or a folder; the folders on the new path's way are created. The new
   * path must not exist (409 ALREADY_EXISTS), nor be inside the folder moved (400). Open
   * documents at or under the old path follow, unsaved edits and all.
   */
  async rename(from: string, to: string): Promise<Renamed> {
    const fromPath = checkedPath(from, 'from');
    const toPath = checkedPath(to, 'to');
    const source = this.paths.resolveEntryForWrite(fromPath);
    const target = this.paths.resolveEntryForWrite(toPath);
    const fromKey = this.paths.relative(source);
    const toKey = this.paths.relative(target);
    const stat = withFileSystemErrors(fromKey, () => fs.lstatSync(source, { throwIfNoEntry: false }));
    if (!stat) throw new LoomError('not_found', `${fromKey} does not exist; nothing was renamed.`);
    const kind: EntryKind = stat.isDirectory() ? 'folder' : 'file';
    if (fromKey === toKey) throw new LoomError('validation_error', `${fromKey} already has that name.`);
    if (toKey.startsWith(`${fromKey}/`)) throw new LoomError('validation_error', `${toKey} is inside ${fromKey}: a folder cannot be moved into itself.`);
    if (this.documents.openUnder(toKey).length > 0) {
      throw new LoomError('already_exists', `${toKey} is open in the editor (its file was deleted meanwhile); nothing was renamed.`, 'Close it first.');
    }
    this.paths.rename(fromPath, toPath);
    const documents = this.documents.followRename(fromKey, toKey);
    await this.events.emit('file:rename', { from: fromKey, to: toKey, kind });
    return { from: fromKey, to: toKey, kind, documents };
  }

  /**
   * Deletes a file, or a folder with everything in it (never the workspace folder, never one
   * that holds a protected path). An open document at or under the path with unsaved edits is
   * 409 UNSAVED_CHANGES unless `discard` says to drop them; the open documents are closed.
   */
  async remove(path: string, options: { discard?: boolean } = {}): Promise<Deleted> {
    const written = checkedPath(path, 'path');
    const entry = this.paths.resolveEntryForWrite(written);
    const key = this.paths.relative(entry);
    const stat = withFileSystemErrors(key, () => fs.lstatSync(entry, { throwIfNoEntry: false }));
    if (!stat) throw new LoomError('not_found', `${key} does not exist; nothing was deleted.`);
    const kind: EntryKind = stat.isDirectory() ? 'folder' : 'file';
    const unsaved = this.documents.openUnder(key).filter((document) => document.dirty);
    if (unsaved.length > 0 && !options.discard) {
      throw new LoomError(
        'unsaved_changes',
        `${unsaved.map((document) => document.path).join(', ')} ${unsaved.length === 1 ? 'has' : 'have'} unsaved edits; deleting would lose them. Nothing was deleted.`,
        'Save or close it first, or delete with {"discard": true}.',
      );
    }
    this.paths.remove(written, { recursive: true });
    const closed = this.documents.closeUnder(key);
    await this.events.emit('file:delete', { path: key, kind });
    return { path: key, kind, closed };
  }

  /** Whether anything is at `entry` (a dangling symbolic link too). */
  private exists(entry: string, written: string): boolean {
    return withFileSystemErrors(written, () => fs.lstatSync(entry, { throwIfNoEntry: false })) !== undefined;
  }
}

/**
 * A path as the user gives it, checked before it reaches the gate: workspace-relative (not
 * absolute, no `..`, not the workspace folder itself), forward or back slashes, no control
 * characters, each name at most MAX_NAME_BYTES. Answers it with forward slashes, without `./`
 * and a trailing slash. Anything else is 400 VALIDATION_ERROR naming `field`.
 */
export function checkedPath(path: string, field: string): string {
  const refuse = (why: string) => new LoomError('validation_error', `${field}: ${why}`, 'Give a path relative to the workspace folder, such as src/app.ts.');
  if (typeof path !== 'string' || path.trim() === '') throw refuse('a path is required.');
  // Control characters (NUL, a newline, an escape) make names no shell or listing shows right.
  if (/[\u0000-\u001f\u007f]/.test(path)) throw refuse('the path holds a control character.');
  if (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path)) throw refuse('the path is absolute.');
  const names = path.split(/[\\/]+/).filter((name) => name !== '' && name !== '.');
  if (names.length === 0) throw refuse('that is the workspace folder itself.');
  if (names.includes('..')) throw refuse('the path names "..".');
  const long = names.find((name) => Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES);
  if (long)
    throw new LoomError('name_too_long', `${field}: a name of ${Buffer.byteLength(long, 'utf8')} bytes is longer than file systems allow (${MAX_NAME_BYTES}).`);
  if (names.some((name) => name.trim() === '')) throw refuse('a name is blank.');
  return names.join('/');
}
