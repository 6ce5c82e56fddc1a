// The editor's open documents: each held in a TextBuffer (edits cost the edit, not the file),
// one of them active, each with a cursor. Positions on the public side are 1-based lines and
// columns (UTF-16 code units, as in JavaScript strings and LSP); inside they are 0-based.
import fs from 'node:fs';
import type {
  ClosedDocument,
  CursorRequest,
  DocumentSummary,
  DocumentText,
  EditResult,
  InsertRequest,
  Position,
  ReplaceRequest,
} from '../../contracts/local-resources.ts';
import type { EventBus } from '../events/bus.ts';
import { LoomError } from '../errors.ts';
import { withFileSystemErrors } from '../files/fs-errors.ts';
import { readRegularFile } from '../files/read-regular.ts';
import { changedRange } from '../text/changed-range.ts';
import { TextBuffer } from '../text/index.ts';
import { detectLanguage } from './language.ts';
import type { WorkspacePaths } from './paths.ts';

/** Largest file the editor opens. */
export const MAX_DOCUMENT_BYTES = 128 * 1024 * 1024;

interface DiskState {
  mtimeMs: number;
  size: number;
  ino: number;
}

interface Document {
  path: string;
  absolute: string;
  language: string;
  buffer: TextBuffer;
  /** 0-based offset of the cursor in the buffer. */
  cursor: number;
  version: number;
  savedVersion: number;
  /** The file as last loaded or saved. */
  disk: DiskState;
  /** At the last look, the file on disk differed from `disk` while the document had unsaved edits. */
  changedOnDisk: boolean;
  /** Opened from a protected path (.git, .loom): readable, never edited or saved. */
  readOnly: boolean;
}

/** What a look at an open document's file found: nothing new, the file gone, a change it took, or one under unsaved edits. */
export type DiskLook = 'unchanged' | 'gone' | 'taken' | 'conflict';

/** Told of every change to a document's text: an edit, or a reload from disk. `text` reads it when needed. */
export type DocumentChangeListener = (path: string, text: () => string) => void;

/** Told when a file is opened as a document (not when an open one is activated again) and when it is closed. */
export interface DocumentLifecycleListener {
  opened(path: string, language: string, text: () => string): void;
  closed(path: string): void;
}

/** One edit of several applied together (applyEdits): the range as the text is before any of them, and what replaces it. */
export interface DocumentEdit {
  start: Position;
  end: Position;
  text: string;
}

export class Documents {
  /** The open documents, the most recently activated last. */
  private readonly open = new Map<string, Document>();
  private activePath: string | undefined;
  private readonly changeListeners = new Set<DocumentChangeListener>();
  private readonly lifecycleListeners = new Set<DocumentLifecycleListener>();

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly events: EventBus,
  ) {}

  /** Listens to text changes (the completion model learns from them); returns the unsubscribe. */
  onChange(listener: DocumentChangeListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Listens to documents opening and closing (language servers mirror them); returns the unsubscribe. */
  onLifecycle(listener: DocumentLifecycleListener): () => void {
    this.lifecycleListeners.add(listener);
    return () => this.lifecycleListeners.delete(listener);
  }

  private changed(document: Document): void {
    for (const listener of this.changeListeners) listener(document.path, () => document.buffer.getText());
  }

  private removed(path: string): void {
    for (const listener of this.lifecycleListeners) listener.closed(path);
  }

  /**
   * Opens (or re-activates) a workspace file and makes it the active document. Emits file:open.
   * A file in a protected path (.git, .loom) opens read-only.
   */
  async openFile(relative: string): Promise<DocumentSummary> {
    const absolute = this.paths.resolve(relative);
    const key = this.paths.relative(absolute);
    let document = this.open.get(key);
    const opening = !document;
    if (!document) {
      const { text, stat } = readRegularFile(absolute, key, MAX_DOCUMENT_BYTES);
      document = {
        path: key,
        absolute,
        language: detectLanguage(key, text),
        buffer: new TextBuffer(text),
        cursor: 0,
        version: 1,
        savedVersion: 1,
        disk: diskState(stat),
        changedOnDisk: false,
        readOnly: !this.paths.isWritable(absolute),
      };
    } else {
      this.syncWithDisk(document);
      this.open.delete(key); // re-inserted last: the most recently activated
    }
    this.open.set(key, document);
    this.activePath = key;
    if (opening) for (const listener of this.lifecycleListeners) listener.opened(key, document.language, () => document.buffer.getText());
    await this.events.emit('file:open', { path: key, language: document.language });
    return this.summary(document);
  }

  /** The active document (GET /editor/file). */
  active(): DocumentSummary {
    return this.summary(this.activeDocument());
  }

  list(): DocumentSummary[] {
    for (const document of this.open.values()) this.syncWithDisk(document);
    return [...this.open.values()].map((d) => this.summary(d));
  }

  /** Text of a document (the active one when no path is given). */
  async text(relative?: string): Promise<DocumentText> {
    const document = this.document(relative);
    return { path: document.path, text: document.buffer.getText(), version: document.version };
  }

  /** Inserts at a position, or at the cursor when none is given; the cursor ends after the text. */
  async insert(input: InsertRequest): Promise<EditResult> {
    const document = this.editable(this.document(input.path));
    const at = input.line === undefined && input.column === undefined ? document.cursor : this.offsetOf(document, input.line, input.column, 'line', 'column');
    return this.edit(document, at, at, input.text);
  }

  /** Replaces a range (start inclusive, end exclusive); the cursor ends after the new text. */
  async replace(input: ReplaceRequest): Promise<EditResult> {
    const document = this.editable(this.document(input.path));
    if (input.version !== undefined && input.version !== document.version) {
      throw new LoomError(
        'version_conflict',
        `${document.path} is at version ${document.version}, not ${input.version}: another edit came first; nothing was changed.`,
        'Read the text again (GET /api/editor/text) and make the edit against it.',
      );
    }
    const start = this.offsetOf(document, input.startLine, input.startColumn, 'startLine', 'startColumn');
    const end = this.offsetOf(document, input.endLine, input.endColumn, 'endLine', 'endColumn');
    if (end < start) throw outOfRange('The end of the range comes before its start.');
    return this.edit(document, start, end, input.text);
  }

  /** Puts the cursor at a position of a document (the active one when no path is given). */
  moveCursor(input: CursorRequest): DocumentSummary {
    const document = this.document(input.path);
    document.cursor = this.offsetOf(document, input.line, input.column, 'line', 'column');
    return this.summary(document);
  }

  /**
   * Writes a document to disk atomically (temp file, fsync, rename) through the workspace's
   * write gate, which refuses protected paths. A document whose file changed on disk while it
   * had unsaved edits is refused (edit_conflict) unless `overwrite` says to replace that
   * change. A deleted file is written again. Emits file:save.
   */
  async save(relative?: string, options: { overwrite?: boolean } = {}): Promise<DocumentSummary> {
    const document = this.editable(this.document(relative));
    if (document.changedOnDisk && !options.overwrite) {
      throw new LoomError(
        'edit_conflict',
        `${document.path} changed on disk since it was opened; saving would overwrite those changes.`,
        'Reload it from disk (POST /api/editor/reload, losing these edits), or save with {"overwrite": true} (losing the change on disk).',
      );
    }
    this.paths.writeFile(document.path, document.buffer.getText(), { at: document.absolute });
    const after = withFileSystemErrors(document.path, () => fs.statSync(document.absolute));
    document.disk = diskState(after);
    document.changedOnDisk = false;
    document.savedVersion = document.version;
    await this.events.emit('file:save', { path: document.path, version: document.version, bytes: after.size });
    return this.summary(document);
  }

  /**
   * Reads a document again from disk, discarding its unsaved edits (the way out of a
   * conflict). The version goes up; the cursor stays where it was, within the new text.
   * Emits file:open with `reloaded: true`: the document now holds the file as opening it would.
   */
  async reload(relative?: string): Promise<DocumentSummary> {
    const document = this.document(relative);
    const { text, stat } = readRegularFile(document.absolute, document.path, MAX_DOCUMENT_BYTES);
    this.load(document, text, stat);
    await this.events.emit('file:open', { path: document.path, language: document.language, reloaded: true });
    return this.summary(document);
  }

  /**
   * Closes a document. One with unsaved edits is refused (unsaved_changes) unless `discard`
   * says to drop them. When it was the active one, the most recently activated other document
   * becomes active (none when it was the last).
   */
  async close(relative?: string, options: { discard?: boolean } = {}): Promise<ClosedDocument> {
    const document = this.document(relative);
    if (isDirty(document) && !options.discard) {
      throw new LoomError(
        'unsaved_changes',
        `${document.path} has unsaved edits; closing it would lose them.`,
        'Save it first, or close it with {"discard": true}.',
      );
    }
    this.open.delete(document.path);
    if (this.activePath === document.path) this.activePath = [...this.open.keys()].at(-1);
    this.removed(document.path);
    return { path: document.path, active: this.activePath ?? null };
  }

  /**
   * Whether `relative` is open in the editor, and with edits not saved yet; undefined when it
   * is not open. A program that writes files (an agent) never writes one with unsaved edits.
   */
  openState(relative: string): { dirty: boolean } | undefined {
    const document = this.open.get(this.paths.relative(this.paths.resolve(relative)));
    if (!document) return undefined;
    this.syncWithDisk(document);
    return { dirty: isDirty(document) };
  }

  /**
   * Writes `text` as the whole content of a workspace file on behalf of a program (an agent):
   * through its open document when there is one, as one edit of the stretch that differs (the
   * editor shows it live; the cursor keeps its place in the text around), then saved; straight
   * to disk otherwise; atomically either way, through the workspace's write gate. The file is
   * written before this returns (the promise settles once file:save is emitted), so a check
   * the caller makes just before and this write are one step. The caller has checked that the
   * document has no unsaved edits (openState).
   */
  writeThrough(relative: string, text: string): Promise<void> {
    const document = this.open.get(this.paths.relative(this.paths.resolve(relative)));
    if (!document) {
      this.paths.writeFile(relative, text);
      return Promise.resolve();
    }
    const change = changedRange(document.buffer.getText(), text);
    if (!change) return this.save(document.path).then(() => undefined);
    const from = this.position(document, change.start);
    const to = this.position(document, change.end);
    document.buffer.replace(change.start, change.end - change.start, change.text);
    if (document.cursor >= change.end) document.cursor += change.text.length - (change.end - change.start);
    else if (document.cursor > change.start) document.cursor = change.start;
    document.version += 1;
    this.changed(document);
    // Both started now: the change is numbered before the save, and the file is written before this returns.
    const changed = this.events.emit('file:change', { path: document.path, version: document.version, from, to, text: change.text });
    const saved = this.save(document.path);
    return Promise.all([changed, saved]).then(() => undefined);
  }

  /**
   * Closes the document of a file a program removed or renamed (it had no unsaved edits, or
   * the program would not have touched the file); nothing when it is not open.
   */
  closeRemoved(relative: string): void {
    const key = this.paths.relative(this.paths.resolve(relative));
    if (!this.open.delete(key)) return;
    if (this.activePath === key) this.activePath = [...this.open.keys()].at(-1);
    this.removed(key);
  }

  /**
   * The open documents at `key` or under it (a folder), as workspace-relative real paths;
   * `key` is already resolved (a file operation's entry).
   */
  openUnder(key: string): { path: string; dirty: boolean }[] {
    return [...this.open.values()]
      .filter((document) => isAtOrUnder(document.path, key))
      .map((document) => {
        this.syncWithDisk(document);
        return { path: document.path, dirty: isDirty(document) };
      });
  }

  /**
   * The file or folder `from` was renamed to `to` (both resolved keys, the rename done): every
   * open document at or under `from` now stands for its file at the new path, with its text,
   * unsaved edits, version and cursor as they were; its language is found again from the new
   * name. Language servers see the old path closed and the new one opened. Answers the
   * documents moved.
   *
   * @example
   *   documents.followRename('src/old', 'src/new'); // [{from: 'src/old/a.ts', to: 'src/new/a.ts'}]
   */
  followRename(from: string, to: string): { from: string; to: string }[] {
    const moved: { from: string; to: string }[] = [];
    const documents = [...this.open.values()];
    this.open.clear();
    // Rebuilt in the same order: the most recently activated stays last.
    for (const document of documents) {
      if (isAtOrUnder(document.path, from)) {
        const absolute = this.paths.resolve(to + document.path.slice(from.length));
        const renamed = this.paths.relative(absolute);
        this.removed(document.path);
        moved.push({ from: document.path, to: renamed });
        if (this.activePath === document.path) this.activePath = renamed;
        document.path = renamed;
        document.absolute = absolute;
        document.language = detectLanguage(renamed, document.buffer.getText());
        document.readOnly = !this.paths.isWritable(absolute);
        for (const listener of this.lifecycleListeners) listener.opened(renamed, document.language, () => document.buffer.getText());
      }
      this.open.set(document.path, document);
    }
    return moved;
  }

  /**
   * Closes every document at or under `key` (a file or folder a program removed), unsaved
   * edits or not: the caller asked the user. Answers the paths closed.
   */
  closeUnder(key: string): string[] {
    const closed: string[] = [];
    for (const path of [...this.open.keys()]) {
      if (!isAtOrUnder(path, key)) continue;
      this.open.delete(path);
      this.removed(path);
      closed.push(path);
    }
    if (this.activePath !== undefined && !this.open.has(this.activePath)) this.activePath = [...this.open.keys()].at(-1);
    return closed;
  }

  /**
   * Applies several edits to an open document at once (a rename's edits of one file), each told
   * as a file:change, last first so that each event's range is right for the text as the client
   * has it then. The ranges are positions in the text at `version` and must not overlap; the
   * cursor keeps its place in the text around them. Every check (version, ranges, read-only) is
   * made and the text changed before this first waits, so no other request comes in between.
   * The edits stay unsaved, as the user's own would.
   *
   * @example
   *   await documents.applyEdits('src/a.ts', [{ start: { line: 1, column: 7 }, end: { line: 1, column: 12 }, text: 'total' }], 4);
   */
  applyEdits(relative: string, edits: readonly DocumentEdit[], version: number): Promise<DocumentSummary> {
    const document = this.editable(this.document(relative));
    if (version !== document.version) {
      throw new LoomError(
        'version_conflict',
        `${document.path} is at version ${document.version}, not ${version}: it changed since the edit was made; nothing was changed.`,
        'Make the edit again against the text as it is now.',
      );
    }
    // Last first; of two inserts at one place, the later one first, so that they end up in their given order.
    const spans = edits
      .map((edit, index) => ({
        start: this.offsetOf(document, edit.start.line, edit.start.column, 'line', 'column'),
        end: this.offsetOf(document, edit.end.line, edit.end.column, 'line', 'column'),
        text: edit.text,
        index,
      }))
      .sort((a, b) => b.start - a.start || b.end - a.end || b.index - a.index);
    for (let i = 0; i < spans.length; i++) {
      if (spans[i]!.end < spans[i]!.start) throw outOfRange('An edit ends before it starts; nothing was changed.');
      if (i > 0 && spans[i]!.end > spans[i - 1]!.start) throw outOfRange('Two edits overlap; nothing was changed.');
    }
    const changes: Record<string, unknown>[] = [];
    for (const span of spans) {
      const from = this.position(document, span.start);
      const to = this.position(document, span.end);
      document.buffer.replace(span.start, span.end - span.start, span.text);
      if (document.cursor >= span.end) document.cursor += span.text.length - (span.end - span.start);
      else if (document.cursor > span.start) document.cursor = span.start;
      document.version += 1;
      changes.push({ path: document.path, version: document.version, from, to, text: span.text });
    }
    if (changes.length > 0) this.changed(document);
    // Emitted together, in order: a live-only event reaches its listeners within emit(), so no other edit's event comes between.
    return Promise.all(changes.map((data) => this.events.emit('file:change', data))).then(() => this.summary(document));
  }

  /**
   * Applies an edit and emits file:change with the replaced range as it was before the edit, so
   * a client holding the previous version (the window) can apply the same change to its copy.
   */
  private async edit(document: Document, start: number, end: number, text: string): Promise<EditResult> {
    const buffer = document.buffer;
    const from = this.position(document, start);
    const to = this.position(document, end);
    buffer.replace(start, end - start, text);
    document.cursor = start + text.length;
    document.version += 1;
    this.changed(document);
    await this.events.emit('file:change', { path: document.path, version: document.version, from, to, text });
    return {
      path: document.path,
      version: document.version,
      lineCount: buffer.lineCount,
      cursorLine: this.position(document, document.cursor).line,
      cursor: this.position(document, document.cursor),
      range: { start: this.position(document, start), end: this.position(document, start + text.length) },
    };
  }

  /**
   * The file `relative` changed on disk (the workspace's watcher says so): its open document
   * looks at it now, as a read would (a document without unsaved edits takes the change and
   * file:open `reloaded` tells the clients; one with unsaved edits is marked in conflict).
   * Answers `not-open`, `unchanged` when the disk holds what the document last loaded or saved
   * (its own save), or what the look found (`gone`, `taken`, `conflict`).
   *
   * @example
   *   await documents.noticeDiskChange('src/a.ts'); // 'taken': the window shows the new text
   */
  async noticeDiskChange(relative: string): Promise<'not-open' | DiskLook> {
    const document = this.open.get(relative);
    if (!document) return 'not-open';
    const look = this.syncWithDisk(document, { announce: false });
    // Awaited here: what the caller says next (disk:change) comes after it on the stream.
    if (look === 'taken') await this.announceReload(document);
    return look;
  }

  /**
   * Looks at the file on disk: a document without unsaved edits takes another program's
   * change; one with unsaved edits keeps them and is marked changedOnDisk (save reports the
   * conflict). Never throws: a file that is gone, unreadable or no longer a regular file
   * leaves the document as it is (saving writes the file again).
   */
  private syncWithDisk(document: Document, options: { announce?: boolean } = {}): DiskLook {
    const stat = statQuietly(document.absolute);
    if (!stat || sameDisk(stat, document.disk)) {
      document.changedOnDisk = false;
      return stat ? 'unchanged' : 'gone';
    }
    if (isDirty(document)) {
      document.changedOnDisk = true;
      return 'conflict';
    }
    let loaded: { text: string; stat: fs.Stats };
    try {
      loaded = readRegularFile(document.absolute, document.path, MAX_DOCUMENT_BYTES);
    } catch {
      return 'unchanged';
    }
    this.load(document, loaded.text, loaded.stat);
    // Not awaited: this look happens inside reads; a webhook outbox that fails only loses this notice.
    if (options.announce !== false) this.announceReload(document).catch(() => undefined);
    return 'taken';
  }

  /** Said like a reload: clients holding the document (the window) read it again. */
  private announceReload(document: Document): Promise<unknown> {
    return this.events.emit('file:open', { path: document.path, language: document.language, reloaded: true });
  }

  /** Replaces a document's text with what was read from disk: a new, saved version. */
  private load(document: Document, text: string, stat: fs.Stats): void {
    document.buffer = new TextBuffer(text);
    document.cursor = Math.min(document.cursor, document.buffer.length);
    document.disk = diskState(stat);
    document.changedOnDisk = false;
    document.version += 1;
    document.savedVersion = document.version;
    this.changed(document);
  }

  private document(relative?: string): Document {
    if (relative === undefined) return this.activeDocument();
    const key = this.paths.relative(this.paths.resolve(relative));
    const document = this.open.get(key);
    if (!document) throw new LoomError('not_found', `${key || '.'} is not open.`, 'POST /api/editor/open first.');
    this.syncWithDisk(document);
    return document;
  }

  private activeDocument(): Document {
    const document = this.activePath ? this.open.get(this.activePath) : undefined;
    if (!document) throw new LoomError('no_active_file', 'No file is open in the editor.', 'POST /api/editor/open {"path": "…"} to open one.');
    this.syncWithDisk(document);
    return document;
  }

  /** The document, unless it was opened from a protected path. */
  private editable(document: Document): Document {
    if (document.readOnly) {
      throw new LoomError(
        'protected_path',
        `${document.path} is open read-only: it is in a git directory or in .loom, where Loom never writes.`,
        'Git changes its own files through git commands; .loom is changed by the app.',
      );
    }
    return document;
  }

  private offsetOf(document: Document, line: number | undefined, column: number | undefined, lineField: string, columnField: string): number {
    const buffer = document.buffer;
    const cursor = this.position(document, document.cursor);
    const l = line ?? cursor.line;
    const c = column ?? (line === undefined ? cursor.column : 1);
    if (!Number.isInteger(l) || l < 1 || l > buffer.lineCount) throw outOfRange(`${lineField} ${l} is outside 1..${buffer.lineCount}.`);
    const lineLength = buffer.lineLength(l - 1);
    if (!Number.isInteger(c) || c < 1 || c > lineLength + 1) throw outOfRange(`${columnField} ${c} is outside 1..${lineLength + 1} on line ${l}.`);
    return buffer.offsetAt(l - 1, c - 1);
  }

  private position(document: Document, offset: number): Position {
    const { line, column } = document.buffer.positionAt(offset);
    return { line: line + 1, column: column + 1 };
  }

  private summary(document: Document): DocumentSummary {
    const cursor = this.position(document, document.cursor);
    return {
      path: document.path,
      language: document.language,
      lineCount: document.buffer.lineCount,
      cursorLine: cursor.line,
      cursor,
      version: document.version,
      dirty: isDirty(document),
      conflict: document.changedOnDisk,
      readOnly: document.readOnly,
      active: document.path === this.activePath,
    };
  }
}

function outOfRange(message: string): LoomError {
  return new LoomError('out_of_range', message, 'Lines and columns are 1-based; a column may be one past the end of its line.');
}

function isDirty(document: Document): boolean {
  return document.version !== document.savedVersion;
}

function diskState(stat: fs.Stats): DiskState {
  return { mtimeMs: stat.mtimeMs, size: stat.size, ino: stat.ino };
}

function sameDisk(stat: fs.Stats, disk: DiskState): boolean {
  return stat.mtimeMs === disk.mtimeMs && stat.size === disk.size && stat.ino === disk.ino;
}

/** The file's stat, or undefined when it is gone or cannot be looked at. */
function statQuietly(absolute: string): fs.Stats | undefined {
  try {
    return fs.statSync(absolute, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Whether the workspace-relative `path` is `key` or lies in the folder `key`. */
function isAtOrUnder(path: string, key: string): boolean {
  return path === key || path.startsWith(`${key}/`);
}
