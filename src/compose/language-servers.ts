// The desktop app's code intelligence, built from the configuration: the language servers
// (src/adapters/lsp/) behind the language service (src/core/language/), mirroring the editor's
// documents and the workspace's watcher, started in the mode the workspace's trust allows, their
// restarts told as `notification` events and log lines.
import type { Clock } from '../core/clock.ts';
import { LanguageService } from '../core/language/service.ts';
import type { IndexNavigation } from '../core/language/servers.ts';
import type { LanguageServerSettings } from '../core/language/types.ts';
import { EventBus } from '../core/events/bus.ts';
import { skipsDirectory } from '../core/completion/builtin/index.ts';
import { Documents } from '../core/workspace/documents.ts';
import { FolderWatcher } from '../core/workspace/folder-watcher.ts';
import { WorkspacePaths, type LoomFolder } from '../core/workspace/paths.ts';
import { LspManager } from '../adapters/lsp/manager.ts';
import type { ServerSetting } from '../adapters/lsp/server-specs.ts';

export interface LanguageServicesOptions {
  paths: WorkspacePaths;
  documents: Documents;
  events: EventBus;
  watcher?: FolderWatcher;
  /** The data dir: the restricted pyright's isolated Python launcher is written there. */
  dataDir: string;
  settings: LanguageServerSettings;
  /** settings.json's `languageServers`, as in force now. */
  serverSettings(): Record<string, ServerSetting> | undefined;
  /** Calls `listener` after each change of settings.json. */
  onSettingsChange(listener: () => void): void;
  /** Whether the workspace is trusted now. */
  trusted(): boolean;
  /** Definitions and references for languages without a server (the code index). */
  index?: IndexNavigation;
  log(level: 'info' | 'warn', message: string): void;
  clock: Clock;
}

/**
 * The language service of `loom serve`'s workspace.
 *
 * @example
 *   const languages = createLanguageService({ paths, documents, events: bus, watcher, dataDir, settings: config.languageServers,
 *     serverSettings: () => settings.current.languageServers, onSettingsChange: (fn) => settings.onChange(fn),
 *     trusted: () => extensions.workspaceTrusted, log, clock });
 *   await languages.currentDiagnostics('src/app.ts');
 */
export function createLanguageService(options: LanguageServicesOptions): LanguageService {
  const manager = new LspManager({
    workspace: options.paths.root,
    stateDir: options.dataDir,
    settings: () => options.settings,
    serverSettings: () => options.serverSettings() ?? {},
    trusted: options.trusted,
    documents: options.documents,
    watcher: options.watcher,
    clock: options.clock,
    notice: (level, text) => {
      options.log(level === 'warning' ? 'warn' : 'info', text);
      options.events.emit('notification', { text, level, source: 'language-servers' }).catch(() => undefined);
    },
  });
  options.onSettingsChange(() => manager.configure());
  return new LanguageService({ paths: options.paths, documents: options.documents, servers: manager, events: options.events, index: options.index });
}

export interface ScratchLanguageOptions {
  /** The scratch copy: untrusted code, so its servers start restricted (those with no restricted mode never start). */
  folder: string;
  dataDir: string;
  settings: LanguageServerSettings;
  /** Loom's own folders, protected inside the copy as in any workspace. */
  loomFolders: readonly LoomFolder[];
  clock: Clock;
}

/**
 * Language servers over a composer session's scratch copy, for the session's time: they follow
 * its edits on disk (a watcher on the copy) and answer the diagnostics each edit is checked
 * against. The copy is never trusted: settings.json's servers are not read, and only the
 * restricted TypeScript and pyright start.
 *
 * @example
 *   const scratch = createScratchLanguageService({ folder: copy, dataDir, settings: config.languageServers, loomFolders, clock });
 *   agentIntel({ index, languages: scratch.languages });
 *   await scratch.close(); // when the session ends
 */
export function createScratchLanguageService(options: ScratchLanguageOptions): { languages: LanguageService; close(): Promise<void> } {
  const paths = new WorkspacePaths(options.folder, { loomFolders: [...options.loomFolders] });
  const events = new EventBus(options.clock);
  const documents = new Documents(paths, events);
  const watcher = new FolderWatcher(paths.root, { skipsDirectory, excludes: (absolute) => paths.loomFolderOf(absolute) !== undefined });
  const languages = createLanguageService({
    paths,
    documents,
    events,
    watcher,
    dataDir: options.dataDir,
    settings: options.settings,
    serverSettings: () => undefined,
    onSettingsChange: () => {},
    trusted: () => false,
    // A server's restart inside one session is nobody's to act on; its errors reach the model as tool errors.
    log: () => {},
    clock: options.clock,
  });
  return {
    languages,
    close: async () => {
      await languages.close();
      watcher.close();
    },
  };
}
