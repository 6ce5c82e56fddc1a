// One workspace's code index: the service behind src/core/code/service.ts's CodeIntel, over the
// index's SQLite file (index-db.ts), the parser pool and the walk. Builds and updates run one at
// a time (a build asked for while one runs joins it; updates wait for it); queries read the
// database at any time. The window's view (`editor`) also sees the unsaved text of open
// documents, parsed into an outline kept in memory while the document has unsaved edits.
import fs from 'node:fs';
import { fuzzyQuery, fuzzyScore, rankFuzzy } from '../../matching/fuzzy.ts';
import { PathSearch } from '../../matching/path-search.ts';
import { NameIndex } from '../../core/code/name-index.ts';
import { languageOf } from '../../core/code/languages.ts';
import {
  LIMITS,
  type BuildSummary,
  type Definition,
  type FileOutline,
  type IndexedLanguage,
  type IndexProgress,
  type IndexStatus,
  type SkippedEntry,
  type SymbolKind,
} from '../../core/code/model.ts';
import { decodeReferences } from '../../core/code/references-codec.ts';
import type {
  CodeIntel,
  FileHit,
  RankedHit,
  ReferenceHit,
  ResolvedImport,
  SymbolHit,
  TextSearchItem,
  TextSearchOptions,
  View,
} from '../../core/code/service.ts';
import { ImportResolver } from '../../core/code/imports.ts';
import { identifierTerms, queryTerms, splitIdentifier } from '../../core/code/tokens.ts';
import type { IndexedContent } from './index-content.ts';
import { definitionOf, IndexDatabase, type FileCounts } from './index-db.ts';
import { Indexer, type IndexerOptions } from './indexer.ts';
import { ParserPool, type ParserPoolOptions } from './parser-pool.ts';
import { searchWorkspaceText } from './text-search.ts';

export interface CodeIndexOptions extends Partial<IndexerOptions> {
  /** The workspace's real path. */
  root: string;
  /** The folder of code-index.db (Loom's data dir). */
  dataDir: string;
  /** Parsing threads (default: parser-pool.ts defaultPoolSize). */
  workers?: number;
  /** Time tree-sitter may spend on one file. */
  parseTimeoutMs?: number;
  /** Told of files and folders the database found open to other users. */
  warn?: (message: string) => void;
}

/** Documents whose unsaved text is kept parsed at most (the most recent). */
const MAX_UNSAVED = 64;

/** A file in quick open's list: its path, whether its symbols are indexed, its language. */
interface IndexedPath {
  path: string;
  state: FileHit['state'];
  language: IndexedLanguage;
}

interface Unsaved {
  text: string;
  outline: FileOutline;
}

/**
 * The code index of one workspace.
 *
 * @example
 *   const index = CodeIndex.open({ root: '/work/app', dataDir: '/home/ada/.local/share/loom' });
 *   await index.refresh();
 *   await index.findSymbols('parseConf'); // [{ name: 'parseConfig', kind: 'function', path: 'src/config.ts', … }]
 *   await index.close();
 */
export class CodeIndex implements CodeIntel {
  readonly root: string;
  private readonly db: IndexDatabase;
  private readonly workspace: number;
  private readonly pool: ParserPool;
  private readonly indexer: Indexer;
  private readonly progressListeners = new Set<(progress: IndexProgress) => void>();
  private readonly unsaved = new Map<string, Unsaved>();
  /** Serializes builds and updates. */
  private work: Promise<unknown> = Promise.resolve();
  private building: Promise<BuildSummary> | undefined;
  private progress: IndexProgress | undefined;
  private lastBuild: BuildSummary | undefined;
  private error: string | undefined;
  private counts: FileCounts | undefined;
  /** The indexed files, for quick open and the import resolver; read again after files come or go. */
  private files: PathSearch<IndexedPath> | undefined;
  private closed = false;
  private stillUnsaved: (path: string) => boolean = () => true;
  /** Resolves imports against the paths listed (kept while `files` is the same list). */
  private resolver: { files: PathSearch<IndexedPath>; resolver: ImportResolver } | undefined;
  /** The names defined in the workspace, for Ctrl+T; made on first use, dropped by a build. */
  private names: NameIndex | undefined;

  private constructor(options: CodeIndexOptions) {
    this.root = options.root;
    this.db = IndexDatabase.open(options.dataDir, options.warn);
    try {
      this.db.forgetMissingWorkspaces((root) => fs.existsSync(root));
      this.workspace = this.db.workspace(this.root);
    } catch (error) {
      this.db.close();
      throw error;
    }
    const limits = { ...LIMITS, parseTimeoutMs: options.parseTimeoutMs ?? LIMITS.parseTimeoutMs };
    const poolOptions: ParserPoolOptions = { limits };
    if (options.workers !== undefined && options.workers > 0) poolOptions.size = options.workers;
    this.pool = new ParserPool(poolOptions);
    const indexerOptions: IndexerOptions = {
      maxFileBytes: options.maxFileBytes ?? LIMITS.maxFileBytes,
      maxFiles: options.maxFiles ?? LIMITS.maxFiles,
      dependencies: options.dependencies ?? false,
    };
    this.indexer = new Indexer(this.db, this.workspace, this.root, this.pool, indexerOptions, undefined, (before, after) => this.contentChanged(before, after));
  }

  /** Opens the index of `root` in `dataDir` (the database is created on first use). */
  static open(options: CodeIndexOptions): CodeIndex {
    return new CodeIndex(options);
  }

  status(): IndexStatus {
    const counts = this.fileCounts();
    const state = this.building ? 'building' : this.error ? 'failed' : this.lastBuild || counts.files > 0 ? 'ready' : 'empty';
    const status: IndexStatus = { state, workspace: this.root, database: this.db.location, ...counts };
    if (this.building && this.progress) status.progress = { ...this.progress };
    if (this.lastBuild) status.lastBuild = { ...this.lastBuild };
    if (this.error) status.error = this.error;
    return status;
  }

  onProgress(listener: (progress: IndexProgress) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  refresh(options: { signal?: AbortSignal } = {}): Promise<BuildSummary> {
    if (this.closed) return Promise.reject(new Error('The code index is closed.'));
    if (this.building) return this.building;
    const build = this.serially(async () => {
      // A build changes too much to follow name by name: the names are read again when next needed.
      this.names = undefined;
      try {
        const summary = await this.indexer.build({ signal: options.signal, onProgress: (progress) => this.reportProgress(progress) });
        this.lastBuild = summary;
        this.error = undefined;
        return summary;
      } catch (error) {
        this.error = (error as Error).message;
        this.reportProgress({ ...(this.progress ?? emptyProgress()), phase: 'failed' });
        throw error;
      } finally {
        this.names = undefined;
        this.changed();
      }
    }).finally(() => {
      this.building = undefined;
      this.progress = undefined;
    });
    this.building = build;
    return build;
  }

  update(paths: readonly string[]): Promise<void> {
    if (this.closed || paths.length === 0) return Promise.resolve();
    return this.serially(async () => {
      try {
        const { rulesChanged } = await this.indexer.update(paths);
        if (rulesChanged) {
          this.indexer.forgetRules();
          // New .gitignore rules: a walk finds what they now leave in or out.
          void this.refresh().catch(() => undefined);
        }
      } finally {
        this.changed(paths);
      }
    });
  }

  async findFiles(query: string, options: { limit?: number } = {}): Promise<FileHit[]> {
    return this.pathSearch()
      .find(query, clampLimit(options.limit, 50))
      .map(({ item, score, positions }) => ({ path: item.path, score, positions, state: item.state, language: item.language }));
  }

  async listPaths(): Promise<string[]> {
    return this.pathSearch().items.map((item) => item.path);
  }

  async findSymbols(query: string, options: { limit?: number; file?: string; kinds?: readonly SymbolKind[]; view?: View } = {}): Promise<SymbolHit[]> {
    const limit = clampLimit(options.limit, 50);
    const kinds = options.kinds && options.kinds.length > 0 ? new Set<string>(options.kinds) : undefined;
    const wanted = (definition: Definition) => !kinds || kinds.has(definition.kind);
    const trimmed = query.trim();
    const overlaid = options.view === 'editor' ? this.unsavedPaths() : new Set<string>();
    if (options.file !== undefined) return this.symbolsOfFile(options.file, trimmed, limit, wanted, overlaid);
    if (trimmed === '') return [];
    // The best names first (in memory), then their definitions (from the index).
    this.names ??= this.loadNames();
    const ranked = this.names.search(trimmed, Math.min(limit * (kinds ? 8 : 3), 10_000));
    const byName = new Map(ranked.map((hit) => [hit.item, hit]));
    const hits: SymbolHit[] = [];
    for (const row of this.db.symbolsNamed(this.workspace, [...byName.keys()])) {
      const definition = definitionOf(row);
      if (overlaid.has(row.path) || !wanted(definition)) continue;
      const match = byName.get(row.name)!;
      hits.push({ ...definition, path: row.path, score: match.score, positions: match.positions });
    }
    const prepared = fuzzyQuery(trimmed);
    for (const path of overlaid) {
      for (const definition of this.unsaved.get(path)!.outline.definitions) {
        const match = wanted(definition) ? fuzzyScore(prepared, definition.name) : undefined;
        if (match) hits.push({ ...definition, path, ...match });
      }
    }
    hits.sort(
      (a, b) => b.score - a.score || a.name.length - b.name.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.range.start.line - b.range.start.line),
    );
    return hits.slice(0, limit);
  }

  /** Ctrl+Shift+O: a file's definitions, all in order for an empty query, else ranked. */
  private symbolsOfFile(file: string, query: string, limit: number, wanted: (definition: Definition) => boolean, overlaid: Set<string>): SymbolHit[] {
    const definitions = overlaid.has(file)
      ? this.unsaved.get(file)!.outline.definitions
      : this.db.symbols(this.workspace, '%', 1_000_000, file).map((row) => definitionOf(row));
    const candidates = definitions.filter(wanted);
    if (query === '') return candidates.slice(0, limit).map((definition) => ({ ...definition, path: file, score: 0, positions: [] }));
    return rankFuzzy(query, candidates, (definition) => definition.name, limit).map(({ item, score, positions }) => ({
      ...item,
      path: file,
      score,
      positions,
    }));
  }

  private loadNames(): NameIndex {
    const names = new NameIndex();
    names.add(this.db.definedNames(this.workspace));
    return names;
  }

  /** A file's content changed (inside the write's transaction): its names follow, when they are held. */
  private contentChanged(before: Buffer | null, after: Buffer | null): void {
    if (!this.names) return;
    if (before) this.names.remove(this.db.namesOf(before));
    if (after) this.names.add(this.db.namesOf(after));
  }

  async definitionsNamed(names: readonly string[], options: { perName?: number; view?: View } = {}): Promise<SymbolHit[]> {
    const perName = clampLimit(options.perName, 8);
    const overlaid = options.view === 'editor' ? this.unsavedPaths() : new Set<string>();
    const hits: SymbolHit[] = [];
    for (const name of new Set(names)) {
      if (name.length === 0 || name.length > LIMITS.maxNameChars) continue;
      for (const row of this.db.symbolsNamedAtMost(this.workspace, name, perName)) {
        if (!overlaid.has(row.path)) hits.push({ ...definitionOf(row), path: row.path, score: 0, positions: [] });
      }
    }
    if (overlaid.size > 0) {
      const wanted = new Set(names);
      for (const path of overlaid) {
        for (const definition of this.unsaved.get(path)!.outline.definitions) {
          if (wanted.has(definition.name)) hits.push({ ...definition, path, score: 0, positions: [] });
        }
      }
    }
    return hits;
  }

  async importsOf(file: string, options: { view?: View } = {}): Promise<ResolvedImport[]> {
    const imports =
      options.view === 'editor' && this.unsavedPaths().has(file) ? this.unsaved.get(file)!.outline.imports : this.db.importsOf(this.workspace, file);
    if (!imports || imports.length === 0) return [];
    const files = this.pathSearch();
    // One resolver per list of paths: the list is read again only after files came or went.
    if (this.resolver?.files !== files) this.resolver = { files, resolver: new ImportResolver(files.items.map((entry) => entry.path)) };
    const resolver = this.resolver.resolver;
    return imports.map((entry) => ({ source: entry.source, names: entry.names, files: resolver.resolve(file, entry.source) }));
  }

  async outline(file: string, options: { view?: View } = {}): Promise<FileOutline | undefined> {
    if (options.view === 'editor' && this.unsavedPaths().has(file)) return this.unsaved.get(file)!.outline;
    const stored = this.db.outline(this.workspace, file);
    if (!stored) return undefined;
    return {
      language: stored.language,
      definitions: stored.definitions,
      references: decodeReferences(stored.refs),
      imports: stored.imports,
      truncated: stored.truncated,
      syntaxErrors: stored.syntaxErrors,
    };
  }

  searchText(options: TextSearchOptions): AsyncIterable<TextSearchItem> {
    const editor = options.view === 'editor';
    return searchWorkspaceText(
      {
        root: this.root,
        files: () => this.db.files(this.workspace).map((file) => ({ path: file.path, size: file.size, reason: file.reason })),
        unsaved: async (path) => (editor && this.unsavedPaths().has(path) ? this.unsaved.get(path)!.text : undefined),
      },
      options,
    );
  }

  async searchRanked(query: string, options: { limit?: number } = {}): Promise<RankedHit[]> {
    const limit = clampLimit(options.limit, 20);
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    const match = terms.map((term) => `"${term}"`).join(' OR ');
    const hits = this.db.ranked(this.workspace, match, limit * 4);
    const wanted = new Set(terms);
    return hits
      .map((hit) => {
        // A query term in the file's path (its folders and name, split as code is) counts too.
        const inPath = new Set(pathTerms(hit.path).filter((term) => wanted.has(term))).size;
        return {
          path: hit.path,
          startLine: hit.start_line,
          endLine: hit.end_line,
          score: Math.round((-hit.rank + inPath * 2) * 1000) / 1000,
          symbols: hit.names === '' ? [] : hit.names.split(' '),
        };
      })
      .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.startLine - b.startLine))
      .slice(0, limit);
  }

  async references(name: string, options: { limit?: number } = {}): Promise<ReferenceHit[]> {
    const limit = clampLimit(options.limit, 1000);
    const whole = identifierTerms(name)[0];
    if (!whole) return [];
    const hits: ReferenceHit[] = [];
    for (const candidate of this.db.referenceCandidates(this.workspace, `body : "${whole}"`, 100_000)) {
      for (const reference of decodeReferences(candidate.refs, name)) {
        hits.push({ path: candidate.path, range: reference.range });
        if (hits.length >= limit) return hits;
      }
    }
    return hits;
  }

  async skipped(options: { limit?: number } = {}): Promise<SkippedEntry[]> {
    return this.db.skipped(this.workspace, clampLimit(options.limit, 1000));
  }

  /**
   * The window's unsaved text of a document (undefined: it has none any more), parsed so that
   * the `editor` view sees it. Kept for at most MAX_UNSAVED documents.
   */
  async setUnsaved(path: string, text: string | undefined): Promise<void> {
    if (text === undefined) {
      this.unsaved.delete(path);
      return;
    }
    const language = languageOf(path, text.slice(0, 256));
    let content: IndexedContent;
    try {
      content = await this.pool.parse(Buffer.from(text, 'utf8'), language);
    } catch {
      return;
    }
    this.unsaved.delete(path);
    this.unsaved.set(path, {
      text,
      outline: {
        language,
        definitions: content.definitions,
        references: decodeReferences(content.references),
        imports: content.imports,
        truncated: content.truncated,
        syntaxErrors: content.syntaxErrors,
      },
    });
    while (this.unsaved.size > MAX_UNSAVED) this.unsaved.delete(this.unsaved.keys().next().value!);
  }

  /** How to tell that a document still has unsaved edits (saved, closed or discarded: its text is dropped). */
  trackUnsaved(stillUnsaved: (path: string) => boolean): void {
    this.stillUnsaved = stillUnsaved;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.close();
    await this.work.catch(() => undefined);
    this.db.close();
  }

  /** Runs builds and updates one after the other. */
  private serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.work.then(task, task);
    this.work = run.catch(() => undefined);
    return run;
  }

  private reportProgress(progress: IndexProgress): void {
    this.progress = progress;
    for (const listener of this.progressListeners) {
      try {
        listener(progress);
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  /**
   * The database changed: cached counts are read again when next needed, and the list of
   * files too, unless only the contents of files it lists changed (`updated`: a save). Quick
   * open's next key then narrows what the last one matched, not 50,000 rows read again.
   */
  private changed(updated?: readonly string[]): void {
    this.counts = undefined;
    if (!updated || !this.files || !updated.every((path) => this.listedAsIndexed(path))) this.files = undefined;
  }

  /** Whether `path` is in the list of files as the index now holds it (its state and language). */
  private listedAsIndexed(path: string): boolean {
    const listed = this.files?.get(path);
    const row = listed && this.db.file(this.workspace, path);
    return row !== undefined && row.state === listed!.state && row.language === listed!.language;
  }

  private fileCounts(): FileCounts {
    if (this.building) return this.db.counts(this.workspace);
    this.counts ??= this.db.counts(this.workspace);
    return this.counts;
  }

  private pathSearch(): PathSearch<IndexedPath> {
    this.files ??= new PathSearch(this.db.files(this.workspace).map(({ path, state, language }) => ({ path, state, language })));
    return this.files;
  }

  /** The documents whose unsaved text counts now: those the editor still holds with unsaved edits. */
  private unsavedPaths(): Set<string> {
    for (const path of [...this.unsaved.keys()]) {
      let still = true;
      try {
        still = this.stillUnsaved(path);
      } catch {
        still = false;
      }
      if (!still) this.unsaved.delete(path);
    }
    return new Set(this.unsaved.keys());
  }
}

function emptyProgress(): IndexProgress {
  return { phase: 'walking', files: 0, done: 0, parsed: 0, skipped: 0, bytes: 0, walked: false, elapsedMs: 0 };
}

function clampLimit(limit: number | undefined, fallback: number): number {
  return typeof limit === 'number' && Number.isInteger(limit) && limit > 0 ? Math.min(limit, 10_000) : fallback;
}

/** The terms of a path's folders and file name. */
function pathTerms(path: string): string[] {
  return path.split(/[^\p{L}\p{N}_]+/u).flatMap((word) => (word ? [...splitIdentifier(word), splitIdentifier(word).join('')] : []));
}
