// Starts the hosted server on 127.0.0.1:0 through startHosted, the function `loom hosted` uses,
// from a config file of the test's settings: a fresh SQLite (or a given PostgreSQL) store, a
// manual clock and no logs unless asked, for tests that talk to it over HTTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ComposerConfig, ConnectionLimits, TrustProxy } from '../../src/config/load.ts';
import type { AgentsConfig } from '../../src/core/agents/settings.ts';
import { ManualClock } from '../../src/core/clock.ts';
import type { Catalog } from '../../src/core/catalog/schema.ts';
import type { BuiltinModel } from '../../src/core/completion/builtin/index.ts';
import type { CompletionConfig } from '../../src/core/completion/config.ts';
import type { CompletionEngine } from '../../src/core/completion/engine.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import type { ReleaseChecker } from '../../src/core/releases/release-checker.ts';
import { startHosted } from '../../src/hosted/server.ts';
import type { LogDestination } from '../../src/http/log-destination.ts';
import type { Store } from '../../src/store/index.ts';
import { testConfig } from './config.ts';
import { COMPLETION_TIME_LIMIT_MS } from './wait.ts';

export interface TestHostedOptions {
  /** The catalog to serve (written to a file the config names); the shipped one by default. */
  catalog?: Catalog;
  /** The models folder `GET /models` reports `installed` from; by default `models` in the temporary data dir. */
  modelsDir?: string;
  /** The builtin model behind tabComplete (an empty one by default), and the completion settings. */
  builtinModel?: BuiltinModel;
  completion?: Partial<CompletionConfig>;
  databaseUrl?: string;
  rateLimit?: { max: number; windowSeconds: number };
  upstream?: { timeoutMs: number; cacheSeconds: number };
  /** Rate limits counted in this Redis, under this key prefix (tests sharing one Redis keep apart with it). */
  redisUrl?: string;
  redisPrefix?: string;
  /** Composer's job queue on `redisUrl` (BullMQ, run by `loom worker` processes) under this key prefix. */
  jobs?: { redisPrefix: string };
  trustProxy?: TrustProxy;
  bodyLimit?: number;
  /** Timeouts and the connection cap; the config's defaults, but a cap that no test's burst of requests reaches unless it means to. */
  http?: Partial<ConnectionLimits>;
  /** Fixed public URL for links; by default the real `http://127.0.0.1:PORT`. */
  publicUrl?: string;
  authUrl?: string;
  /** Sign-in through a code host at these addresses (a fake one on loopback in tests). */
  codehost?: { url: string; apiUrl: string; clientId?: string; clientSecret?: string };
  /** Sign-in through an OpenID Connect provider (a fake one on loopback in tests). */
  oidc?: { issuer: string; clientId: string; clientSecret: string };
  /** Time a sign-in provider has to answer each call (10 s by default). */
  signInTimeoutMs?: number;
  clock?: ManualClock;
  /** Composer's settings (concurrency, per-user limits, lease; language servers over a session's copy, off unless 'on'). */
  composer?: Partial<Omit<ComposerConfig, 'languageServers'>> & { languageServers?: 'on' | 'off' };
  /** The agents' budgets, which composer sessions carry too. */
  agents?: Partial<Pick<AgentsConfig, 'maxSteps' | 'maxTokens' | 'timeoutSeconds'>>;
  /** The language servers' limits (a composer session's, with `composer.languageServers` on). */
  languageServers?: { requestTimeoutMs?: number };
  /** Log at `info` into this (see support/log-lines.ts); no log by default. */
  log?: LogDestination;
}

export interface TestHosted {
  url: string;
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
  const { gguf, openai, ...completion } = options.completion ?? {};
  const config = testConfig(dataDir, {
    dataDir,
    hosted: { port: 0, host: '127.0.0.1' },
    logLevel: options.log ? 'info' : 'silent',
    publicUrl: options.publicUrl,
    authUrl: options.authUrl,
    databaseUrl: options.databaseUrl,
    redisUrl: options.redisUrl,
    catalog: options.catalog && writeCatalog(dataDir, options.catalog),
    modelsDir: options.modelsDir,
    rateLimit: options.rateLimit ?? { max: 1000, windowSeconds: 60 },
    upstream: options.upstream,
    trustProxy: options.trustProxy,
    bodyLimit: options.bodyLimit,
    http: { maxConnectionsPerClient: 1024, ...options.http },
    codehost: options.codehost && {
      clientId: options.codehost.clientId ?? 'codehost-client',
      clientSecret: options.codehost.clientSecret ?? 'codehost-secret',
      url: options.codehost.url,
      apiUrl: options.codehost.apiUrl,
    },
    oidc: options.oidc,
    composer: options.composer,
    languageServers: options.languageServers,
    jobs: options.jobs,
    agents: options.agents,
    completion: { timeoutMs: COMPLETION_TIME_LIMIT_MS, ...completion },
    gguf,
    openai,
  });
  const hosted = await startHosted(config, clock, {
    builtinModel: options.builtinModel,
    redisPrefix: options.redisPrefix,
    signInTimeoutMs: options.signInTimeoutMs,
    logDestination: options.log,
  }).catch((error: unknown) => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  return {
    url: hosted.url,
    store: hosted.store,
    identity: hosted.services.identity,
    clock,
    dataDir,
    completion: hosted.services.completion,
    releases: hosted.services.releases,
    async close() {
      await hosted.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function writeCatalog(dir: string, catalog: Catalog): string {
  const file = path.join(dir, 'catalog.json');
  fs.writeFileSync(file, JSON.stringify(catalog));
  return file;
}

/** POSTs JSON (or any raw body with the given content type). */
export function post(url: string, body: unknown, contentType = 'application/json', headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': contentType, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
