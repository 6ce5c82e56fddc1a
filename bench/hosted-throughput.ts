// Throughput of the real hosted app (GET /api/v1/health and /api/v1/models) as a ratio to an
// anchor: a bare Fastify app serving the same JSON. Both run in this process and are measured
// alternately, so the ratio holds across machines where the absolute req/s do not.
//
//   npm run bench:hosted                      BENCH_DURATION (s, default 10), BENCH_ROUNDS (default 3)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { loadConfig, type LoomConfig } from '../src/config/load.ts';
import { LOOM_VERSION } from '../src/config/version.ts';
import { loadCatalog } from '../src/core/catalog/load.ts';
import { startHosted } from '../src/hosted/server.ts';

const DURATION_SECONDS = readPositive('BENCH_DURATION', 10);
const ROUNDS = Math.round(readPositive('BENCH_ROUNDS', 3));
const WARMUP_SECONDS = 2;
const CONNECTIONS = 50;
const GOAL = 0.8;

const ENDPOINTS = ['/api/v1/health', '/api/v1/models'] as const;
type Endpoint = (typeof ENDPOINTS)[number];

interface Server {
  url: string;
  close(): Promise<void>;
}

interface Sample {
  rps: number;
  /** Responses outside 2xx plus connection errors and timeouts: any of them voids the run. */
  failures: number;
}

interface Comparison {
  endpoint: Endpoint;
  loom: Sample[];
  bare: Sample[];
}

function readPositive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not "${raw}"`);
  return value;
}

/**
 * The project's defaults, isolated from the user's environment and config file (an empty
 * explicit one), with a limit so high it never trips: the rate-limit plugin still counts
 * every request, which is the cost we want measured.
 */
function benchConfig(dir: string): LoomConfig {
  const configFile = path.join(dir, 'config.json');
  fs.writeFileSync(configFile, '{}');
  const defaults = loadConfig({ env: {}, configFile });
  return {
    ...defaults,
    dataDir: dir,
    hosted: { host: '127.0.0.1', port: 0 },
    rateLimit: { ...defaults.rateLimit, max: 1_000_000_000 },
    logLevel: 'silent',
  };
}

/** The real `loom hosted`, through its own composition root: SQLite store, catalog, services. */
async function startLoom(config: LoomConfig): Promise<Server> {
  const hosted = await startHosted(config);
  return { url: hosted.url, close: () => hosted.close() };
}

/** The anchor: plain Fastify, one route per endpoint, the same bodies, nothing else. */
async function startBare(config: LoomConfig): Promise<Server> {
  const catalog = loadCatalog(config.catalog);
  const startedAt = Date.now();
  const app = Fastify();
  app.get('/api/v1/health', async () => ({
    ok: true,
    version: LOOM_VERSION,
    uptime: Math.round(Date.now() - startedAt) / 1000,
  }));
  app.get('/api/v1/models', async () => ({ models: catalog.models }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => app.close() };
}

/**
 * Guards against measuring the wrong thing: both servers must answer 200 with the same body
 * shape, and Loom's rate-limit plugin must be active (its headers are present).
 */
async function checkEquivalent(endpoint: Endpoint, loom: Server, bare: Server): Promise<void> {
  const [ours, anchor] = await Promise.all([fetch(loom.url + endpoint), fetch(bare.url + endpoint)]);
  if (ours.status !== 200 || anchor.status !== 200) {
    throw new Error(`${endpoint}: loom answered ${ours.status}, bare ${anchor.status}`);
  }
  if (!ours.headers.has('ratelimit-limit')) throw new Error(`${endpoint}: loom sent no RateLimit headers`);
  // Key order may differ (Loom serialises by schema) and uptime moves; nothing else may.
  const comparable = async (response: Response) => ({ ...(await response.json()), uptime: undefined });
  if (!isDeepStrictEqual(await comparable(ours), await comparable(anchor))) {
    throw new Error(`${endpoint}: loom and bare bodies differ`);
  }
}

/**
 * One autocannon run. The load runs in a worker thread: on the same event loop as the server
 * it would steal the server's time, more so from the slower side, and skew the ratio.
 */
async function measure(url: string, seconds: number): Promise<Sample> {
  const result = await autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration: seconds, workers: 1 });
  return { rps: result.requests.average, failures: result.non2xx + result.errors + result.timeouts };
}

/**
 * Alternates the sides and flips which goes first each round (bare, loom, loom, bare, ...),
 * so that drift in the machine (thermal, other load) falls on both alike.
 */
async function compare(endpoint: Endpoint, loom: Server, bare: Server): Promise<Comparison> {
  await checkEquivalent(endpoint, loom, bare);
  // Warm-up: lets V8 optimise both servers' hot paths before anything is recorded.
  await measure(bare.url + endpoint, WARMUP_SECONDS);
  await measure(loom.url + endpoint, WARMUP_SECONDS);
  const comparison: Comparison = { endpoint, loom: [], bare: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['bare', 'loom'] as const) : (['loom', 'bare'] as const);
    for (const side of order) {
      const sample = await measure((side === 'loom' ? loom : bare).url + endpoint, DURATION_SECONDS);
      comparison[side].push(sample);
      console.log(`  ${endpoint} round ${round + 1} ${side}: ${formatRps(sample.rps)} req/s, ${sample.failures} failures`);
    }
  }
  return comparison;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function formatRps(rps: number): string {
  return Math.round(rps).toLocaleString('en-US');
}

/** Prints the summary line of one endpoint; returns whether its run was clean. */
function report({ endpoint, loom, bare }: Comparison): boolean {
  const loomRps = median(loom.map((s) => s.rps));
  const bareRps = median(bare.map((s) => s.rps));
  const ratio = loomRps / bareRps;
  const failures = [...loom, ...bare].reduce((sum, s) => sum + s.failures, 0);
  const name = endpoint.slice('/api/v1/'.length);
  console.log(
    `${name}: loom ${formatRps(loomRps)} req/s, bare ${formatRps(bareRps)} req/s, ` +
      `ratio ${ratio.toFixed(2)} (goal >= ${GOAL}), non-2xx/errors ${failures}`,
  );
  return failures === 0;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-'));
  const config = benchConfig(dir);
  const loom = await startLoom(config);
  const bare = await startBare(config);
  console.log(
    `hosted-throughput: ${CONNECTIONS} connections, pipelining 1, ${ROUNDS} x ${DURATION_SECONDS} s per side, ` +
      `${os.availableParallelism()} cores, node ${process.version}`,
  );
  try {
    const comparisons: Comparison[] = [];
    for (const endpoint of ENDPOINTS) comparisons.push(await compare(endpoint, loom, bare));
    console.log('');
    const clean = comparisons.map(report).every(Boolean);
    if (!clean) {
      console.error('FAILED: some requests were answered outside 2xx or failed; the figures are void.');
      process.exitCode = 1;
    }
  } finally {
    await Promise.all([loom.close(), bare.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
