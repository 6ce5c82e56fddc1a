// Types of `loom/extension` for extension authors (the module is extension.mjs; docs/extensions.md).

/** Undoes a registration; calling it twice does nothing. */
export interface Disposable {
  dispose(): void;
}

/** What `activate` gets. */
export interface ExtensionContext {
  /** Disposables to dispose when the extension deactivates (those of registerCommand and events.on are disposed anyway). */
  subscriptions: Disposable[];
  /** The extension's folder. */
  extensionPath: string;
  /** Its package.json `name`. */
  name: string;
}

export type NotificationLevel = 'info' | 'warning' | 'error';

/** A position in 1-based lines and columns (UTF-16 code units). */
export interface Position {
  line: number;
  column: number;
}

/** An open document, as `GET /api/editor/file` shows it. */
export interface DocumentSummary {
  path: string;
  language: string;
  lineCount: number;
  cursorLine: number;
  cursor: Position;
  version: number;
  dirty: boolean;
  conflict: boolean;
  readOnly: boolean;
  active: boolean;
}

export interface EditResult {
  path: string;
  version: number;
  lineCount: number;
  cursorLine: number;
  cursor: Position;
  range: { start: Position; end: Position };
}

/** An event of `/events`: `file:open`, `file:save`, `file:create`, `file:rename`, `file:delete`, `git:commit`, `ai:complete`, `agent:start`, `agent:step`, `agent:complete`. */
export interface LoomEvent {
  seq: number;
  type: string;
  time: string;
  data: Record<string, unknown>;
}

/** A failed call: `code` is the local API's (e.g. `PROTECTED_PATH`, `NO_ACTIVE_FILE`, `OUT_OF_RANGE`). */
export interface LoomApiError extends Error {
  code?: string;
}

/** A command's handler: JSON arguments in, a JSON-serialisable result (or a promise of one) out. */
// The arguments are whatever the caller sent as JSON: a handler declares the types it expects.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CommandHandler = (...args: any[]) => unknown;

/**
 * Registers a command, run by `POST /api/commands/:name`, `loom run-command NAME [ARGS…]` and
 * the window's command palette. Disposed on deactivation.
 */
export function registerCommand(commandName: string, handler: CommandHandler): Disposable;

/** Shows a notification in the window and on `/events` (`notification`). At most 20 per 10 s. */
export function showNotification(text: string, options?: { level?: NotificationLevel }): Promise<null>;

/** Runs a command (this extension's or another's) and resolves with its result. */
export function executeCommand(commandName: string, ...args: unknown[]): Promise<unknown>;

/** The editor's active document; edits go through the local API's checks (never `.git/` or `.loom/`). */
export const editor: {
  /** The active document, or null when none is open. */
  activeDocument(): Promise<DocumentSummary | null>;
  /** The text of the active document, or of the open document `path`. */
  getText(path?: string): Promise<{ path: string; text: string; version: number }>;
  /** Inserts at `position` (at the cursor when left out; `path` names another open document). */
  insert(text: string, position?: { line?: number; column?: number; path?: string }): Promise<EditResult>;
  /** Replaces from start (inclusive) to end (exclusive). */
  replace(range: { startLine: number; startColumn: number; endLine: number; endColumn: number; path?: string }, text: string): Promise<EditResult>;
};

/** The server's events. */
export const events: {
  /** `listener` hears every event of `type` (`*`: every type). */
  on(type: string, listener: (event: LoomEvent) => unknown): Disposable;
};

/** The base class of an extension: export a subclass as the module's default (or `module.exports`). */
export class Extension {
  /** Runs when the extension starts (at start-up with `onStartup`, else on its first command). */
  activate(context: ExtensionContext): void | Promise<void>;
  /** Runs when it stops (reload, restart, shutdown), time-limited to 2 s. */
  deactivate(context?: ExtensionContext): void | Promise<void>;
  registerCommand(commandName: string, handler: CommandHandler): Disposable;
  showNotification(text: string, options?: { level?: NotificationLevel }): Promise<null>;
}
