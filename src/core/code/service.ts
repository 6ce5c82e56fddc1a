// What the code index offers the rest of Loom (the CLI now; local routes, MCP tools, events and
// the window next): keeping the index of one workspace and searching it. Implemented in
// src/adapters/code/ (tree-sitter, the SQLite file, the walk) and built for a workspace by
// src/compose/code-intel.ts.
import type {
  FileState,
  IndexedLanguage,
  IndexProgress,
  IndexStatus,
  BuildSummary,
  Definition,
  FileOutline,
  Range,
  SkippedEntry,
  SymbolKind,
} from './model.ts';
import type { LineMatch, TextQuery } from './text-match.ts';

/**
 * Which text a query sees. `disk`: the files as saved (what agents read and write, and what
 * the CLI sees). `editor`: the window's view, where a document with unsaved edits counts with
 * its unsaved text.
 */
export type View = 'disk' | 'editor';

/** A file found by its path (Ctrl+P). */
export interface FileHit {
  path: string;
  score: number;
  /** Matched UTF-16 indices in `path`, for highlighting. */
  positions: number[];
  state: FileState;
  language: IndexedLanguage;
}

/** A definition found by its name (Ctrl+T, or Ctrl+Shift+O within a file). */
export interface SymbolHit extends Definition {
  path: string;
  score: number;
  /** Matched UTF-16 indices in `name`. */
  positions: number[];
}

/** A chunk of a file found by the ranked (BM25) search. */
export interface RankedHit {
  path: string;
  /** The chunk's first and last line (1-based, inclusive). */
  startLine: number;
  endLine: number;
  /** Higher is better (SQLite's bm25 negated, with a bonus for query terms in the path). */
  score: number;
  /** Names defined in the chunk. */
  symbols: string[];
}

/** An occurrence of a name. */
export interface ReferenceHit {
  path: string;
  range: Range;
}

/** An import of a file, and the workspace files it names (none: a package from elsewhere). */
export interface ResolvedImport {
  source: string;
  /** The names it takes, where the language says (`import { a, b }`, `from x import a`). */
  names: string[];
  /** Workspace-relative paths. */
  files: string[];
}

/** A file's imports and where it is. */
export interface ImportsOfFile {
  path: string;
  imports: FileOutline['imports'];
}

/** A text search and its bounds (ripgrep's options by other names). */
export interface TextSearchOptions extends TextQuery {
  /** Globs a file must match one of (gitignore syntax, `{a,b}` too): `*.ts`, `src/**`. */
  include?: string[];
  /** Globs that leave a file out. */
  exclude?: string[];
  /** Only files whose path sorts after this one (by code point, the index's order): the next page of a paged search. */
  after?: string;
  /** Matches reported in all (default 2000). */
  maxMatches?: number;
  /** Matches reported per file (default 200). */
  maxMatchesPerFile?: number;
  /** Time the search may take, ms (default 10,000). */
  timeoutMs?: number;
  /** Files larger than this are not searched (default 4 MiB). */
  maxFileBytes?: number;
  view?: View;
  signal?: AbortSignal;
}

/** What a text search yields: a matching line, then at the end one summary. */
export type TextSearchItem = ({ type: 'match'; path: string } & LineMatch) | TextSearchEnd;

export interface TextSearchEnd {
  type: 'end';
  /** Files searched. */
  files: number;
  /** Matches reported. */
  matches: number;
  /** Files not searched: binary, too large, unreadable. */
  skipped: number;
  /** Why the search stopped early, when it did. */
  truncated?: 'matches' | 'time' | 'aborted';
  elapsedMs: number;
}

/** The `codeIndex.*` settings (src/config/settings.ts). */
export interface CodeIndexSettings {
  /** Files larger than this are listed, not read. */
  maxFileBytes: number;
  /** Files listed at most. */
  maxFiles: number;
  /** Index dependency folders (node_modules, vendor, .venv…) too. */
  dependencies: boolean;
  /** Parsing threads; 0 picks a number from the cores. */
  workers: number;
  /** Whether a server builds the index in the background and keeps it current. */
  background: boolean;
}

/** One workspace's code index. */
export interface CodeIntel {
  /** The workspace's real path. */
  readonly root: string;
  /** The index's state and the build under way, as GET /api/health will say. */
  status(): IndexStatus;
  /** Hears each progress report of a build (throttled); returns the function that stops it. */
  onProgress(listener: (progress: IndexProgress) => void): () => void;
  /**
   * Walks the workspace and brings the index up to date with it: only files whose size, time
   * or inode changed are read, and only content not already in the cache is parsed. A call
   * while a build runs joins that build.
   */
  refresh(options?: { signal?: AbortSignal }): Promise<BuildSummary>;
  /** Brings these workspace-relative paths up to date now (files, folders, or gone). */
  update(paths: readonly string[]): Promise<void>;
  /** Files by fuzzy path, best first. */
  findFiles(query: string, options?: { limit?: number }): Promise<FileHit[]>;
  /** Every file's path, in path order (quick open scores them in the window). */
  listPaths(): Promise<string[]>;
  /** Definitions by fuzzy name, best first; within one file when `file` is given (an empty query lists them all, in order). */
  findSymbols(query: string, options?: { limit?: number; file?: string; kinds?: readonly SymbolKind[]; view?: View }): Promise<SymbolHit[]>;
  /**
   * Definitions named exactly one of `names`, at most `perName` of each (default 8), in every
   * file; an indexed lookup per name (microseconds), for completion's cross-file context.
   */
  definitionsNamed(names: readonly string[], options?: { perName?: number; view?: View }): Promise<SymbolHit[]>;
  /** A file's imports resolved to the workspace files they name (empty when the file is not in the index). */
  importsOf(file: string, options?: { view?: View }): Promise<ResolvedImport[]>;
  /** A file's outline (undefined when the file is not in the index). */
  outline(file: string, options?: { view?: View }): Promise<FileOutline | undefined>;
  /** Lines matching a literal or a regular expression, streamed; the last item is the summary. */
  searchText(options: TextSearchOptions): AsyncIterable<TextSearchItem>;
  /** Chunks of files ranked by BM25 for a query of words and identifiers. */
  searchRanked(query: string, options?: { limit?: number }): Promise<RankedHit[]>;
  /** Occurrences of an identifier across the workspace (definitions' names not included). */
  references(name: string, options?: { limit?: number }): Promise<ReferenceHit[]>;
  /** What the index left out and why. */
  skipped(options?: { limit?: number }): Promise<SkippedEntry[]>;
  close(): Promise<void>;
}
