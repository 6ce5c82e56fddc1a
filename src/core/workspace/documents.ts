// The editor's open documents: each held in a TextBuffer (edits cost the edit, not the file),
// one of them active, each with a cursor. Positions on the public side are 1-based lines and
// columns (UTF-16 code units, as in JavaScript strings and LSP); inside they are 0-based.
import fs from 'node:fs';
import type { EventBus } from '../events/bus.ts';
import { LoomError } from '../errors.ts';
import { writeFileAtomically } from '../files/write-atomically.ts';
import { TextBuffer } from '../text/index.ts';
import { detectLanguage } from './language.ts';
import type { WorkspacePaths } from './paths.ts';

/** Largest file the editor opens. */
export const MAX_DOCUMENT_BYTES = 128 * 1024 * 1024;

export interface Position {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
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
  disk: { mtimeMs: number; size: number } | null;
}

export interface DocumentSummary {
  path: string;
  language: string;
  lineCount: number;
  cursorLine: number;
  cursor: Position;
  version: number;
  dirty: boolean;
  active: boolean;
}

export interface EditResult {
  path: string;
  version: number;
  lineCount: number;
  cursorLine: number;
  cursor: Position;
  /** Where the edit happened, after it: the inserted text spans from `range.start` to `range.end`. */
  range: { start: Position; end: Position };
}

/** Told of every change to a document's text: an edit, or a reload from disk. `text` reads it when needed. */
export type DocumentChangeListener = (path: string, text: () => string) => void;

export class Documents {
  private readonly open = new Map<string, Document>();
  private activePath: string | undefined;
  private readonly changeListeners = new Set<DocumentChangeListener>();

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly events: EventBus,
  ) {}

  /** Listens to text changes (the completion model learns from them); returns the unsubscribe. */
  onChange(listener: DocumentChangeListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private changed(document: Document): void {
    for (const listener of this.changeListeners) listener(document.path, () => document.buffer.getText());
  }

  /** Opens (or re-activates) a workspace file and makes it the active document. Emits file:open. */
  async openFile(relative: string): Promise<DocumentSummary> {
    const absolute = await this.paths.resolve(relative);
    const key = this.paths.relative(absolute);
    let document = this.open.get(key);
    if (!document) {
      const stat = statFile(absolute, key);
      if (!stat) throw new LoomError('not_found', `${key} does not exist.`);
      if (!stat.isFile()) throw new LoomError('validation_error', `${key} is not a file.`);
      if (stat.size > MAX_DOCUMENT_BYTES) throw new LoomError('payload_too_large', `${key} is larger than ${MAX_DOCUMENT_BYTES} bytes.`);
      const text = fs.readFileSync(absolute, 'utf8');
      document = {
        path: key,
        absolute,
        language: detectLanguage(key, text),
        buffer: new TextBuffer(text),
        cursor: 0,
        version: 1,
        savedVersion: 1,
        disk: { mtimeMs: stat.mtimeMs, size: stat.size },
      };
      this.open.set(key, document);
    } else {
      this.syncWithDisk(document);
    }
    this.activePath = key;
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
  async text(relative?: string): Promise<{ path: string; text: string; version: number }> {
    const document = await this.document(relative);
    return { path: document.path, text: document.buffer.getText(), version: document.version };
  }

  /** Inserts at a position, or at the cursor when none is given; the cursor ends after the text. */
  async insert(input: { path?: string; text: string; line?: number; column?: number }): Promise<EditResult> {
    const document = await this.document(input.path);
    const at = input.line === undefined && input.column === undefined ? document.cursor : this.offsetOf(document, input.line, input.column, 'line', 'column');
    return this.edit(document, at, at, input.text);
  }

  /** Replaces a range (start inclusive, end exclusive); the cursor ends after the new text. */
  async replace(input: { path?: string; text: string; startLine: number; startColumn: number; endLine: number; endColumn: number }): Promise<EditResult> {
    const document = await this.document(input.path);
    const start = this.offsetOf(document, input.startLine, input.startColumn, 'startLine', 'startColumn');
    const end = this.offsetOf(document, input.endLine, input.endColumn, 'endLine', 'endColumn');
    if (end < start) throw outOfRange('The end of the range comes before its start.');
    return this.edit(document, start, end, input.text);
  }

  /** Writes a document to disk atomically (temp file, fsync, rename). Emits file:save. */
  async save(relative?: string): Promise<DocumentSummary> {
    const document = await this.document(relative);
    const stat = statFile(document.absolute, document.path);
    if (stat && document.disk && (stat.mtimeMs !== document.disk.mtimeMs || stat.size !== document.disk.size) && document.version !== document.savedVersion) {
      throw new LoomError('edit_conflict', `${document.path} changed on disk since it was opened; saving would overwrite those changes.`, 'Reopen the file, or save under another name.');
    }
    // Re-check the real path: a symlink may have been planted since the document was opened.
    await this.paths.resolve(document.path);
    writeFileAtomically(document.absolute, document.buffer.getText());
    const after = fs.statSync(document.absolute);
    document.disk = { mtimeMs: after.mtimeMs, size: after.size };
    document.savedVersion = document.version;
    await this.events.emit('file:save', { path: document.path, version: document.version, bytes: after.size });
    return this.summary(document);
  }

  private edit(document: Document, start: number, end: number, text: string): EditResult {
    const buffer = document.buffer;
    buffer.replace(start, end - start, text);
    document.cursor = start + text.length;
    document.version += 1;
    this.changed(document);
    return {
      path: document.path,
      version: document.version,
      lineCount: buffer.lineCount,
      cursorLine: this.position(document, document.cursor).line,
      cursor: this.position(document, document.cursor),
      range: { start: this.position(document, start), end: this.position(document, start + text.length) },
    };
  }

  /** A document edited by another program is reloaded, unless it has unsaved edits here. */
  private syncWithDisk(document: Document): void {
    const stat = statFile(document.absolute, document.path);
    if (!stat || !document.disk) return;
    if (stat.mtimeMs === document.disk.mtimeMs && stat.size === document.disk.size) return;
    if (document.version !== document.savedVersion) return; // kept; save reports the conflict
    if (stat.size > MAX_DOCUMENT_BYTES) return;
    document.buffer = new TextBuffer(fs.readFileSync(document.absolute, 'utf8'));
    document.cursor = Math.min(document.cursor, document.buffer.length);
    document.disk = { mtimeMs: stat.mtimeMs, size: stat.size };
    document.version += 1;
    document.savedVersion = document.version;
    this.changed(document);
  }

  private async document(relative?: string): Promise<Document> {
    if (relative === undefined) return this.activeDocument();
    const key = this.paths.relative(await this.paths.resolve(relative));
    const document = this.open.get(key);
    if (!document) throw new LoomError('not_found', `${key} is not open.`, 'POST /api/editor/open first.');
    this.syncWithDisk(document);
    return document;
  }

  private activeDocument(): Document {
    const document = this.activePath ? this.open.get(this.activePath) : undefined;
    if (!document) throw new LoomError('no_active_file', 'No file is open in the editor.', 'POST /api/editor/open {"path": "…"} to open one.');
    this.syncWithDisk(document);
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
      dirty: document.version !== document.savedVersion,
      active: document.path === this.activePath,
    };
  }
}

function outOfRange(message: string): LoomError {
  return new LoomError('out_of_range', message, 'Lines and columns are 1-based; a column may be one past the end of its line.');
}

function statFile(absolute: string, key: string): fs.Stats | undefined {
  try {
    return fs.statSync(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new LoomError('validation_error', `${key} cannot be read: ${(error as NodeJS.ErrnoException).code}.`);
  }
}
