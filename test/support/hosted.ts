// Starts the real hosted app on 127.0.0.1:0 with a fresh SQLite (or a given PostgreSQL)
// store, a manual clock and no logs, for tests that talk to it over HTTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { ManualClock } from '../../src/core/clock.ts';
import { loadCatalog } from '../../src/core/catalog/load.ts';
import type { Catalog } from '../../src/core/catalog/schema.ts';
import { FeedbackService } from '../../src/core/feedback/feedback.ts';
import { CodeHostProvider, type SignInProvider } from '../../src/core/identity/codehost.ts';
import { OidcProvider } from '../../src/core/identity/oidc.ts';
import { ModelLibrary } from '../../src/core/models/library.ts';
import { BuiltinModel, BuiltinProvider } from '../../src/core/completion/builtin/index.ts';
import type { CompletionEngine } from '../../src/core/completion/engine.ts';
import { createCompletionEngine } from '../../src/compose/completion.ts';
import { defaultConnectionLimits, type ConnectionLimits } from '../../src/config/load.ts';
import type { CompletionConfig } from '../../src/core/completion/config.ts';
import { createIdentity, type Identity } from '../../src/core/identity/index.ts';
import { MutableServiceUrls } from '../../src/core/urls.ts';
import { ReleaseChecker } from '../../src/core/releases/release-checker.ts';
import { buildHostedApp, type HostedAppOptions } from '../../src/hosted/app.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { COMPLETION_TIME_LIMIT_MS } from './wait.ts';

export interface TestHostedOptions {
  catalog?: Catalog;
  /** The models folder `GET /models` reports `installed` from; by default `models` in the temporary data dir. */
  modelsDir?: string;
  /** The builtin model behind tabComplete (an empty one by default), and the completion settings. */
  builtinModel?: BuiltinModel;
  completion?: Partial<CompletionConfig>;
  databaseUrl?: string;
  rateLimit?: { max: number; windowSeconds: number };
  upstream?: { timeoutMs: number; cacheSeconds: number };
  redis?: Redis;
  redisPrefix?: string;
  trustProxy?: HostedAppOptions['trustProxy'];
  bodyLimit?: number;
  /** Timeouts and the connection cap; the config's defaults, but a cap that no test's burst of requests reaches unless it means to. */
  http?: Partial<ConnectionLimits>;
  /** Fixed public URL for links; by default the real `http://127.0.0.1:PORT`. */
  publicUrl?: string;
  authUrl?: string;
  /** Sign-in through a code host at these addresses (a fake one on loopback in tests). */
  codehost?: { url: string; apiUrl: string; clientId?: string; clientSecret?: string; timeoutMs?: number };
  /** Sign-in through an OpenID Connect provider (a fake one on loopback in tests). */
  oidc?: { issuer: string; clientId: string; clientSecret: string; timeoutMs?: number };
  clock?: ManualClock;
}

export interface TestHosted {
  url: string;
  app: FastifyInstance;
  store: Store;
  identity: Identity;
  clock: ManualClock;
  dataDir: string;
  completion: CompletionEngine;
  /** The release checker behind getDownloadAsset. */
  releases: ReleaseChecker;
  close(): Promise<void>;
}

export async function startTestHosted(options: TestHostedOptions = {}): Promise<TestHosted> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-test-'));
  const clock = options.clock ?? new ManualClock();
  const store = await openStore({ dataDir, databaseUrl: options.databaseUrl });
  const urls = new MutableServiceUrls(options.publicUrl ?? 'http://127.0.0.1', options.authUrl);
  const providers: SignInProvider[] = [];
  if (options.codehost) {
    providers.push(
      new CodeHostProvider({
        clientId: options.codehost.clientId ?? 'codehost-client',
        clientSecret: options.codehost.clientSecret ?? 'codehost-secret',
        webUrl: options.codehost.url,
        apiUrl: options.codehost.apiUrl,
        timeoutMs: options.codehost.timeoutMs,
      }),
    );
  }
  if (options.oidc) providers.push(new OidcProvider(options.oidc));
  const identity = await createIdentity(store, { urls, providers, clock });
  const catalog = options.catalog ?? loadCatalog();
  const modelsDir = options.modelsDir ?? path.join(dataDir, 'models');
  const completionConfig: CompletionConfig = { provider: 'builtin', timeoutMs: COMPLETION_TIME_LIMIT_MS, maxTokens: 64, prefixChars: 8192, suffixChars: 2048, ...options.completion };
  const completion = createCompletionEngine(
    { builtin: new BuiltinProvider(options.builtinModel ?? new BuiltinModel()), catalog, modelsDir },
    () => completionConfig,
  );
  const releases = new ReleaseChecker({ ...(options.upstream ?? { timeoutMs: 30_000, cacheSeconds: 60 }), clock });
  const app = await buildHostedApp({
    services: {
      catalog,
      models: new ModelLibrary(catalog, modelsDir),
      completion,
      releases,
      feedback: new FeedbackService(store.feedback, clock),
      health: { version: '0.0.0-test', startedAt: clock.now(), clock, pingStore: () => store.ping() },
      identity,
    },
    version: '0.0.0-test',
    urls,
    rateLimit: options.rateLimit ?? { max: 1000, windowSeconds: 60 },
    trustProxy: options.trustProxy ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    http: { ...defaultConnectionLimits(), maxConnectionsPerClient: 1024, ...options.http },
    logLevel: 'silent',
    clock,
    redis: options.redis,
    redisPrefix: options.redisPrefix,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  if (!options.publicUrl) urls.publicUrl = `http://127.0.0.1:${port}`;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    store,
    identity,
    clock,
    dataDir,
    completion,
    releases,
    async close() {
      await app.close();
      await completion.close();
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** POSTs JSON (or any raw body with the given content type). */
export function post(url: string, body: unknown, contentType = 'application/json', headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': contentType, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
