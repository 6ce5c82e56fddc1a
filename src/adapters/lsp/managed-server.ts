// One language server of the workspace over its life: started when first needed (a document of
// its language opened, a request), in the mode trust allows; given the text of the documents it
// needs; restarted with backoff when it crashes, hangs, goes over its memory limit or breaks the
// message cap; restarted in the other mode when trust changes; stopped when idle.
import fs from 'node:fs';
import path from 'node:path';
import type { Clock } from '../../core/clock.ts';
import { LoomError } from '../../core/errors.ts';
import { fileUri } from '../../core/language/lsp-convert.ts';
import type { SourceFile } from '../../core/language/servers.ts';
import type { LanguageServerSettings, LanguageServerStatus } from '../../core/language/types.ts';
import type { Launch, ServerMode, ServerSpec } from './server-specs.ts';
import { ServerSession } from './server-session.ts';

/** Files a server holds open on behalf of requests (not open in the editor), the least recently used closed first. */
const MAX_HELD_FOR_REQUESTS = 32;
/** Time a server that stopped answering a request has to answer a ping before it counts as hung. */
const PING_GRACE_MS = 2000;
/** Failures in a row told as notices. */
const MAX_NOTICES_IN_A_ROW = 3;
/** A server that ran this long before failing starts its backoff afresh. */
const STABLE_MS = 60_000;
/** Largest file read again from disk for a server (as the service's MAX_SOURCE_BYTES). */
const MAX_HELD_BYTES = 16 * 1024 * 1024;

export interface ManagedServerContext {
  workspace: string;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  settings(): LanguageServerSettings;
  trusted(): boolean;
  clock: Clock;
  maxMessageBytes: number;
  backoff: { firstMs: number; maxMs: number };
  /** After a report without a version, how long no further report must come before diagnostics count as settled. */
  quietMs: number;
  /** The editor's open documents (the manager's mirror of them). */
  editorDocuments(): Map<string, EditorDocument>;
  diagnostics(server: string, uri: string, diagnostics: unknown): void;
  notice(level: 'info' | 'warning', text: string): void;
}

export interface EditorDocument {
  language: string;
  text: () => string;
}

/** A document the server holds (didOpen sent): the text and version it has. */
interface Held {
  uri: string;
  version: number;
  text: string;
  /** For a file held for requests: the file on disk when its text was read, to notice another writer. */
  disk?: { mtimeMs: number; size: number };
  /** The version the server's latest diagnostics were for (the version held when they came, where the server does not say). */
  reportedVersion?: number;
  lastUsed: number;
}

interface ReportWaiter {
  uri: string;
  version: number;
  done(current: boolean): void;
  quiet?: NodeJS.Timeout;
}

/**
 * A language server's lifecycle.
 *
 * @example
 *   const server = new ManagedServer(spec, context);
 *   const { result } = await server.request(file, 'textDocument/hover', (uri) => ({ textDocument: { uri }, position }));
 */
export class ManagedServer {
  private session?: ServerSession;
  private mode?: ServerMode;
  private launch?: Launch;
  private starting?: Promise<ServerSession>;
  private state: LanguageServerStatus['state'] = 'stopped';
  private reason?: string;
  private restarts = 0;
  private failuresInARow = 0;
  private startedAt = 0;
  private retry?: { timer: NodeJS.Timeout; at: number };
  private lastActivity: number;
  private rss?: number;
  private checkingAlive = false;
  private closed = false;
  private readonly held = new Map<string, Held>();
  /** Editor documents changed since their text was last given to the server. */
  private readonly pending = new Set<string>();
  private flushTimer?: NodeJS.Timeout;
  private readonly waiters = new Set<ReportWaiter>();
  /** URIs the server reported diagnostics for (cleared when it is removed). */
  private readonly reported = new Set<string>();

  constructor(
    readonly spec: ServerSpec,
    private readonly context: ManagedServerContext,
  ) {
    this.lastActivity = context.clock.now();
  }

  get name(): string {
    return this.spec.name;
  }

  /** Why no request can be served in the mode trust allows now, or undefined. */
  unavailable(): string | undefined {
    return this.spec.check(this.wantedMode(), this.launchContext());
  }

  status(): LanguageServerStatus {
    const unavailable = this.session ? undefined : this.unavailable();
    const status: LanguageServerStatus = {
      server: this.spec.name,
      languages: this.spec.languages,
      origin: this.spec.origin,
      state: unavailable && this.state === 'stopped' ? 'unavailable' : this.state,
      restarts: this.restarts,
    };
    if (this.session) {
      status.mode = this.mode;
      if (this.session.pid !== undefined) status.pid = this.session.pid;
      if (this.rss !== undefined) status.rssBytes = this.rss;
    }
    const reason = unavailable ?? this.reason;
    if (reason) status.reason = reason;
    return status;
  }

  /** Sends a request about `file` once the server holds its text. */
  async request(file: SourceFile, method: string, params: (uri: string) => object, signal?: AbortSignal): Promise<{ result: unknown; version: number }> {
    this.touch();
    const session = await this.ensure();
    this.refreshFromDisk(session);
    const held = this.give(session, file);
    const timeoutMs = this.context.settings().requestTimeoutMs;
    try {
      return { result: await session.request(method, params(held.uri), timeoutMs, signal), version: held.version };
    } catch (error) {
      if (error instanceof LoomError && error.code === 'language_server_timeout') this.checkAlive(session);
      throw error;
    }
  }

  /** Gives the server `file`'s text and resolves once its diagnostics for it are in; false when they did not come in time. */
  async settleDiagnostics(file: SourceFile, absolutePath: string, signal?: AbortSignal): Promise<boolean> {
    this.touch();
    const session = await this.ensure();
    this.refreshFromDisk(session);
    const held = this.give(session, file);
    const timeoutMs = this.context.settings().requestTimeoutMs;
    const pull = this.launch?.pullDiagnostics;
    if (pull) {
      try {
        const diagnostics = await pull((method, params) => session.request(method, params, timeoutMs, signal), absolutePath);
        if (session === this.session && held.version === this.held.get(file.path)?.version) this.report(held.uri, diagnostics, held.version);
        return true;
      } catch (error) {
        if (error instanceof LoomError && error.code === 'language_server_timeout') this.checkAlive(session);
        throw error;
      }
    }
    if (held.reportedVersion !== undefined && held.reportedVersion >= held.version) return true;
    return new Promise<boolean>((resolve) => {
      const deadline = setTimeout(() => waiter.done(false), timeoutMs);
      const onAbort = () => waiter.done(false);
      const waiter: ReportWaiter = {
        uri: held.uri,
        version: held.version,
        done: (current) => {
          clearTimeout(deadline);
          clearTimeout(waiter.quiet);
          signal?.removeEventListener('abort', onAbort);
          this.waiters.delete(waiter);
          resolve(current);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  /** The editor opened a document of this server's languages: the server starts if it is not running. */
  editorOpened(path: string): void {
    this.touch();
    if (!this.session) {
      this.ensure().catch(() => undefined);
      return;
    }
    this.pending.add(path);
    this.scheduleFlush();
  }

  /** The editor changed a document of this server's languages. */
  editorChanged(path: string): void {
    this.touch();
    if (!this.session) {
      this.ensure().catch(() => undefined);
      return;
    }
    this.pending.add(path);
    this.scheduleFlush();
  }

  /** The editor closed a document: the server lets it go (its diagnostics with it). */
  editorClosed(path: string): void {
    this.pending.delete(path);
    const held = this.held.get(path);
    if (held && this.session) {
      this.held.delete(path);
      void this.session.notify('textDocument/didClose', { textDocument: { uri: held.uri } });
    } else {
      // Nobody will clear them: the server is not running.
      this.report(fileUri(this.context.workspace, path), [], undefined);
    }
  }

  /** Files changed on disk (LSP FileChangeType: 1 created, 2 changed, 3 deleted). */
  diskChanged(changes: { path: string; type: 1 | 2 | 3 }[]): void {
    const session = this.session;
    if (!session) return;
    this.refreshFromDisk(session);
    void session.notify('workspace/didChangeWatchedFiles', {
      changes: changes.map((change) => ({ uri: fileUri(this.context.workspace, change.path), type: change.type })),
    });
  }

  /** The periodic look: trust changed, idle, memory. */
  tick(): void {
    const session = this.session;
    if (!session || this.state !== 'running') return;
    if (this.wantedMode() !== this.mode) {
      this.context.notice(
        'info',
        `The ${this.name} language server restarts ${this.wantedMode() === 'full' ? 'with every feature: the workspace is now trusted' : 'restricted: the workspace is no longer trusted'}.`,
      );
      void this.stopSession('stopped').then(() => this.ensure().catch(() => undefined));
      return;
    }
    const { idleSeconds, memoryLimitMb } = this.context.settings();
    if (this.context.clock.now() - this.lastActivity > idleSeconds * 1000) {
      void this.stopSession('stopped', `idle for more than ${idleSeconds} s`);
      return;
    }
    this.rss = session.rss();
    if (this.rss !== undefined && this.rss > memoryLimitMb * 1024 * 1024) {
      session.kill(`used ${Math.round(this.rss / 1024 / 1024)} MB of memory, over the limit of ${memoryLimitMb} MB (languageServers.memoryLimitMb)`);
    }
  }

  /** Stops it for good (the manager closes, or its settings changed). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry.timer);
    this.retry = undefined;
    await this.stopSession('stopped');
    await this.starting?.then((session) => session.stop()).catch(() => undefined);
    for (const uri of this.reported) this.context.diagnostics(this.name, uri, []);
    this.reported.clear();
  }

  private touch(): void {
    this.lastActivity = this.context.clock.now();
  }

  private wantedMode(): ServerMode {
    return this.context.trusted() ? 'full' : 'restricted';
  }

  private launchContext() {
    return { workspace: this.context.workspace, stateDir: this.context.stateDir, memoryLimitMb: this.context.settings().memoryLimitMb, env: this.context.env };
  }

  /** The running session, started when needed; a restart in the other mode when trust changed. */
  private async ensure(): Promise<ServerSession> {
    if (this.closed)
      throw new LoomError('language_server_unavailable', `The ${this.name} language server is stopped: Loom is shutting down or its settings changed.`);
    if (this.session && this.mode !== this.wantedMode()) await this.stopSession('stopped');
    if (this.session) return this.session;
    if (this.starting) return this.starting;
    if (this.retry) {
      const seconds = Math.max(1, Math.ceil((this.retry.at - Date.now()) / 1000));
      throw new LoomError('language_server_unavailable', `The ${this.name} language server ${this.reason}; it restarts in ${seconds} s.`, 'Ask again then.');
    }
    const unavailable = this.unavailable();
    if (unavailable) throw new LoomError('language_server_unavailable', unavailable);
    this.starting = this.start(this.wantedMode()).finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async start(mode: ServerMode): Promise<ServerSession> {
    this.state = 'starting';
    const { settings } = this.context;
    // The session as the callbacks see it: unset while it starts (its start's failure is told by the throw).
    let started: ServerSession | undefined;
    let session: ServerSession;
    try {
      const launch = await this.spec.launch(mode, this.launchContext());
      session = await ServerSession.start({
        name: this.name,
        workspace: this.context.workspace,
        launch,
        env: this.context.env,
        maxMessageBytes: this.context.maxMessageBytes,
        startTimeoutMs: Math.max(settings().requestTimeoutMs, 30_000),
        onNotification: (method, params) => {
          if (started && started === this.session) this.notification(method, params);
        },
        ended: (reason) => {
          if (started && started === this.session) this.failed(reason);
        },
      });
      this.launch = launch;
    } catch (error) {
      const reason =
        error instanceof LoomError ? error.message.replace(/^The \S+ language server /, '').replace(/\.$/, '') : `could not start: ${(error as Error).message}`;
      this.failed(reason);
      throw new LoomError('language_server_failed', `The ${this.name} language server ${reason}.`, 'It is restarted with backoff; ask again.');
    }
    if (this.closed) {
      await session.stop();
      throw new LoomError('language_server_unavailable', `The ${this.name} language server is stopped: Loom is shutting down or its settings changed.`);
    }
    started = session;
    this.session = session;
    this.mode = mode;
    this.state = 'running';
    this.reason = undefined;
    this.startedAt = Date.now();
    this.rss = undefined;
    // What the editor has open of its languages, with the text the user sees.
    for (const [path, document] of this.context.editorDocuments()) {
      if (this.spec.languages.includes(document.language)) this.give(session, { path, language: document.language, text: document.text() });
    }
    return session;
  }

  /** The session ended without being asked: a crash, a kill for a hang or a limit. Restarted after the backoff. */
  private failed(reason: string): void {
    this.session = undefined;
    this.launch = undefined;
    this.held.clear();
    this.pending.clear();
    for (const waiter of [...this.waiters]) waiter.done(false);
    if (this.closed) return;
    this.restarts++;
    if (this.startedAt > 0 && Date.now() - this.startedAt > STABLE_MS) this.failuresInARow = 0;
    this.failuresInARow++;
    const { firstMs, maxMs } = this.context.backoff;
    const delay = Math.min(maxMs, firstMs * 2 ** Math.min(20, this.failuresInARow - 1));
    this.state = 'restarting';
    this.reason = reason;
    // A server that keeps failing is told of three times in a row; status() tells the rest.
    if (this.failuresInARow <= MAX_NOTICES_IN_A_ROW) {
      const more = this.failuresInARow === MAX_NOTICES_IN_A_ROW ? ' (further restarts are not told; its status says them)' : '';
      this.context.notice('warning', `The ${this.name} language server ${reason}; it restarts in ${Math.max(1, Math.round(delay / 1000))} s${more}.`);
    }
    const timer = setTimeout(() => {
      this.retry = undefined;
      this.state = 'stopped';
      this.ensure().catch(() => undefined);
    }, delay);
    timer.unref();
    this.retry = { timer, at: Date.now() + delay };
  }

  /** Stops the running session on Loom's own initiative (idle, trust changed, closing): no failure, no backoff. */
  private async stopSession(state: 'stopped', reason?: string): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.session = undefined;
    this.launch = undefined;
    this.held.clear();
    this.pending.clear();
    for (const waiter of [...this.waiters]) waiter.done(false);
    this.state = state;
    this.reason = reason;
    await session.stop();
  }

  /** Makes the server hold exactly `file.text` (open it, or change it to it); the editor's pending changes go first. */
  private give(session: ServerSession, file: SourceFile): Held {
    this.flush();
    const now = this.context.clock.now();
    let held = this.held.get(file.path);
    const fromDisk = !this.context.editorDocuments().has(file.path);
    if (!held) {
      held = { uri: fileUri(this.context.workspace, file.path), version: 1, text: file.text, lastUsed: now };
      this.held.set(file.path, held);
      void session.notify('textDocument/didOpen', { textDocument: { uri: held.uri, languageId: file.language, version: 1, text: file.text } });
      this.letGoOfOldest(session);
    } else if (held.text !== file.text) {
      held.version++;
      held.text = file.text;
      void session.notify('textDocument/didChange', { textDocument: { uri: held.uri, version: held.version }, contentChanges: [{ text: file.text }] });
    }
    held.disk = fromDisk ? diskState(this.absolute(file.path)) : undefined;
    held.lastUsed = now;
    return held;
  }

  /**
   * The files held for requests that another writer changed on disk since (an agent, a rename's
   * edit, a checkout): the server gets their text now, before it answers anything, rather than
   * when the watcher hears of it.
   */
  private refreshFromDisk(session: ServerSession): void {
    const editor = this.context.editorDocuments();
    for (const [file, held] of this.held) {
      if (editor.has(file) || !held.disk) continue;
      const now = diskState(this.absolute(file));
      if (now && now.mtimeMs === held.disk.mtimeMs && now.size === held.disk.size) continue;
      let text: string | undefined;
      try {
        text = now && now.size <= MAX_HELD_BYTES ? fs.readFileSync(this.absolute(file), 'utf8') : undefined;
      } catch {
        text = undefined;
      }
      if (text === undefined) {
        // Gone, or no longer readable: the server forgets it.
        this.held.delete(file);
        void session.notify('textDocument/didClose', { textDocument: { uri: held.uri } });
        continue;
      }
      held.disk = now;
      if (text === held.text) continue;
      held.version++;
      held.text = text;
      void session.notify('textDocument/didChange', { textDocument: { uri: held.uri, version: held.version }, contentChanges: [{ text }] });
    }
  }

  private absolute(file: string): string {
    return path.join(this.context.workspace, ...file.split('/'));
  }

  /** Closes the least recently used files held for requests beyond MAX_HELD_FOR_REQUESTS (the editor's stay). */
  private letGoOfOldest(session: ServerSession): void {
    const editor = this.context.editorDocuments();
    const forRequests = [...this.held].filter(([path]) => !editor.has(path));
    if (forRequests.length <= MAX_HELD_FOR_REQUESTS) return;
    forRequests.sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    for (const [path, held] of forRequests.slice(0, forRequests.length - MAX_HELD_FOR_REQUESTS)) {
      this.held.delete(path);
      void session.notify('textDocument/didClose', { textDocument: { uri: held.uri } });
    }
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    // Keystrokes close together go as one change.
    this.flushTimer = setTimeout(() => this.flush(), 20);
    this.flushTimer.unref();
  }

  /** Gives the server the editor's documents that changed (whole text: every server takes that). */
  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const session = this.session;
    if (!session || this.pending.size === 0) return;
    const editor = this.context.editorDocuments();
    const paths = [...this.pending];
    this.pending.clear();
    for (const path of paths) {
      const document = editor.get(path);
      if (document) this.give(session, { path, language: document.language, text: document.text() });
    }
  }

  private notification(method: string, params: unknown): void {
    if (method !== 'textDocument/publishDiagnostics') return;
    const { uri, version, diagnostics } = (params ?? {}) as { uri?: unknown; version?: unknown; diagnostics?: unknown };
    if (typeof uri !== 'string') return;
    this.report(uri, diagnostics, typeof version === 'number' ? version : undefined);
  }

  /** A report of diagnostics for `uri` (for `version` when known): to the store, and to whoever waits for it. */
  private report(uri: string, diagnostics: unknown, version: number | undefined): void {
    if (this.reported.size < 100_000 || this.reported.has(uri)) {
      if (Array.isArray(diagnostics) && diagnostics.length > 0) this.reported.add(uri);
      else this.reported.delete(uri);
    }
    this.context.diagnostics(this.name, uri, diagnostics);
    const held = [...this.held.values()].find((entry) => entry.uri === uri);
    if (held) held.reportedVersion = version ?? held.version;
    for (const waiter of [...this.waiters]) {
      if (waiter.uri !== uri) continue;
      if (version !== undefined) {
        if (version >= waiter.version) waiter.done(true);
        continue;
      }
      // A report without a version may be for an older text: settled once no other follows for a moment.
      clearTimeout(waiter.quiet);
      waiter.quiet = setTimeout(() => waiter.done(true), this.context.quietMs);
    }
  }

  /** A request ran past its limit: a server that does not answer a ping either is hung, and is restarted. */
  private checkAlive(session: ServerSession): void {
    if (this.checkingAlive) return;
    this.checkingAlive = true;
    void session
      .answers(PING_GRACE_MS)
      .then((alive) => {
        if (!alive && session === this.session)
          session.kill(
            `stopped answering (a request ran past ${this.context.settings().requestTimeoutMs} ms, and a ping got no answer within ${PING_GRACE_MS} ms)`,
          );
      })
      .finally(() => (this.checkingAlive = false));
  }
}

function diskState(file: string): { mtimeMs: number; size: number } | undefined {
  try {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    return stat?.isFile() ? { mtimeMs: stat.mtimeMs, size: stat.size } : undefined;
  } catch {
    return undefined;
  }
}
