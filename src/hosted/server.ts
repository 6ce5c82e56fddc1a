// Composition root of `loom hosted`: config → store, catalog, services → app → listening.
import { Redis } from 'ioredis';
import { publicUrlFor, type LoomConfig } from '../config/load.ts';
import { LOOM_VERSION } from '../config/version.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { loadCatalog } from '../core/catalog/load.ts';
import { FeedbackService } from '../core/feedback/feedback.ts';
import { CodeHostProvider, type SignInProvider } from '../core/identity/codehost.ts';
import { createIdentity } from '../core/identity/index.ts';
import { OidcProvider } from '../core/identity/oidc.ts';
import { ReleaseChecker } from '../core/releases/release-checker.ts';
import { MutableServiceUrls } from '../core/urls.ts';
import { openStore, type Store } from '../store/index.ts';
import { buildHostedApp } from './app.ts';

export interface RunningHosted {
  /** Where it listens. */
  url: string;
  /** The base URL in its links (LOOM_PUBLIC_URL, or derived from where it listens). */
  publicUrl: string;
  store: Store;
  close(): Promise<void>;
}

export async function startHosted(config: LoomConfig, clock: Clock = systemClock): Promise<RunningHosted> {
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
    const app = await buildHostedApp({
      services: {
        catalog,
        releases: new ReleaseChecker({ ...config.upstream, clock }),
        feedback: new FeedbackService(store.feedback, clock),
        health: { version: LOOM_VERSION, startedAt: clock.now(), clock, pingStore: () => store.ping() },
        identity,
      },
      version: LOOM_VERSION,
      urls,
      rateLimit: config.rateLimit,
      trustProxy: config.trustProxy,
      bodyLimit: config.bodyLimit,
      logLevel: config.logLevel,
      clock,
      redis,
    });
    resources.push(app);
    await app.listen({ port: config.hosted.port, host: config.hosted.host });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.hosted.port;
    urls.publicUrl = publicUrlFor(config, port);
    const host = config.hosted.host.includes(':') ? `[${config.hosted.host}]` : config.hosted.host;
    return {
      url: `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`,
      publicUrl: urls.publicUrl,
      store,
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
