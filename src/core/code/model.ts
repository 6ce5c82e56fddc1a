// The code index's model: what a file's outline holds (definitions, references, imports), why a
// file was left out, and the index's state. Positions are Loom's: 1-based lines and 1-based
// columns in UTF-16 code units (src/contracts/local-resources.ts), end exclusive.
import type { Position } from '../../contracts/local-resources.ts';

export type { Position };

/** A stretch of a file: `start` inclusive, `end` exclusive. */
export interface Range {
  start: Position;
  end: Position;
}

/** The languages parsed with tree-sitter; every other text file gets a lexical entry only. */
export const CODE_LANGUAGES = ['typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java', 'c', 'cpp', 'csharp', 'ruby', 'php', 'bash'] as const;
export type CodeLanguage = (typeof CODE_LANGUAGES)[number];

/** What a file is indexed as: a parsed language, or `text` (a lexical entry). */
export type IndexedLanguage = CodeLanguage | 'text';

/** Kinds of definitions, named as LSP names them (SymbolKind), with `type` for type aliases. */
export const SYMBOL_KINDS = [
  'module',
  'namespace',
  'class',
  'interface',
  'trait',
  'struct',
  'enum',
  'enumMember',
  'type',
  'function',
  'method',
  'constructor',
  'property',
  'field',
  'variable',
  'constant',
  'macro',
] as const;
export type SymbolKind = (typeof SYMBOL_KINDS)[number];

/** A definition: a class, a function, a method, a module-level variable… */
export interface Definition {
  name: string;
  kind: SymbolKind;
  /** The whole definition. */
  range: Range;
  /** Its name (what an editor selects). */
  nameRange: Range;
  /** The name of the definition it is in (a method's class), when there is one. */
  container?: string;
  /** The definition's first line, trimmed (at most MAX_SIGNATURE_CHARS). */
  signature: string;
  /** Its doc comment (or Python docstring) without the comment markers, when it has one. */
  doc?: string;
}

/** An identifier's occurrence that is not a definition's name. */
export interface Reference {
  name: string;
  range: Range;
}

/** An import, `require`, `use`, `#include`…: what it names and, where the language says, which names it takes. */
export interface Import {
  source: string;
  names: string[];
  range: Range;
}

/** What extraction found in one file. */
export interface FileOutline {
  language: IndexedLanguage;
  definitions: Definition[];
  references: Reference[];
  imports: Import[];
  /** Caps that cut the lists short (MAX_DEFINITIONS, MAX_REFERENCES, MAX_IMPORTS). */
  truncated: boolean;
  /** Tree-sitter found syntax errors (the outline holds what it could read). */
  syntaxErrors: boolean;
}

/** The limits every file is parsed under; a hostile file meets one and is skipped or cut, never more. */
export const LIMITS = {
  /** Files larger than this are listed but not read (`codeIndex.maxFileBytes` changes it). */
  maxFileBytes: 1024 * 1024,
  /** Time tree-sitter may spend on one file before the parse is cancelled. */
  parseTimeoutMs: 2000,
  /** Definitions kept per file. */
  maxDefinitions: 5000,
  /** References kept per file. */
  maxReferences: 20_000,
  /** Imports kept per file. */
  maxImports: 1000,
  /** A line longer than this makes a file minified (or data): listed and searched, not parsed. */
  maxLineChars: 20_000,
  /** Characters of a doc comment kept. */
  maxDocChars: 2000,
  /** Characters of a signature kept. */
  maxSignatureChars: 200,
  /** Characters of a name kept (longer identifiers are data). */
  maxNameChars: 256,
  /** Folders below the workspace the walk enters; deeper ones are skipped with `too-deep`. */
  maxDepth: 64,
  /** Files the index lists (`codeIndex.maxFiles`); the rest are skipped with `file-limit`. */
  maxFiles: 200_000,
} as const;

/**
 * Why a file's content is not in the index (it may still be listed, e.g. for Ctrl+P), or why a
 * folder or link was not entered.
 */
export const SKIP_REASONS = {
  'too-large': 'larger than the size limit (codeIndex.maxFileBytes)',
  binary: 'binary (a NUL byte in its first 8 KB)',
  minified: 'a line longer than 20,000 characters (minified code or data): searched, not parsed',
  'parse-timeout': 'tree-sitter took longer than its time limit: indexed as text',
  'parse-failed': 'the parser failed on it: indexed as text',
  unreadable: 'could not be read (permissions, or gone while read)',
  'not-regular': 'not a regular file (a FIFO, a socket, a device)',
  'too-deep': 'more than 64 folders deep',
  'symlink-outside': 'a symbolic link whose target is outside the workspace',
  'symlink-broken': 'a symbolic link whose target is missing or loops',
  'symlink-loop': 'a folder already walked under another name (a loop of links)',
  'file-limit': 'past the limit of files indexed (codeIndex.maxFiles)',
} as const;
export type SkipReason = keyof typeof SKIP_REASONS;

/** How a listed file is in the index. */
export type FileState = 'parsed' | 'lexical' | 'skipped';

/** Something the index left out, and why. */
export interface SkippedEntry {
  path: string;
  reason: SkipReason;
}

/** What an index build is doing, as `index:progress` events and status() say. */
export interface IndexProgress {
  phase: 'walking' | 'indexing' | 'done' | 'failed';
  /** Files found so far (the total once the walk is over). */
  files: number;
  /** Files brought up to date so far (parsed, read from the cache, or found unchanged). */
  done: number;
  /** Files parsed by this build (not found in the cache). */
  parsed: number;
  /** Files and folders skipped, with a reason. */
  skipped: number;
  /** Bytes read by this build. */
  bytes: number;
  /** Whether the walk is over (files is then the total). */
  walked: boolean;
  elapsedMs: number;
}

/** The index of a workspace, as status() tells it (later: GET /api/health or a route of its own). */
export interface IndexStatus {
  state: 'empty' | 'building' | 'ready' | 'failed';
  workspace: string;
  /** The SQLite file the index is kept in. */
  database: string;
  files: number;
  parsed: number;
  lexical: number;
  skipped: number;
  /** The build under way, when there is one. */
  progress?: IndexProgress;
  /** The last build that finished. */
  lastBuild?: BuildSummary;
  /** Why the last build failed. */
  error?: string;
}

/** What a finished build did. */
export interface BuildSummary {
  startedAt: string;
  durationMs: number;
  files: number;
  /** Files parsed (content not in the cache). */
  parsed: number;
  /** Files whose content was read and found in the cache (another checkout, a branch switched back). */
  reused: number;
  /** Files whose size, time and inode were unchanged: not even read. */
  unchanged: number;
  removed: number;
  skipped: number;
  bytes: number;
}

/**
 * Folders of dependencies, virtual environments and tool caches: never indexed unless
 * `codeIndex.dependencies` is `index` (`.git` and `.loom` never are).
 */
export const DEPENDENCY_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules',
  'bower_components',
  'jspm_packages',
  'vendor',
  '.venv',
  'venv',
  '__pycache__',
  'site-packages',
  '.tox',
  '.nox',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.gradle',
  '.m2',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.cache',
  '.parcel-cache',
  '.yarn',
  '.pnpm-store',
  '.bundle',
  'Pods',
  'Carthage',
  'elm-stuff',
]);
