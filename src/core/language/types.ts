// Code intelligence as Loom speaks it, whatever answers it (a language server, the code index):
// positions are 1-based lines and 1-based columns in UTF-16 code units, as everywhere in Loom's
// APIs (src/contracts/local-resources.ts); paths are relative to the workspace. LSP's 0-based
// positions and file URIs are converted at the boundary (lsp-convert.ts).
import type { Position } from '../../contracts/local-resources.ts';

export type { Position };

/** A stretch of a document: `start` inclusive, `end` exclusive. */
export interface CodeRange {
  start: Position;
  end: Position;
}

export type DiagnosticSeverity = 'error' | 'warning' | 'information' | 'hint';

export interface CodeDiagnostic {
  range: CodeRange;
  severity: DiagnosticSeverity;
  message: string;
  /** Who found it: `ts`, `Pyright`, … as the server names itself. */
  source?: string;
  code?: string;
  /** `unnecessary` (unused code, shown faded), `deprecated` (shown struck through). */
  tags?: ('unnecessary' | 'deprecated')[];
}

/** What a language server last reported for one file. */
export interface FileDiagnostics {
  path: string;
  /** The server that reported them (`typescript`, `python`, …). */
  server: string;
  diagnostics: CodeDiagnostic[];
  /** Diagnostics the server reported beyond the ones kept (a server may report thousands for one file). */
  omitted: number;
}

/** The workspace's problems: every file with diagnostics, errors first. */
export interface Problems {
  files: FileDiagnostics[];
  counts: Record<DiagnosticSeverity, number>;
}

/**
 * A place in the code. `path` is workspace-relative, or null for a file outside the workspace
 * (TypeScript's own lib.d.ts, an installed package); `uri` names the file either way.
 */
export interface CodeLocation {
  path: string | null;
  uri: string;
  range: CodeRange;
}

/** Where an answer about definitions or references came from. */
export type NavigationSource = 'language-server' | 'index';

export interface NavigationAnswer {
  /** `index`: no language server runs for the language, and the code index answered instead (by name, not by type). */
  source: NavigationSource;
  /** The language server that answered, when one did. */
  server?: string;
  locations: CodeLocation[];
}

export interface HoverAnswer {
  /** What the server says about the symbol, as Markdown. */
  markdown: string;
  /** The stretch the answer is about, when the server says. */
  range?: CodeRange;
}

/** A symbol a file declares (a class, its methods, a function, a variable), with those inside it. */
export interface CodeSymbol {
  name: string;
  /** LSP's symbol kind, in words: `class`, `method`, `function`, `variable`, … */
  kind: string;
  detail?: string;
  /** The whole declaration. */
  range: CodeRange;
  /** The name within it. */
  selectionRange: CodeRange;
  children: CodeSymbol[];
}

export interface TextEdit {
  range: CodeRange;
  newText: string;
}

/**
 * What a file's edit was made against: an open document at a version, or the file on disk
 * with this SHA-256 of its text. Applying checks it still is, and refuses otherwise.
 */
export type EditBase = { kind: 'document'; version: number } | { kind: 'disk'; sha256: string };

/** One file of a workspace edit, previewed: its edits, against what, and the diff they make. */
export interface FileEditPreview {
  path: string;
  base: EditBase;
  edits: TextEdit[];
  /** Unified diff (`git diff`'s form) from the text now to the text after the edits. */
  diff: string;
}

/** A workspace edit (a rename's) shown before it is applied. */
export interface EditPreview {
  files: FileEditPreview[];
}

export interface AppliedFileEdit {
  path: string;
  /** Applied to the open document (as unsaved edits, which file:change events announce), or written to the file on disk. */
  to: 'document' | 'disk';
  /** The document's version after the edit, when it went to a document. */
  version?: number;
}

/** The state of one language server, as `status()` tells it. */
export interface LanguageServerStatus {
  /** The server's name: `typescript`, `python`, or the key of its settings.json entry. */
  server: string;
  languages: string[];
  /** `bundled` (shipped with Loom), `settings` (settings.json names it) or `path` (found on PATH). */
  origin: 'bundled' | 'settings' | 'path';
  state: 'stopped' | 'starting' | 'running' | 'restarting' | 'unavailable';
  /** `full` in a trusted workspace; `restricted`: started with the features that run workspace code off. */
  mode?: 'full' | 'restricted';
  pid?: number;
  /** Resident memory of the server and its child processes, at the last look. */
  rssBytes?: number;
  /** Times it was restarted after a crash, a hang, or the memory or message limit. */
  restarts: number;
  /** Why it is unavailable, or why it was last restarted. */
  reason?: string;
}

/** A language server session's settings (docs/configuration.md, `languageServers.*`). */
export interface LanguageServerSettings {
  enabled: boolean;
  /** Time a request may take before it fails with language_server_timeout. */
  requestTimeoutMs: number;
  /** A server with nothing asked of it this long is stopped (started again when needed). */
  idleSeconds: number;
  /** Resident memory (the server and its children) past which it is restarted. */
  memoryLimitMb: number;
}
