// The workspace's language servers behind core's LanguageServerPool: one per language family
// (typescript-language-server for TypeScript and JavaScript, pyright for Python, gopls, …),
// mirroring the editor's open documents (their unsaved text) and the files that change on disk,
// and looked at periodically (trust, idle, memory). src/compose/language-servers.ts builds it.
import fs from 'node:fs';
import path from 'node:path';
import { systemClock, type Clock } from '../../core/clock.ts';
import { isAtomicWriteTemp } from '../../core/files/write-atomically.ts';
import { LoomError } from '../../core/errors.ts';
import type { LanguageServerPool, ServerLookup, SourceFile } from '../../core/language/servers.ts';
import type { LanguageServerSettings, LanguageServerStatus } from '../../core/language/types.ts';
import type { Documents } from '../../core/workspace/documents.ts';
import type { FolderWatcher } from '../../core/workspace/folder-watcher.ts';
import { protectedName } from '../../core/workspace/protected.ts';
import { ManagedServer, type EditorDocument } from './managed-server.ts';
import { serverSpecs, type ServerSetting, type ServerSpec } from './server-specs.ts';

/** Largest message a server may send (a references answer over a big workspace is a few MB). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** Quiet time that ends a burst of disk changes told to the servers as one. */
const DISK_QUIET_MS = 100;
/** Variables of Loom's environment a server never sees: Loom's own settings and its secrets. */
const WITHHELD_ENV = /^(LOOM_.*|NODE_OPTIONS|OPENAI_API_KEY|DATABASE_URL|REDIS_URL)$/i;

export interface LspManagerOptions {
  /** The workspace's real path. */
  workspace: string;
  /** A folder of Loom's own for the files a server's start needs (the data dir). */
  stateDir: string;
  settings(): LanguageServerSettings;
  /** settings.json's `languageServers` entries. */
  serverSettings?(): Record<string, ServerSetting>;
  /** Whether the workspace is trusted now (the extensions' trust list). */
  trusted(): boolean;
  /** The editor's documents, mirrored to the servers. */
  documents?: Documents;
  /** The workspace's watcher: changed files are told to the servers. */
  watcher?: FolderWatcher;
  /** A notice for the user (a server restarted, and why). */
  notice?(level: 'info' | 'warning', text: string): void;
  clock?: Clock;
  /** The servers' environment (Loom's, less WITHHELD_ENV, by default). */
  env?: NodeJS.ProcessEnv;
  /** Servers to use instead of serverSpecs() (tests: a scripted server). */
  specs?: ServerSpec[];
  maxMessageBytes?: number;
  /** How often trust, idleness and memory are looked at. */
  tickMs?: number;
  backoff?: { firstMs: number; maxMs: number };
  quietMs?: number;
}

/**
 * Runs the workspace's language servers.
 *
 * @example
 *   const manager = new LspManager({ workspace: paths.root, stateDir: dataDir, settings: () => config.languageServers, trusted: () => trust.isTrusted(paths.root), documents, watcher });
 *   manager.serverFor('typescript'); // { server: 'typescript' }
 *   await manager.close();
 */
export class LspManager implements LanguageServerPool {
  private servers: ManagedServer[] = [];
  private readonly editor = new Map<string, EditorDocument>();
  private readonly listeners = new Set<(server: string, uri: string, diagnostics: unknown) => void>();
  private readonly unsubscribe: (() => void)[] = [];
  private readonly ticker: NodeJS.Timeout;
  private readonly diskPending = new Set<string>();
  private diskTimer?: NodeJS.Timeout;
  private lastDiskFlush = Date.now();
  private configured = '';
  private closed = false;

  constructor(private readonly options: LspManagerOptions) {
    this.configure();
    const { documents, watcher } = options;
    if (documents) {
      this.unsubscribe.push(
        documents.onLifecycle({
          opened: (file, language, text) => {
            this.editor.set(file, { language, text });
            this.serverOf(language)?.editorOpened(file);
          },
          closed: (file) => {
            const document = this.editor.get(file);
            this.editor.delete(file);
            if (document) this.serverOf(document.language)?.editorClosed(file);
          },
        }),
        documents.onChange((file, text) => {
          const document = this.editor.get(file);
          if (!document) return;
          document.text = text;
          this.serverOf(document.language)?.editorChanged(file);
        }),
      );
    }
    if (watcher) this.unsubscribe.push(watcher.onChange((absolute) => this.heardOnDisk(absolute)));
    this.ticker = setInterval(() => this.tick(), options.tickMs ?? 2000);
    this.ticker.unref();
  }

  /** Takes settings.json's entries again: servers whose entry changed stop (and start anew when needed). */
  configure(): void {
    if (this.closed) return;
    const settings = this.options.serverSettings?.() ?? {};
    const key = JSON.stringify(settings);
    if (key === this.configured) return;
    this.configured = key;
    const specs = !this.options.settings().enabled ? [] : (this.options.specs ?? serverSpecs(settings));
    const keep = new Map(this.servers.map((server) => [server.name, server]));
    const next: ManagedServer[] = [];
    for (const spec of specs) {
      const current = keep.get(spec.name);
      if (current && current.spec.key === spec.key) {
        next.push(current);
        keep.delete(spec.name);
      } else {
        next.push(new ManagedServer(spec, this.serverContext()));
      }
    }
    for (const gone of keep.values()) void gone.close();
    this.servers = next;
  }

  serverFor(language: string): ServerLookup {
    const server = this.serverOf(language);
    if (!server) return { unavailable: this.noServer(language) };
    const unavailable = server.unavailable();
    return unavailable ? { unavailable } : { server: server.name };
  }

  async request(
    file: SourceFile,
    method: string,
    params: (uri: string) => object,
    signal?: AbortSignal,
  ): Promise<{ server: string; result: unknown; version: number }> {
    const server = this.required(file.language);
    const { result, version } = await server.request(file, method, params, signal);
    return { server: server.name, result, version };
  }

  settleDiagnostics(file: SourceFile, signal?: AbortSignal): Promise<boolean> {
    return this.required(file.language).settleDiagnostics(file, path.join(this.options.workspace, ...file.path.split('/')), signal);
  }

  onDiagnostics(listener: (server: string, uri: string, diagnostics: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  status(): LanguageServerStatus[] {
    return this.servers.map((server) => server.status());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.ticker);
    clearTimeout(this.diskTimer);
    for (const stop of this.unsubscribe) stop();
    await Promise.all(this.servers.map((server) => server.close()));
  }

  private serverOf(language: string): ManagedServer | undefined {
    return this.servers.find((server) => server.spec.languages.includes(language));
  }

  private required(language: string): ManagedServer {
    if (this.closed) throw new LoomError('language_server_unavailable', 'The language servers are stopped: Loom is shutting down.');
    const server = this.serverOf(language);
    if (!server) throw new LoomError('language_server_unavailable', this.noServer(language));
    return server;
  }

  private noServer(language: string): string {
    if (!this.options.settings().enabled) return 'Language servers are turned off (languageServers.enabled).';
    return `No language server serves ${language}: none is bundled for it, and settings.json names none (languageServers.${language}.command).`;
  }

  private serverContext() {
    const { options } = this;
    return {
      workspace: options.workspace,
      stateDir: options.stateDir,
      env: options.env ?? serverEnvironment(process.env),
      settings: options.settings,
      trusted: options.trusted,
      clock: options.clock ?? systemClock,
      maxMessageBytes: options.maxMessageBytes ?? MAX_MESSAGE_BYTES,
      backoff: options.backoff ?? { firstMs: 500, maxMs: 30_000 },
      quietMs: options.quietMs ?? 300,
      editorDocuments: () => this.editor,
      diagnostics: (server: string, uri: string, diagnostics: unknown) => {
        for (const listener of this.listeners) listener(server, uri, diagnostics);
      },
      notice: options.notice ?? (() => {}),
    };
  }

  private tick(): void {
    for (const server of this.servers) server.tick();
  }

  /** A name the watcher heard: told to the servers with the others of its burst. */
  private heardOnDisk(absolute: string): void {
    const relative = path.relative(this.options.workspace, absolute).split(path.sep).join('/');
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return;
    if (isAtomicWriteTemp(path.basename(absolute)) || protectedName(relative.split('/')[0]!)) return;
    this.diskPending.add(relative);
    clearTimeout(this.diskTimer);
    this.diskTimer = setTimeout(() => this.tellDisk(), DISK_QUIET_MS);
    this.diskTimer.unref();
  }

  private tellDisk(): void {
    const since = this.lastDiskFlush;
    this.lastDiskFlush = Date.now();
    const changes = [...this.diskPending]
      .slice(0, 10_000)
      .map((relative) => ({ path: relative, type: changeType(path.join(this.options.workspace, relative), since) }));
    this.diskPending.clear();
    for (const server of this.servers) server.diskChanged(changes);
  }
}

/** LSP's FileChangeType of a file the watcher heard: deleted when gone, created when born since the last burst, else changed. */
function changeType(absolute: string, since: number): 1 | 2 | 3 {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(absolute, { throwIfNoEntry: false });
  } catch {
    stat = undefined;
  }
  if (!stat) return 3;
  return stat.birthtimeMs > 0 && stat.birthtimeMs >= since ? 1 : 2;
}

/** Loom's environment for a server: everything but Loom's settings and secrets. */
export function serverEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !WITHHELD_ENV.test(name)));
}
