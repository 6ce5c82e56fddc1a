// Composition root of `loom hosted`: config → store, catalog, services → app → listening.
import { Redis } from 'ioredis';
import { createCompletionEngine } from '../compose/completion.ts';
import { explainSettings, settingFiles } from '../config/setting-places.ts';
import { ResourceStack } from '../compose/resources.ts';
import { createModelLibrary } from '../compose/models.ts';
import { loomFolders, requireFolder } from '../config/folders.ts';
import { publicUrlFor, type LoomConfig } from '../config/load.ts';
import { LOOM_VERSION } from '../config/version.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { loadCatalog } from '../core/catalog/load.ts';
import { BuiltinModel, BuiltinProvider, trainOnFolder } from '../core/completion/builtin/index.ts';
import { FeedbackService } from '../core/feedback/feedback.ts';
import { CodeHostProvider, type SignInProvider } from '../core/identity/codehost.ts';
import { createIdentity } from '../core/identity/index.ts';
import { OidcProvider } from '../core/identity/oidc.ts';
import { ReleaseChecker } from '../core/releases/release-checker.ts';
import { MutableServiceUrls } from '../core/urls.ts';
import { WorkspacePaths } from '../core/workspace/paths.ts';
import { flushLog, type LogDestination } from '../http/log-destination.ts';
import { openStore, type Store } from '../store/index.ts';
import { composerFolderWorkspace, startComposerJobs } from '../compose/composer.ts';
import { withDefaultWorkspace } from '../core/composer/default-workspace.ts';
import { ComposerService } from '../core/composer/service.ts';
import type { CompletionConfig } from '../core/completion/config.ts';
import { buildHostedApp } from './app.ts';
import type { HandlerServices } from './handlers/index.ts';

export interface RunningHosted {
  /** Where it listens. */
  url: string;
  /** The base URL in its links (LOOM_PUBLIC_URL, or derived from where it listens). */
  publicUrl: string;
  store: Store;
  /** What the operations' handlers work with: identity, completion, the release checker… */
  services: HandlerServices;
  /** Settles when the builtin model has learned the corpus (LOOM_CORPUS_DIR), at once without one. */
  corpusLearned: Promise<void>;
  /** Closes everything it opened, the listening socket first and the store last. */
  close(): Promise<void>;
}

export interface HostedOptions {
  /**
   * The builtin model to serve instead of one of its own (`loom up`: the desktop app's, which
   * learns the workspace as it is edited; one machine, one user). Without it the hosted
   * model learns LOOM_CORPUS_DIR only.
   */
  builtinModel?: BuiltinModel;
  /**
   * The completion settings to follow instead of the configuration's (`loom up`: the desktop
   * app's, settings.json's `completion` keys over the config file, changing without a restart),
   * so that tab completion and composer sessions use the model agents use. Hints then name
   * settings.json too, by its role.
   */
  completion?: { current: () => CompletionConfig; onChange(listener: () => void): void };
  /**
   * A folder that is the default workspace of composer sessions (`loom up`: the desktop app's),
   * beside the registered ones and never stored. Offered only where this process runs the
   * sessions (no REDIS_URL): a worker elsewhere knows the registered workspaces only.
   */
  defaultWorkspace?: string;
  /** Where the server's log lines go (tests read them); stdout by default. */
  logDestination?: LogDestination;
  /** Prefix of its rate limit keys in Redis (tests sharing one Redis keep apart with it). */
  redisPrefix?: string;
  /** Time a sign-in provider has to answer each call; 10 s by default (tests of a slow provider shorten it). */
  signInTimeoutMs?: number;
}

/**
 * Starts the hosted API (`loom hosted`): opens the store, Redis and the completion engine the
 * configuration names, builds the app and listens. A start that fails closes what it had
 * opened and throws: ConfigError for a setting that cannot work, CatalogError for a catalog it
 * cannot read, LoomError store_unavailable when the database cannot be opened, the socket's
 * error when the port is taken.
 *
 * @example
 * const hosted = await startHosted(loadConfig({ env: process.env }));
 * console.log(`${hosted.url}/api/v1/health`);
 * await hosted.close();
 */
export async function startHosted(config: LoomConfig, clock: Clock = systemClock, options: HostedOptions = {}): Promise<RunningHosted> {
  if (config.corpusDir) requireFolder(config.corpusDir, 'The corpus folder', 'corpusDir');
  const catalog = loadCatalog(config.catalog);
  const resources = new ResourceStack();
  return resources.unwindOnFailure(async () => {
    const store = resources.push(await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
    const redis = config.redisUrl ? connectRedis(config.redisUrl) : undefined;
    resources.onClose(() => redis?.disconnect());
    const urls = new MutableServiceUrls(publicUrlFor(config), config.authUrl);
    const identity = await createIdentity(store, { urls, providers: signInProviders(config, options.signInTimeoutMs), clock });
    // The shared builtin model learns only the operator's corpus, never what requests carry.
    const builtinModel = options.builtinModel ?? new BuiltinModel();
    const training = new AbortController();
    resources.onClose(() => training.abort());
    let reportTrainingFailure = (_error: Error) => {};
    const corpusLearned = config.corpusDir
      ? trainOnFolder(builtinModel, new WorkspacePaths(config.corpusDir, { loomFolders: loomFolders(config) }), { signal: training.signal }).then(
          () => undefined,
          (error: Error) => reportTrainingFailure(error),
        )
      : Promise.resolve();
    const completionConfig = options.completion?.current ?? (() => config.completion);
    const completion = resources.push(
      createCompletionEngine(
        {
          builtin: new BuiltinProvider(builtinModel),
          catalog,
          modelsDir: config.modelsDir,
          explain: explainSettings(settingFiles(config, { hosted: true, desktop: options.completion !== undefined })),
        },
        completionConfig,
      ),
    );
    options.completion?.onChange(() => completion.providers.configure(completionConfig()));
    // Closed after the app: its last lines are written.
    resources.onClose(() => flushLog(options.logDestination));
    // Composer sessions run here (the in-process queue), closed before the engine whose models
    // they use: a session running then is handed back, queued, for the next start to run.
    let reportJobFailure = (_error: unknown) => {};
    const home = options.defaultWorkspace !== undefined && !config.redisUrl ? composerFolderWorkspace(options.defaultWorkspace) : undefined;
    const workspaces = home ? withDefaultWorkspace(store.composerWorkspaces, home.workspace) : store.composerWorkspaces;
    const jobs = resources.push(
      startComposerJobs(config, { store, workspaces, providers: completion.providers, clock, onError: (error) => reportJobFailure(error) }),
    );
    const composer = new ComposerService({
      sessions: store.composerSessions,
      workspaces: store.composerWorkspaces,
      ...(home ? { defaultWorkspace: home } : {}),
      queue: jobs.queue,
      limits: () => config.composer,
      budgets: () => ({ maxSteps: config.agents.maxSteps, maxTokens: config.agents.maxTokens, timeoutSeconds: config.agents.timeoutSeconds }),
      cancelHere: (sessionId) => jobs.runner?.cancelHere(sessionId) ?? false,
      // Sessions run here (no REDIS_URL): refused at once when no model here can chat.
      ...(jobs.runner ? { checkModel: () => void completion.providers.selectChat() } : {}),
      clock,
    });
    const services: HandlerServices = {
      catalog,
      models: createModelLibrary(catalog, config.modelsDir),
      releases: new ReleaseChecker({ ...config.upstream, clock }),
      feedback: new FeedbackService(store.feedback, clock),
      health: { version: LOOM_VERSION, startedAt: clock.now(), clock, pingStore: () => store.ping() },
      identity,
      completion,
      composer,
    };
    const app = resources.push(
      await buildHostedApp({
        services,
        version: LOOM_VERSION,
        urls,
        rateLimit: config.rateLimit,
        trustProxy: config.trustProxy,
        bodyLimit: config.bodyLimit,
        http: config.http,
        logLevel: config.logLevel,
        logDestination: options.logDestination,
        clock,
        redis,
        redisPrefix: options.redisPrefix,
      }),
    );
    // Found when the store was opened, before there was a log to tell.
    for (const warning of store.warnings) app.log.warn(warning);
    reportJobFailure = (error) =>
      app.log.error({ error: error instanceof Error ? error.message : String(error) }, 'a composer session could not be run; it stays queued');
    reportTrainingFailure = (error) => {
      if (!training.signal.aborted) app.log.warn({ corpusDir: config.corpusDir, error: error.message }, 'training on the corpus stopped');
    };
    await app.listen({ port: config.hosted.port, host: config.hosted.host });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.hosted.port;
    urls.publicUrl = publicUrlFor(config, port);
    const host = config.hosted.host.includes(':') ? `[${config.hosted.host}]` : config.hosted.host;
    return {
      url: `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`,
      publicUrl: urls.publicUrl,
      store,
      services,
      corpusLearned,
      close: () => resources.close(),
    };
  });
}

/** The sign-in providers the configuration enables, each given `timeoutMs` per call when set. */
function signInProviders(config: LoomConfig, timeoutMs?: number): SignInProvider[] {
  const providers: SignInProvider[] = [];
  if (config.codehost) providers.push(new CodeHostProvider({ ...config.codehost, webUrl: config.codehost.url, timeoutMs }));
  if (config.oidc) providers.push(new OidcProvider({ ...config.oidc, timeoutMs }));
  return providers;
}

/** A Redis client tuned for rate limiting: fail fast rather than queue while disconnected. */
function connectRedis(url: string): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false });
  redis.on('error', () => {}); // reconnects on its own; each failed count falls back to memory
  return redis;
}
