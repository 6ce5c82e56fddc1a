// The extension host, the server's side: finds the extensions (the user's, and the workspace's
// once it is trusted), starts each in a process of its own when it is due (at start-up, or on its
// first command), routes commands to them, answers their API calls through the editor's
// documents (the local API's checks and write gate), and turns their failures into
// notifications and error codes. It lives on the local server's resource stack.
import { Compile } from 'typebox/compile';
import type { CommandInfo, ExtensionInfo, ExtensionList, NotificationLevel } from '../contracts/local-resources.ts';
import { InsertRequest, ReplaceRequest } from '../contracts/local-resources.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { LoomError } from '../core/errors.ts';
import type { EventBus, LoomEvent } from '../core/events/bus.ts';
import type { Documents } from '../core/workspace/documents.ts';
import { ExtensionProcess, type ExtensionLimits } from './extension-process.ts';
import { discoverExtensions, extensionRoots, type ExtensionManifest, type ManifestProblem } from './manifest.ts';
import { WorkspaceTrust } from './trust.ts';

/** Notifications one extension may show per window; more are dropped (one extension must not flood the window). */
const NOTIFICATIONS_PER_WINDOW = 20;
const NOTIFICATION_WINDOW_MS = 10_000;
const MAX_NOTIFICATION_LENGTH = 2000;
/** Time `deactivate` may take on reload, restart and shutdown. */
export const DEACTIVATE_TIMEOUT_MS = 2000;

const checkInsert = Compile(InsertRequest);
const checkReplace = Compile(ReplaceRequest);

export interface HostLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface ExtensionHostOptions {
  configDir: string;
  workspace: string;
  documents: Documents;
  events: EventBus;
  limits: Omit<ExtensionLimits, 'deactivateTimeoutMs'> & { deactivateTimeoutMs?: number };
  log?: HostLog;
  clock?: Clock;
}

type State = ExtensionInfo['state'];

interface Entry {
  manifest: ExtensionManifest;
  state: State;
  failure?: string;
  process?: ExtensionProcess;
  starting?: Promise<ExtensionProcess>;
  /** Commands it registered while running (besides those it contributes). */
  registered: Set<string>;
  notices: { windowStart: number; count: number; warned: boolean };
}

/**
 * The extensions of a server and their processes.
 *
 * @example
 *   const host = new ExtensionHost({ configDir, workspace, documents, events: bus, limits: { commandTimeoutMs: 10_000, memoryLimitMb: 256 } });
 *   host.start();
 *   await host.run('wordCount.count', []);
 *   await host.close();
 */
export class ExtensionHost {
  readonly trust: WorkspaceTrust;
  private entries = new Map<string, Entry>();
  private problems: ManifestProblem[] = [];
  private readonly limits: ExtensionLimits;
  private readonly log: HostLog;
  private readonly clock: Clock;
  private unsubscribe?: () => void;
  private closed = false;

  constructor(private readonly options: ExtensionHostOptions) {
    this.log = options.log ?? { info: () => {}, warn: () => {} };
    this.trust = new WorkspaceTrust(options.configDir, (message) => this.log.warn(message));
    this.limits = { deactivateTimeoutMs: DEACTIVATE_TIMEOUT_MS, ...options.limits };
    this.clock = options.clock ?? systemClock;
  }

  /** Finds the extensions and starts those that activate on start-up (in the background: the server answers meanwhile). */
  start(): void {
    this.unsubscribe = this.options.events.subscribe((event) => this.forward(event));
    this.discover();
  }

  /** Whether the workspace's extensions may run. */
  get workspaceTrusted(): boolean {
    return this.trust.isTrusted(this.options.workspace);
  }

  /** Commands that can run: those of the user's extensions and of a trusted workspace's, sorted by name. */
  commands(): CommandInfo[] {
    const list: CommandInfo[] = [];
    for (const entry of this.entries.values()) {
      if (entry.state === 'untrusted') continue;
      const titles = new Map(entry.manifest.commands.map(({ command, title }) => [command, title]));
      for (const name of new Set([...titles.keys(), ...entry.registered])) list.push({ name, title: titles.get(name) ?? name, extension: entry.manifest.name });
    }
    return list.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Every extension found, its state, and the folders that are not valid extensions. */
  list(): ExtensionList {
    return {
      workspace: this.options.workspace,
      workspaceTrusted: this.workspaceTrusted,
      extensions: [...this.entries.values()].map(({ manifest, state, failure, process, registered }) => ({
        name: manifest.name,
        version: manifest.version,
        title: manifest.title,
        scope: manifest.scope,
        dir: manifest.dir,
        state,
        ...(failure ? { failure } : {}),
        ...(process?.pid && state === 'active' ? { pid: process.pid } : {}),
        commands: [...new Set([...manifest.commands.map(({ command }) => command), ...registered])].sort(),
      })),
      problems: this.problems.map(({ dir, message }) => ({ dir, message })),
    };
  }

  /**
   * Runs a command by name: starts its extension first when it is not running. UNKNOWN_COMMAND,
   * WORKSPACE_UNTRUSTED, EXTENSION_FAILED or EXTENSION_TIMEOUT when it cannot answer.
   */
  async run(name: string, args: unknown[]): Promise<unknown> {
    const entry = this.ownerOf(name);
    if (!entry) throw new LoomError('unknown_command', `No extension provides the command ${name}.`, 'GET /api/commands (loom commands) lists them.');
    if (entry.state === 'untrusted')
      throw new LoomError(
        'workspace_untrusted',
        `${name} belongs to the workspace's extension ${entry.manifest.name}, and this workspace is not trusted.`,
        'Trust it with `loom extension trust` (or POST /api/workspace/trust) if you trust its code.',
      );
    // Every EXTENSION_FAILED answer comes with an error notification (the window shows that one,
    // not a second of its own): a refusal and a throw here; a crash, a stop or a failed
    // activation once, by `failed` or `activate`.
    if (entry.state === 'failed') {
      const refusal = new LoomError(
        'extension_failed',
        `${entry.manifest.name} ${entry.failure ?? 'failed'}.`,
        `Restart it: loom extension restart ${entry.manifest.name}`,
      );
      void this.notify(`${name} cannot run: ${refusal.message} ${refusal.hint}`, 'error', entry.manifest.name);
      throw refusal;
    }
    const process = await this.activate(entry);
    try {
      return await process.run(name, args);
    } catch (error) {
      if (error instanceof LoomError && error.code === 'extension_failed' && (entry.state as State) !== 'failed')
        void this.notify(`${name} failed: ${error.message}`, 'error', entry.manifest.name);
      throw error;
    }
  }

  /** Stops an extension (deactivate, time-limited) and starts it again, or for the first time. */
  async restart(name: string): Promise<ExtensionInfo> {
    const entry = this.entries.get(name);
    if (!entry) throw new LoomError('unknown_extension', `No extension is named ${name}.`, 'GET /api/extensions (loom extension list) lists them.');
    if (entry.state === 'untrusted')
      throw new LoomError(
        'workspace_untrusted',
        `${name} is a workspace extension, and this workspace is not trusted.`,
        'Trust it first: loom extension trust',
      );
    await this.deactivate(entry);
    entry.state = 'inactive';
    entry.failure = undefined;
    await this.activate(entry).catch(() => {});
    return this.list().extensions.find((info) => info.name === name)!;
  }

  /** Stops every extension, reads the folders again, and starts those due at start-up. */
  async reload(): Promise<ExtensionList> {
    await Promise.all([...this.entries.values()].map((entry) => this.deactivate(entry)));
    this.discover();
    return this.list();
  }

  /** Trusts (or stops trusting) the workspace, and reloads so its extensions start (or stop). */
  async setWorkspaceTrust(trusted: boolean): Promise<ExtensionList> {
    if (trusted) this.trust.trust(this.options.workspace);
    else this.trust.untrust(this.options.workspace);
    return this.reload();
  }

  /** A notification: to the window and `/events` (`{type: 'notification', data: {text, level, source}}`). */
  async notify(text: string, level: NotificationLevel, source: string): Promise<void> {
    await this.options.events.emit('notification', { text: text.slice(0, MAX_NOTIFICATION_LENGTH), level, source });
  }

  /** Deactivates every extension (each time-limited) and ends their processes. */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    await Promise.all([...this.entries.values()].map((entry) => this.deactivate(entry)));
  }

  private discover(): void {
    const roots = extensionRoots(this.options.configDir, this.options.workspace);
    const user = discoverExtensions(roots.user, 'user');
    const workspace = discoverExtensions(roots.workspace, 'workspace');
    const trusted = this.workspaceTrusted;
    this.entries = new Map();
    this.problems = [...user.problems, ...workspace.problems];
    const claimed = new Map<string, string>();
    for (const manifest of [...user.manifests, ...workspace.manifests]) {
      // The user's extension wins a name or a command over the workspace's: the first found keeps it.
      const clash = this.entries.has(manifest.name)
        ? `an extension named ${manifest.name} is already loaded (${this.entries.get(manifest.name)!.manifest.dir})`
        : manifest.commands
            .map(({ command }) => claimed.has(command) && `its command ${command} is already contributed by ${claimed.get(command)}`)
            .find(Boolean);
      if (clash) {
        this.problems.push({ dir: manifest.dir, message: clash });
        continue;
      }
      for (const { command } of manifest.commands) claimed.set(command, manifest.name);
      const state: State = manifest.scope === 'workspace' && !trusted ? 'untrusted' : 'inactive';
      this.entries.set(manifest.name, { manifest, state, registered: new Set(), notices: { windowStart: 0, count: 0, warned: false } });
    }
    for (const problem of this.problems) this.log.warn(`extension skipped: ${problem.dir}: ${problem.message}`);
    if (this.problems.length > 0)
      void this.notify(
        `${this.problems.length === 1 ? 'An extension was' : `${this.problems.length} extensions were`} skipped: ${this.problems.map((p) => `${p.dir}: ${p.message}`).join('; ')}`,
        'warning',
        'extensions',
      );
    for (const entry of this.entries.values()) if (entry.state === 'inactive' && entry.manifest.activateOnStartup) void this.activate(entry).catch(() => {});
  }

  /** The running process of an extension, started when it is not. */
  private activate(entry: Entry): Promise<ExtensionProcess> {
    if (entry.state === 'active' && entry.process) return Promise.resolve(entry.process);
    if (entry.starting) return entry.starting;
    if (this.closed) return Promise.reject(new LoomError('extension_failed', 'The server is shutting down.'));
    const name = entry.manifest.name;
    const process: ExtensionProcess = new ExtensionProcess(entry.manifest, this.limits, {
      call: (method, params) => this.answer(entry, method, params),
      register: (command) => this.register(entry, command),
      unregister: (command) => void entry.registered.delete(command),
      subscribe: () => {},
      log: (message) => this.log.info(`extension ${name}: ${message}`),
      failed: (reason) => {
        if (entry.process !== process) return;
        entry.state = 'failed';
        entry.failure = reason;
        entry.registered.clear();
        this.log.warn(`extension ${name} ${reason}`);
        void this.notify(`Extension ${name} ${reason}. Its commands answer EXTENSION_FAILED until it is restarted.`, 'error', name);
      },
    });
    entry.state = 'starting';
    entry.process = process;
    entry.starting = process.start().then(
      () => {
        entry.starting = undefined;
        entry.state = 'active';
        return process;
      },
      (error: Error) => {
        entry.starting = undefined;
        entry.state = 'failed';
        entry.failure = process.startFailure ?? error.message;
        this.log.warn(error.message);
        void this.notify(error.message, 'error', name);
        throw error;
      },
    );
    return entry.starting;
  }

  private async deactivate(entry: Entry): Promise<void> {
    await entry.starting?.catch(() => {});
    const process = entry.process;
    entry.process = undefined;
    entry.registered.clear();
    if (entry.state === 'active') entry.state = 'inactive';
    await process?.stop();
  }

  /** A command an extension registered at run time: refused (with a warning) when another extension has it. */
  private register(entry: Entry, command: string): void {
    const owner = this.ownerOf(command);
    if (owner && owner !== entry) {
      void this.notify(`${entry.manifest.name} cannot register ${command}: ${owner.manifest.name} provides it.`, 'warning', entry.manifest.name);
      return;
    }
    entry.registered.add(command);
  }

  private ownerOf(command: string): Entry | undefined {
    for (const entry of this.entries.values()) if (entry.manifest.commands.some((c) => c.command === command)) return entry;
    for (const entry of this.entries.values()) if (entry.registered.has(command)) return entry;
    return undefined;
  }

  /** Events go to extensions that listen, notifications excepted (two extensions must not answer each other's forever). */
  private forward(event: LoomEvent): void {
    if (event.type === 'notification') return;
    for (const entry of this.entries.values()) if (entry.state === 'active') entry.process?.deliver(event);
  }

  /** An API call of an extension, through the same checks as the local API's routes. */
  private async answer(entry: Entry, method: string, params: Record<string, unknown>): Promise<unknown> {
    const { documents } = this.options;
    switch (method) {
      case 'notify':
        return this.notifyFrom(entry, params);
      case 'activeDocument':
        if (documents.list().length === 0) return null;
        return documents.active();
      case 'getText':
        if (params.path !== undefined && typeof params.path !== 'string') throw new LoomError('validation_error', 'getText(path): path must be a string.');
        return documents.text(params.path as string | undefined);
      case 'insert':
        if (!checkInsert.Check(params)) throw new LoomError('validation_error', `insert: ${firstError(checkInsert.Errors(params))}`);
        return documents.insert(params);
      case 'replace':
        if (!checkReplace.Check(params)) throw new LoomError('validation_error', `replace: ${firstError(checkReplace.Errors(params))}`);
        return documents.replace(params);
      case 'executeCommand':
        if (typeof params.command !== 'string') throw new LoomError('validation_error', 'executeCommand: the command name must be a string.');
        return this.run(params.command, Array.isArray(params.args) ? params.args : []);
      default:
        throw new LoomError('bad_request', `${method} is not a call of the extension API.`);
    }
  }

  private async notifyFrom(entry: Entry, params: Record<string, unknown>): Promise<null> {
    const { text, level } = params;
    if (typeof text !== 'string' || text.trim() === '') throw new LoomError('validation_error', 'showNotification: the text must be a non-empty string.');
    if (level !== 'info' && level !== 'warning' && level !== 'error')
      throw new LoomError('validation_error', 'showNotification: level must be info, warning or error.');
    const now = this.clock.now();
    const notices = entry.notices;
    if (now - notices.windowStart >= NOTIFICATION_WINDOW_MS) Object.assign(notices, { windowStart: now, count: 0, warned: false });
    if (++notices.count > NOTIFICATIONS_PER_WINDOW) {
      if (!notices.warned) this.log.warn(`extension ${entry.manifest.name} shows too many notifications; some are dropped`);
      notices.warned = true;
      throw new LoomError('rate_limited', `At most ${NOTIFICATIONS_PER_WINDOW} notifications per ${NOTIFICATION_WINDOW_MS / 1000} s; this one was dropped.`);
    }
    await this.notify(text, level, entry.manifest.name);
    return null;
  }
}

function firstError(errors: Iterable<{ instancePath: string; message: string }>): string {
  for (const error of errors) return `${error.instancePath || '/'} ${error.message}`;
  return 'invalid';
}
