// What an agent task may know of the code beyond the files' text, declared here and provided by
// compose (src/compose/agent-intel.ts) from the workspace's code index and language servers.
// Both halves are optional: a composer session's scratch copy may have an index and no language
// servers, or neither. Without the index the first turn lists files instead of mapping them and
// the index's tools are not offered; without the language servers neither are theirs, and edits
// are not checked.
import type { CodeDiagnostic, NavigationAnswer, Position, TextEdit } from '../../language/types.ts';

export type { CodeDiagnostic, NavigationAnswer, Position, TextEdit };

/** A repository map as the first turn shows it. */
export interface AgentMap {
  text: string;
  /** Tokens of `text`, as the code index counts them. */
  tokens: number;
  /** The files shown, in the map's order. */
  files: string[];
}

/** A definition found by its name. */
export interface AgentSymbol {
  name: string;
  kind: string;
  path: string;
  /** 1-based. */
  line: number;
  /** The definition it is in (a method's class). */
  container?: string;
}

/** The code index's side: the map, locate, symbols by name, who imports a file. */
export interface AgentCodeIndex {
  /** The map for `task` with `focus` first, within `tokens`. */
  map(request: { task: string; focus: readonly string[]; tokens: number }): Promise<AgentMap>;
  /** The files most likely to need a change for `description`, with why, best first. */
  locate(description: string, limit: number): Promise<{ path: string; reasons: string[] }[]>;
  /** Definitions whose name matches `query` (fuzzy), best first. */
  symbols(query: string, limit: number): Promise<AgentSymbol[]>;
  /** The workspace files that import `path` (from the index's imports), at most `limit`. */
  importers(path: string, limit: number): Promise<string[]>;
}

/** A file's diagnostics now, and whether they are for its text now (false: the server did not answer in time). */
export interface AgentDiagnostics {
  current: boolean;
  diagnostics: CodeDiagnostic[];
}

/** One file of a rename: its edits, made on the text whose SHA-256 is `sha256` (absent: an open document's, checked by its version). */
export interface AgentRenameFile {
  path: string;
  edits: TextEdit[];
  sha256?: string;
}

/** The language servers' side (with the index's answers where no server runs for a language). */
export interface AgentLanguages {
  /** Longest wait for the servers' diagnostics in one check after an edit, ms. */
  readonly waitMs: number;
  definition(path: string, position: Position, signal?: AbortSignal): Promise<NavigationAnswer>;
  references(path: string, position: Position, signal?: AbortSignal): Promise<NavigationAnswer>;
  /** Waits for the server's diagnostics of the file as it is now (bounded by the server's time limit). Throws a LoomError where no server runs. */
  diagnostics(path: string, signal?: AbortSignal): Promise<AgentDiagnostics>;
  /** Whether a language server serves this file (a diagnostics check is worth waiting for). */
  serves(path: string): boolean;
  /** The edits renaming the symbol at `position` to `newName` makes, per file; nothing is changed. */
  rename(path: string, position: Position, newName: string, signal?: AbortSignal): Promise<AgentRenameFile[]>;
}

/** What a task knows of the code: either half may be missing. */
export interface AgentIntel {
  index?: AgentCodeIndex;
  languages?: AgentLanguages;
}
