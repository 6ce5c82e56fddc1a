// What the language service needs of the language servers, declared here and provided by the
// adapter that runs them (src/adapters/lsp/): a server per language, started when needed,
// holding the text Loom gives it, asked LSP requests under a time limit. Requests and answers
// are LSP's own shapes; the service converts them (lsp-convert.ts) and checks what comes back.
import type { CodeLocation, LanguageServerStatus, Position } from './types.ts';

/** A workspace file as the service hands it to a server: its text now (the editor's document, or the disk). */
export interface SourceFile {
  /** Workspace-relative, with `/`. */
  path: string;
  language: string;
  text: string;
}

/** Which server serves a language, or, in a sentence, why none does. */
export type ServerLookup = { server: string } | { unavailable: string };

export interface LanguageServerPool {
  /** The server for `language` (not started by asking), or why none can run here. */
  serverFor(language: string): ServerLookup;
  /**
   * Sends an LSP request about `file` to the server of its language, started if it is not
   * running, once the server holds exactly `file.text` (opened, or changed to it). `params`
   * gets the file's URI. Answers what the server answered, unchecked, and the LSP version of
   * the file the server held. Throws LoomError: language_server_unavailable,
   * language_server_timeout, language_server_failed.
   */
  request(
    file: SourceFile,
    method: string,
    params: (uri: string) => object,
    signal?: AbortSignal,
  ): Promise<{ server: string; result: unknown; version: number }>;
  /**
   * Makes the server hold `file.text` and resolves once its diagnostics for that text are in
   * (through `onDiagnostics`): asked for them where the server answers such a request, else
   * once it has reported after the change. Answers whether they are current: false when the
   * server said nothing within the time limit (what it said before stands).
   */
  settleDiagnostics(file: SourceFile, signal?: AbortSignal): Promise<boolean>;
  /** Every report of diagnostics (LSP's `publishDiagnostics`, or an answer to a request for them), unchecked. */
  onDiagnostics(listener: (server: string, uri: string, diagnostics: unknown) => void): () => void;
  /** Every server this workspace could use, and its state. */
  status(): LanguageServerStatus[];
  /** Stops every server. */
  close(): Promise<void>;
}

/**
 * Definitions and references from the code index, for languages no language server serves (the
 * code index's service provides it). Positions and paths are Loom's.
 */
export interface IndexNavigation {
  definitions(file: SourceFile, position: Position, signal?: AbortSignal): Promise<CodeLocation[]>;
  references(file: SourceFile, position: Position, includeDeclaration?: boolean, signal?: AbortSignal): Promise<CodeLocation[]>;
}
