// Composition root of `loom serve`: settings, workspace, documents, events → app → listening on
// the loopback addresses only.
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { agentIntel } from '../compose/agent-intel.ts';
import { builtinScope, crossFileContext, openCodeIntel } from '../compose/code-intel.ts';
import { createCompletionEngine } from '../compose/completion.ts';
import { explainSettings, settingFiles } from '../config/setting-places.ts';
import { createLanguageService } from '../compose/language-servers.ts';
import { ResourceStack } from '../compose/resources.ts';
import { loomFolders, requireFolder } from '../config/folders.ts';
import type { LoomConfig } from '../config/load.ts';
import { LOOM_VERSION } from '../config/version.ts';
import { EditorFiles } from '../core/agents/files/agent-files.ts';
import type { AgentIntel } from '../core/agents/intel/intel.ts';
import { AgentManager } from '../core/agents/manager.ts';
import { agentSettings } from '../core/agents/settings.ts';
import { loadCatalog } from '../core/catalog/load.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { BuiltinModel, BuiltinProvider, trainOnFolder, acceptsFile, skipsDirectory } from '../core/completion/builtin/index.ts';
import type { CompletionEngine } from '../core/completion/engine.ts';
import { WorkspaceLearner } from '../core/completion/workspace-learner.ts';
import type { CodeIntel } from '../core/code/service.ts';
import { EventBus } from '../core/events/bus.ts';
import { createGitWorkspace } from '../compose/git.ts';
import { indexNavigation } from '../core/language/index-navigation.ts';
import type { LanguageService } from '../core/language/service.ts';
import { DiskChanges } from '../core/workspace/disk-changes.ts';
import { Documents } from '../core/workspace/documents.ts';
import { FolderWatcher } from '../core/workspace/folder-watcher.ts';
import { WebhookDeliverer, WebhookOutbox } from '../core/webhooks/index.ts';
import { WorkspacePaths } from '../core/workspace/paths.ts';
import { ExtensionHost } from '../extensions/extension-host.ts';
import { flushLog, type LogDestination } from '../http/log-destination.ts';
import { openStore } from '../store/index.ts';
import { buildLocalApp } from './app.ts';
import type { Terminals } from './terminal/terminals.ts';
import { effectiveCompletion } from './completion-settings.ts';
import { WindowComposer } from './composer.ts';
import type { DesktopComposer } from '../core/composer/desktop.ts';
import type { EventHub } from './events-socket.ts';
import { DEFAULT_LOCAL_LIMITS } from './rate-limit.ts';
import { LiveSettings, SETTINGS_FILE } from './settings.ts';
import { linkKey } from './window/link-key.ts';
import { SESSIONS_FILE } from './window/sign-in.ts';

export interface RunningLocal {
  url: string;
  port: number;
  token: () => string;
  workspace: string;
  /** The webhook worker (tests drive it with `runDue()` and a manual clock). */
  webhooks: WebhookDeliverer;
  /** The server's event bus: what it emits goes to /events clients and the webhook outbox. */
  events: EventBus;
  /** The /events WebSocket clients: how many, and what was dropped for slow ones. */
  eventStream: EventHub;
  /** The completion engine, and the learner that keeps its builtin model in step with the workspace. */
  completion: { engine: CompletionEngine; learner: WorkspaceLearner; model: BuiltinModel };
  /** Sockets open on the server right now: HTTP connections, WebSockets and upgrades being decided. */
  openConnections(): Promise<number>;
  /** settings.json as in force, and what was wrong with the file when it was last read. */
  settings: LiveSettings;
  /** The workspace's agent tasks. */
  agents: AgentManager;
  /** The window's terminals: how many are open, and how many wait for a window that does not read. */
  terminals: Pick<Terminals, 'stats'>;
  /** A one-time link that signs the window in (single use, 60 s): `loom serve --open` opens it. */
  signInLink(): string;
  /** The extensions and their processes. */
  extensions: ExtensionHost;
  /** Code intelligence: the language servers' diagnostics, definitions, references, hover, symbols, rename. */
  languages: LanguageService;
  /** The workspace's code index (docs/code-intelligence.md), built in the background and kept current. */
  code: CodeIntel;
  /**
   * Gives the window composer sessions (`loom up`: the hosted API's, as the machine's owner, on
   * this workspace); until then the composer routes answer 409 COMPOSER_UNAVAILABLE.
   */
  attachComposer(composer: DesktopComposer): void;
  close(): Promise<void>;
}

export interface LocalOptions {
  /** Where the server's log lines go (tests read them); stdout by default. */
  logDestination?: LogDestination;
}

/**
 * Starts the desktop app's local API (`loom serve`) for the configured workspace, on the
 * loopback addresses only: settings.json, the webhook outbox and agent tasks (SQLite in the data
 * dir), the builtin model learning the workspace, the agents, the app. A start that fails closes what it had opened
 * and throws: ConfigError for a workspace that is not a folder, SettingsError for a
 * settings.json it cannot use, CatalogError for a catalog it cannot read, the socket's error
 * when the port is taken.
 *
 * @example
 * const local = await startLocal(loadConfig({ env: process.env }));
 * await fetch(`${local.url}/api/editor/file`, { headers: { authorization: `Bearer ${local.token()}` } });
 * await local.close();
 */
export async function startLocal(config: LoomConfig, clock: Clock = systemClock, options: LocalOptions = {}): Promise<RunningLocal> {
  requireFolder(config.local.workspace, 'The workspace', 'workspace');
  const catalog = loadCatalog(config.catalog);
  // Loom's own folders inside the workspace (`--workspace ~`) are protected paths, for reading too.
  const paths = new WorkspacePaths(config.local.workspace, { loomFolders: loomFolders(config) });
  let log: (problems: string[]) => void = () => {};
  const settings = new LiveSettings(config.local.configDir, (problems) => log(problems));
  const bus = new EventBus(clock);
  const documents = new Documents(paths, bus);
  const resources = new ResourceStack();
  return resources.unwindOnFailure(async () => {
    // The desktop app keeps its outbox in SQLite in the data dir, whatever the hosted store is.
    const store = resources.push(await openStore({ dataDir: config.dataDir }));
    // Closed after the app: its last lines are written.
    resources.onClose(() => flushLog(options.logDestination));
    // The app closes here in the order, once the work in flight (below) is stopped: built later,
    // it is closed through this slot.
    let app: FastifyInstance | undefined;
    resources.onClose(() => app?.close());
    const outbox = new WebhookOutbox(store.webhooks, clock);
    const deliverer = new WebhookDeliverer({ repository: store.webhooks, endpoints: () => settings.current.webhooks ?? [], clock });
    // A delivery under way may take up to its 15 s timeout; its lease makes it due again after a
    // restart, so shutting down need not wait for it.
    resources.onClose(() => Promise.race([deliverer.stop(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]));
    outbox.onEnqueue(() => deliverer.nudge());
    // Queued durably before the event counts as emitted (and the request that caused it answers).
    bus.subscribeDurable(async (event) => void (await outbox.enqueue(event, settings.current.webhooks ?? [])));
    // The server's log, once it has one (the learner and the extensions write to it).
    let logLine: (level: 'info' | 'warn', message: string) => void = () => {};
    // The builtin model learns the workspace in the background; the server answers meanwhile,
    // and says in its log when the first pass is over (its completions are useful from then on).
    // One set of watches on the workspace: the learner and the live disk changes share it.
    const watcher = resources.push(new FolderWatcher(paths.root, { skipsDirectory, excludes: (absolute) => paths.loomFolderOf(absolute) !== undefined }));
    const diskChanges = resources.push(new DiskChanges(watcher, documents, bus));
    // The code index follows the same watches and the editor's documents; it builds once the
    // server listens, and says how far it got in `index:progress` events (codeIndex.background).
    const code = resources.push(
      openCodeIntel({
        workspace: paths.root,
        dataDir: config.dataDir,
        settings: config.codeIndex,
        events: bus,
        watcher,
        documents,
        warn: (message) => logLine('warn', message),
      }),
    );
    const builtinModel = new BuiltinModel();
    const learner = resources.push(
      new WorkspaceLearner(builtinModel, paths, {
        train: async (signal) => {
          const learned = await trainOnFolder(builtinModel, paths, { signal });
          logLine('info', `the builtin model has learned the workspace: ${learned.files} files, ${Math.ceil(learned.bytes / 1024)} KB`);
          return learned;
        },
        accepts: acceptsFile,
        skipsDirectory,
        watcher,
      }),
    );
    documents.onChange((changed, text) => learner.documentChanged(changed, text));
    const completionConfig = () => effectiveCompletion(config.completion, settings.current.completion);
    const engine = resources.push(
      createCompletionEngine(
        {
          // With the code index on, the builtin model also proposes the names it says are in
          // scope for a word being typed that the project has no evidence for.
          builtin: new BuiltinProvider(builtinModel, config.codeIndex.background ? builtinScope(code.index) : undefined),
          catalog,
          modelsDir: config.modelsDir,
          // settings.json's completion keys come first: they apply without a restart.
          explain: explainSettings(settingFiles(config, { desktop: true })),
          // The model providers see the definitions from other files the code near the cursor uses.
          crossFile: crossFileContext(code.index),
        },
        completionConfig,
      ),
    );
    settings.onChange(() => engine.providers.configure(completionConfig()));
    let intel: AgentIntel | undefined;
    // What no process Loom starts for the user sees: an agent's command, a terminal's shell.
    const secrets = () => [settings.current.apiToken, completionConfig().openai?.apiKey].filter((secret): secret is string => Boolean(secret));
    // Closed before the engine, whose providers its tasks' model calls use: each task running
    // then ends failed, `interrupted`, recorded before the store closes.
    const agents = resources.push(
      new AgentManager({
        files: new EditorFiles(paths, documents, bus),
        providers: engine.providers,
        events: bus,
        repository: store.agentTasks,
        settings: () => agentSettings(config.agents, settings.current.agents),
        // The commands an agent runs never see the local API token or a provider's key.
        secrets,
        // A command the user approves "always" (in the window) joins settings.json's list.
        rememberCommand: (command) => settings.addAgentCommand(command),
        // The code index (when it is kept current) and the language servers (when on; built
        // below, before any task can start): the first turn's map, the code tools, diagnostics
        // after each edit.
        intel: () =>
          (intel ??= agentIntel({
            ...(config.codeIndex.background ? { index: code.index } : {}),
            ...(config.languageServers.enabled ? { languages } : {}),
            diagnosticsWaitMs: config.languageServers.requestTimeoutMs,
          })),
        log: { error: (message, cause) => app?.log.error({ err: cause }, message) },
        clock,
      }),
    );
    // Tasks a previous run left running end `interrupted` (announced to webhooks like any end).
    await agents.start();
    // Closed before the app and the store: each extension's deactivate runs (time-limited)
    // while the documents it may edit and the events it may emit are still there.
    const extensions = resources.push(
      new ExtensionHost({
        configDir: config.local.configDir,
        workspace: paths.root,
        documents,
        events: bus,
        limits: config.extensions,
        log: { info: (message) => logLine('info', message), warn: (message) => logLine('warn', message) },
        clock,
      }),
    );
    // Closed before the documents' listeners go: each server is shut down (time-limited).
    const languages = resources.push(
      createLanguageService({
        paths,
        documents,
        events: bus,
        watcher,
        dataDir: config.dataDir,
        settings: config.languageServers,
        serverSettings: () => settings.current.languageServers,
        onSettingsChange: (listener) => void settings.onChange(listener),
        trusted: () => extensions.workspaceTrusted,
        // Where no server runs for a language, definitions and references by name from the code index.
        index: indexNavigation(code.index, paths.root),
        log: (level, message) => logLine(level, message),
        clock,
      }),
    );
    // Stopped before the app closes: its followers read the hosted store, closed after this server.
    const composer = new WindowComposer(bus, (message) => logLine('warn', message));
    resources.onClose(() => composer.close());
    let port = config.local.port;
    const built = await buildLocalApp({
      services: {
        version: LOOM_VERSION,
        clock,
        startedAt: clock.now(),
        events: bus,
        documents,
        paths,
        git: createGitWorkspace({ root: paths.root, loomFolders: paths.loomFolders }),
        completion: engine,
        webhooks: outbox,
        agents,
        extensions,
        secrets,
        code: code.index,
        languages,
        composer,
      },
      token: () => settings.current.apiToken,
      onSettingsChange: (listener) => void settings.onChange(listener),
      limits: () => ({ ...DEFAULT_LOCAL_LIMITS, ...settings.current.rateLimits }),
      settingsFile: path.join(config.local.configDir, SETTINGS_FILE),
      // A signed-in window survives a restart; `loom open` asks for a link with the data dir's key.
      signIn: { sessionsFile: path.join(config.dataDir, SESSIONS_FILE), linkKey: linkKey(config.dataDir) },
      http: config.http,
      port: () => port,
      logLevel: config.logLevel,
      logDestination: options.logDestination,
    });
    app = built.app;
    const events = resources.push(built.events);
    log = (problems) => built.app.log.warn({ problems }, 'settings.json is invalid; the last good settings stay in force');
    // Found when settings and store were opened, before there was a log to tell.
    for (const warning of [...settings.warnings, ...store.warnings, ...loomFoldersWarning(paths)]) built.app.log.warn(warning);
    settings.watch();
    resources.push(settings);
    // `localhost` makes Fastify listen on every loopback address it resolves to: 127.0.0.1 and ::1.
    await built.app.listen({ port, host: 'localhost' });
    deliverer.start();
    logLine = (level, message) => built.app.log[level](message);
    learner.start();
    diskChanges.start();
    if (config.codeIndex.background) {
      void code.start().then((failure) => {
        if (failure instanceof Error) logLine('warn', `the code index could not be built: ${failure.message}`);
      });
    }
    extensions.start();
    const address = built.app.server.address();
    port = typeof address === 'object' && address ? address.port : port;
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      token: () => settings.current.apiToken,
      workspace: paths.root,
      webhooks: deliverer,
      events: bus,
      eventStream: events,
      completion: { engine, learner, model: builtinModel },
      openConnections: () => new Promise((resolve, reject) => built.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count)))),
      settings,
      agents,
      terminals: built.terminals,
      signInLink: () => `http://127.0.0.1:${port}/?code=${built.signIn.mintCode()}`,
      extensions,
      languages,
      code: code.index,
      attachComposer: (hosted) => composer.attach(hosted),
      close: () => resources.close(),
    };
  });
}

/**
 * The start-up warning for a workspace that holds Loom's own folders (`loom serve --workspace ~`):
 * they are protected, but a workspace that does not hold them is the safer setup.
 */
function loomFoldersWarning(paths: WorkspacePaths): string[] {
  if (paths.loomFolders.length === 0) return [];
  const named = paths.loomFolders.map((folder) => `${folder.what} (${paths.relative(folder.path) || '.'})`).join(', ');
  return [
    `The workspace ${paths.root} holds ${named}. They are protected paths: no agent, extension, editor or MCP request reads or writes them. Open a folder that does not hold them (a project, not your home folder) to keep Loom's settings apart from what agents work on.`,
  ];
}
