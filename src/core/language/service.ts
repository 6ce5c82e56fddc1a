// Code intelligence for the rest of Loom (routes, MCP tools, the CLI, agents): diagnostics per
// file and for the workspace, definitions, references, hover, document symbols and rename, in
// Loom's positions and paths, whatever answers. A language server answers where one runs for
// the file's language (src/adapters/lsp/ runs them); definitions and references come from the
// code index where none does, marked `source: 'index'`. A rename is previewed as diffs first and
// applied through the editor's documents, so that events, the window and agents see it.
import { createHash } from 'node:crypto';
import type { DocumentSummary } from '../../contracts/local-resources.ts';
import type { EventBus } from '../events/bus.ts';
import { LoomError } from '../errors.ts';
import { readRegularFile } from '../files/read-regular.ts';
import { indexLines } from '../text/line-index.ts';
import type { Documents } from '../workspace/documents.ts';
import { detectLanguage } from '../workspace/language.ts';
import type { WorkspacePaths } from '../workspace/paths.ts';
import { DiagnosticsStore } from './diagnostics.ts';
import { fromLspDiagnostic, fromLspHover, fromLspLocations, fromLspSymbols, MAX_ENTRIES, toLspPosition, workspacePathOf } from './lsp-convert.ts';
import type { IndexNavigation, LanguageServerPool, SourceFile } from './servers.ts';
import type {
  AppliedFileEdit,
  CodeSymbol,
  EditPreview,
  FileDiagnostics,
  FileEditPreview,
  HoverAnswer,
  LanguageServerStatus,
  NavigationAnswer,
  Position,
  Problems,
} from './types.ts';
import { applyTextEdits, offsetsOf, previewFile, textEditsOf } from './workspace-edit.ts';

/** Largest file handed to a language server: past it, a file is data, not code to type-check. */
export const MAX_SOURCE_BYTES = 16 * 1024 * 1024;
/** Longest new name a rename takes. */
const MAX_NAME = 1000;

export interface LanguageServiceOptions {
  paths: WorkspacePaths;
  documents: Documents;
  servers: LanguageServerPool;
  events: EventBus;
  /** Definitions and references for languages no server serves (the code index). */
  index?: IndexNavigation;
}

/** A file's diagnostics, and whether they are for its text as it is now (false: the server had not reported yet within the time limit). */
export type CurrentDiagnostics = FileDiagnostics & { current: boolean };

/**
 * The workspace's code intelligence.
 *
 * @example
 *   const service = new LanguageService({ paths, documents, servers, events });
 *   const { locations } = await service.definition('src/app.ts', { line: 12, column: 9 });
 *   const preview = await service.renamePreview('src/app.ts', { line: 3, column: 10 }, 'total');
 *   await service.applyEdit(preview); // the open documents change (unsaved), the others on disk
 */
export class LanguageService {
  private readonly store: DiagnosticsStore;
  private readonly stopListening: () => void;

  constructor(private readonly options: LanguageServiceOptions) {
    this.store = new DiagnosticsStore((report) => {
      const counts = { error: 0, warning: 0, information: 0, hint: 0 };
      for (const diagnostic of report.diagnostics) counts[diagnostic.severity]++;
      // Live-only: emit() has told every listener when it returns.
      void options.events.emit('diagnostics:change', { ...report, counts });
    });
    this.stopListening = options.servers.onDiagnostics((server, uri, diagnostics) => {
      const path = workspacePathOf(options.paths.root, uri);
      if (path === null) return; // a file outside the workspace (a library): not the user's problem to list
      const raw = Array.isArray(diagnostics) ? diagnostics : [];
      const read = raw.slice(0, MAX_ENTRIES).flatMap((entry) => fromLspDiagnostic(entry) ?? []);
      this.store.report(server, path, read, raw.length - Math.min(raw.length, MAX_ENTRIES));
    });
  }

  /** What the language server last reported for a file (nothing asked of it; an unknown file has none). */
  diagnostics(path: string): FileDiagnostics {
    return this.store.file(this.key(path));
  }

  /**
   * A file's diagnostics for its text as it is now: the server is given the text (the editor's
   * document, or the file on disk) and its report waited for. What an agent asks after an edit.
   */
  async currentDiagnostics(path: string, signal?: AbortSignal): Promise<CurrentDiagnostics> {
    const file = await this.source(path);
    const server = this.requireServer(file);
    const current = await this.options.servers.settleDiagnostics(file, signal);
    return { ...this.store.file(file.path), server, current };
  }

  /** Every file with diagnostics in the workspace, errors first. */
  problems(): Problems {
    return this.store.problems();
  }

  /** Where the symbol at `position` is defined. */
  definition(path: string, position: Position, signal?: AbortSignal): Promise<NavigationAnswer> {
    return this.navigate(path, position, 'definitions', signal);
  }

  /** Where the symbol at `position` is used (its declaration included unless told otherwise). */
  references(path: string, position: Position, options: { includeDeclaration?: boolean } = {}, signal?: AbortSignal): Promise<NavigationAnswer> {
    return this.navigate(path, position, 'references', signal, options.includeDeclaration ?? true);
  }

  /** What the server says about the symbol at `position` (its type, its documentation); null when nothing. */
  async hover(path: string, position: Position, signal?: AbortSignal): Promise<HoverAnswer | null> {
    const file = await this.source(path);
    checkPosition(file, position);
    this.requireServer(file);
    const { result } = await this.options.servers.request(
      file,
      'textDocument/hover',
      (uri) => ({ textDocument: { uri }, position: toLspPosition(position) }),
      signal,
    );
    return fromLspHover(result);
  }

  /** The symbols the file declares, nested (a class's methods inside it). */
  async documentSymbols(path: string, signal?: AbortSignal): Promise<CodeSymbol[]> {
    const file = await this.source(path);
    this.requireServer(file);
    const { result } = await this.options.servers.request(file, 'textDocument/documentSymbol', (uri) => ({ textDocument: { uri } }), signal);
    return fromLspSymbols(result);
  }

  /**
   * What renaming the symbol at `position` to `newName` would change, file by file, as diffs;
   * nothing is changed. `applyEdit` applies it while every file is still as previewed.
   */
  async renamePreview(path: string, position: Position, newName: string, signal?: AbortSignal): Promise<EditPreview> {
    if (newName.length === 0 || newName.length > MAX_NAME || /[\r\n]/.test(newName)) {
      throw new LoomError('bad_request', `A new name is 1 to ${MAX_NAME} characters on one line.`);
    }
    const file = await this.source(path);
    checkPosition(file, position);
    this.requireServer(file);
    const before = this.openDocuments();
    const { server, result, version } = await this.options.servers.request(
      file,
      'textDocument/rename',
      (uri) => ({ textDocument: { uri }, position: toLspPosition(position), newName }),
      signal,
    );
    if (result === null || result === undefined)
      throw new LoomError(
        'bad_request',
        `The ${server} language server finds nothing to rename at line ${position.line}, column ${position.column} of ${file.path}.`,
      );
    const edits = textEditsOf(this.options.paths.root, result);
    const open = this.openDocuments();
    const files: FileEditPreview[] = [];
    for (const [editPath, { edits: fileEdits, version: editVersion }] of [...edits].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (fileEdits.length === 0) continue;
      // The server's edit of the file it was asked about must be for the text it was given.
      if (editPath === file.path && typeof editVersion === 'number' && editVersion !== version) throw changedMeanwhile(file.path);
      // An open document edited while the server worked: the edit's positions may be for its text before.
      if (open.get(editPath)?.version !== before.get(editPath)?.version) throw changedMeanwhile(editPath);
      const source = editPath === file.path ? file : await this.source(editPath);
      const documentVersion = open.get(source.path)?.version;
      const base =
        documentVersion !== undefined ? { kind: 'document' as const, version: documentVersion } : { kind: 'disk' as const, sha256: sha256(source.text) };
      files.push(previewFile(source.path, base, source.text, fileEdits));
    }
    return { files };
  }

  /**
   * Applies a previewed workspace edit: to the open documents (as unsaved edits, told by
   * file:change events), and to the files on disk that are not open (written atomically). Every
   * file is checked first (the document at the previewed version, the file on disk with the
   * previewed content, none of them protected) and nothing is changed unless all pass.
   */
  async applyEdit(preview: EditPreview): Promise<{ files: AppliedFileEdit[] }> {
    const { paths, documents } = this.options;
    const open = this.openDocuments();
    const plan: (() => Promise<AppliedFileEdit>)[] = [];
    const seen = new Set<string>();
    for (const entry of preview.files) {
      const key = this.key(entry.path);
      if (seen.has(key)) throw new LoomError('bad_request', `${key} is named twice in the edit; a preview names each file once. Nothing was changed.`);
      seen.add(key);
      const document = open.get(key);
      if (entry.base.kind === 'document') {
        if (!document || document.version !== entry.base.version) throw changedSincePreview(key);
        if (document.readOnly) paths.resolveForWrite(key); // throws protected_path, with its reason
        // Edits that do not fit the text (a preview sent back altered) are refused before any file changes.
        offsetsOf((await documents.text(key)).text, entry.edits);
        const edits = entry.edits.map((edit) => ({ start: edit.range.start, end: edit.range.end, text: edit.newText }));
        const version = entry.base.version;
        plan.push(() => documents.applyEdits(key, edits, version).then((summary) => ({ path: key, to: 'document', version: summary.version })));
      } else {
        if (document) throw changedSincePreview(key);
        const { text } = readRegularFile(paths.resolve(key), key, MAX_SOURCE_BYTES);
        if (sha256(text) !== entry.base.sha256) throw changedSincePreview(key);
        paths.resolveForWrite(key);
        const after = applyTextEdits(text, entry.edits);
        plan.push(() => {
          paths.writeFile(key, after);
          return Promise.resolve({ path: key, to: 'disk' });
        });
      }
    }
    // The checks waited: a document edited meanwhile refuses the whole edit before any step runs.
    const now = this.openDocuments();
    for (const entry of preview.files) {
      const key = this.key(entry.path);
      if (entry.base.kind === 'document' ? now.get(key)?.version !== entry.base.version : now.has(key)) throw changedSincePreview(key);
    }
    // Every check passed: each step now changes its file before the first wait.
    return { files: await Promise.all(plan.map((step) => step())) };
  }

  /** Every language server this workspace could use, and its state. */
  status(): LanguageServerStatus[] {
    return this.options.servers.status();
  }

  close(): Promise<void> {
    this.stopListening();
    return this.options.servers.close();
  }

  private async navigate(
    path: string,
    position: Position,
    kind: 'definitions' | 'references',
    signal?: AbortSignal,
    includeDeclaration = true,
  ): Promise<NavigationAnswer> {
    const file = await this.source(path);
    checkPosition(file, position);
    const lookup = this.options.servers.serverFor(file.language);
    if ('unavailable' in lookup) {
      if (!this.options.index) throw new LoomError('language_server_unavailable', lookup.unavailable);
      const { index } = this.options;
      const locations =
        kind === 'definitions' ? await index.definitions(file, position, signal) : await index.references(file, position, includeDeclaration, signal);
      return { source: 'index', locations };
    }
    const method = kind === 'definitions' ? 'textDocument/definition' : 'textDocument/references';
    const { server, result } = await this.options.servers.request(
      file,
      method,
      (uri) => ({ textDocument: { uri }, position: toLspPosition(position), ...(kind === 'references' ? { context: { includeDeclaration } } : {}) }),
      signal,
    );
    return { source: 'language-server', server, locations: fromLspLocations(this.options.paths.root, result) };
  }

  /** The server of the file's language; throws language_server_unavailable (why, in the message) when none can run. */
  private requireServer(file: SourceFile): string {
    const lookup = this.options.servers.serverFor(file.language);
    if ('unavailable' in lookup) throw new LoomError('language_server_unavailable', lookup.unavailable);
    return lookup.server;
  }

  /** The workspace-relative key of a path, through the workspace's gate (forbidden_path outside it). */
  private key(path: string): string {
    return this.options.paths.relative(this.options.paths.resolve(path));
  }

  /** A file's text now: its open document's, else the disk's. */
  private async source(path: string): Promise<SourceFile> {
    const key = this.key(path);
    const document = this.options.documents.openState(key) ? await this.options.documents.text(key) : undefined;
    const text = document ? document.text : readRegularFile(this.options.paths.resolve(key), key, MAX_SOURCE_BYTES).text;
    if (text.length > MAX_SOURCE_BYTES) {
      throw new LoomError(
        'language_server_unavailable',
        `${key} is larger than ${MAX_SOURCE_BYTES / 1024 / 1024} MiB; such files are not given to language servers.`,
      );
    }
    return { path: key, language: detectLanguage(key, text), text };
  }

  /** The open documents by path (their version, whether read-only). */
  private openDocuments(): Map<string, DocumentSummary> {
    return new Map(this.options.documents.list().map((summary) => [summary.path, summary]));
  }
}

function checkPosition(file: SourceFile, position: Position): void {
  const { lineStarts } = indexLines(file.text);
  const lines = lineStarts.length + 1;
  if (!Number.isInteger(position.line) || position.line < 1 || position.line > lines) {
    throw new LoomError('out_of_range', `Line ${position.line} is outside 1..${lines} of ${file.path}.`, 'Lines and columns are 1-based.');
  }
  const start = position.line === 1 ? 0 : lineStarts[position.line - 2]!;
  const next = position.line <= lineStarts.length ? lineStarts[position.line - 1]! : file.text.length + 1;
  const end =
    position.line <= lineStarts.length ? next - (file.text.charCodeAt(next - 1) === 10 && file.text.charCodeAt(next - 2) === 13 ? 2 : 1) : file.text.length;
  const length = end - start;
  if (!Number.isInteger(position.column) || position.column < 1 || position.column > length + 1) {
    throw new LoomError(
      'out_of_range',
      `Column ${position.column} is outside 1..${length + 1} on line ${position.line} of ${file.path}.`,
      'Columns are 1-based, in UTF-16 code units.',
    );
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function changedMeanwhile(path: string): LoomError {
  return new LoomError('version_conflict', `${path} changed while the language server worked on it; nothing was changed.`, 'Ask again.');
}

function changedSincePreview(path: string): LoomError {
  return new LoomError(
    'version_conflict',
    `${path} changed since the edit was previewed (edited, saved, opened or closed); nothing was changed.`,
    'Preview it again.',
  );
}
