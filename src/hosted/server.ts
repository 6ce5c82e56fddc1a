// Composition root of `loom hosted`: config → store, catalog, services → app → listening.
import fs from 'node:fs';
import { Redis } from 'ioredis';
import { createCompletionEngine } from '../compose/completion.ts';
import { ConfigError, publicUrlFor, type LoomConfig } from '../config/load.ts';
import { LOOM_VERSION } from '../config/version.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { loadCatalog } from '../core/catalog/load.ts';
import { BuiltinModel, BuiltinProvider, trainOnFolder } from '../core/completion/builtin/index.ts';
import { FeedbackService } from '../core/feedback/feedback.ts';
import { CodeHostProvider, type SignInProvider } from '../core/identity/codehost.ts';
import { createIdentity } from '../core/identity/index.ts';
import { OidcProvider } from '../core/identity/oidc.ts';
import { ModelLibrary } from '../core/models/library.ts';
import { ReleaseChecker } from '../core/releases/release-checker.ts';
import { MutableServiceUrls } from '../core/urls.ts';
import { flushLog, type LogDestination } from '../http/log-destination.ts';
import { openStore, type Store } from '../store/index.ts';
import { buildHostedApp } from './app.ts';

export interface RunningHosted {
  /** Where it listens. */
  url: string;
  /** The base URL in its links (LOOM_PUBLIC_URL, or derived from where it listens). */
  publicUrl: string;
  store: Store;
  /** Settles when the builtin model has learned the corpus (LOOM_CORPUS_DIR), at once without one. */
  corpusLearned: Promise<void>;
  close(): Promise<void>;
}

export interface HostedOptions {
  /**
   * The builtin model to serve instead of one of its own (`loom up`: the desktop app's, which
   * learns the workspace as it is edited; one machine, one user). Without it the hosted
   * model learns LOOM_CORPUS_DIR only.
   */
  builtinModel?: BuiltinModel;
  /** Where the server's log lines go (tests read them); stdout by default. */
  logDestination?: LogDestination;
}

export async function startHosted(config: LoomConfig, clock: Clock = systemClock, options: HostedOptions = {}): Promise<RunningHosted> {
  const catalog = loadCatalog(config.catalog);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : undefined;
  const urls = new MutableServiceUrls(publicUrlFor(config), config.authUrl);
  const resources: { close(): Promise<void> }[] = [store, { close: async () => redis?.disconnect() }];
  const closeAll = async () => {
    for (const resource of resources.reverse()) await resource.close();
  };
  try {
    const identity = await createIdentity(store, { urls, providers: signInProviders(config), clock });
    // The shared builtin model learns only the operator's corpus, never what requests carry.
    const builtinModel = options.builtinModel ?? new BuiltinModel();
    const training = new AbortController();
    resources.push({ close: async () => training.abort() });
    let reportTrainingFailure = (_error: Error) => {};
    let corpusLearned = Promise.resolve();
    if (config.corpusDir) {
      if (!fs.statSync(config.corpusDir, { throwIfNoEntry: false })?.isDirectory()) throw new ConfigError(`The corpus folder ${config.corpusDir} (LOOM_CORPUS_DIR) is not a folder.`);
      corpusLearned = trainOnFolder(builtinModel, config.corpusDir, { signal: training.signal }).then(
        () => undefined,
        (error: Error) => reportTrainingFailure(error),
      );
    }
    const completion = createCompletionEngine(
      { builtin: new BuiltinProvider(builtinModel), catalog, modelsDir: config.modelsDir },
      () => config.completion,
    );
    resources.push(completion);
    // Resources close in reverse order: this runs after the app's close, so its last lines are written.
    resources.push({ close: () => flushLog(options.logDestination) });
    const app = await buildHostedApp({
      services: {
        catalog,
        models: new ModelLibrary(catalog, config.modelsDir),
        releases: new ReleaseChecker({ ...config.upstream, clock }),
        feedback: new FeedbackService(store.feedback, clock),
        health: { version: LOOM_VERSION, startedAt: clock.now(), clock, pingStore: () => store.ping() },
        identity,
        completion,
      },
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
    });
    resources.push(app);
    // Found when the store was opened, before there was a log to tell.
    for (const warning of store.warnings) app.log.warn(warning);
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
      corpusLearned,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** The sign-in providers the configuration enables. */
export function signInProviders(config: LoomConfig): SignInProvider[] {
  const providers: SignInProvider[] = [];
  if (config.codehost) providers.push(new CodeHostProvider({ ...config.codehost, webUrl: config.codehost.url }));
  if (config.oidc) providers.push(new OidcProvider(config.oidc));
  return providers;
}

/** A Redis client tuned for rate limiting: fail fast rather than queue while disconnected. */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false });
  redis.on('error', () => {}); // reconnects on its own; each failed count falls back to memory
  return redis;
}
