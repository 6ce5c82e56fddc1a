// Throughput of the real hosted app (GET /api/v1/health and /api/v1/models) as a ratio to an
// anchor: a bare Fastify app serving the same JSON. Both run in one process and are measured
// in alternating slices, so the ratio holds across machines where the absolute req/s do not.
// Loom is measured twice, each time in a process of its own: at its default log level (the
// access log written as in production, to /dev/null instead of stdout), then silent.
//
//   npm run bench:hosted          BENCH_DURATION: measured seconds per side and endpoint (default 10)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { loadConfig, type LoomConfig } from '../src/config/load.ts';
import { LOOM_VERSION } from '../src/config/version.ts';
import { loadCatalog } from '../src/core/catalog/load.ts';
import { ModelLibrary } from '../src/adapters/models/library.ts';
import { startHosted } from '../src/hosted/server.ts';
import { AsyncLogDestination } from '../src/http/log-destination.ts';
import { readPositive } from './support.ts';

const DURATION_SECONDS = readPositive('BENCH_DURATION', 10);
// Short slices, because on a shared machine the CPU a thread gets drifts up to 4x within tens
// of seconds: a loom slice and the bare slice next to it see the same machine (docs/BENCHMARKS.md).
const SLICE_SECONDS = Math.min(2, DURATION_SECONDS);
const PAIRS = Math.max(1, Math.round(DURATION_SECONDS / SLICE_SECONDS));
const WARMUP_SECONDS = 2;
const CONNECTIONS = 50;
const GOAL = 0.8;
/** Set in the child processes: the log level their Loom runs at. */
const LEVEL_VARIABLE = 'HOSTED_BENCH_LOG_LEVEL';

const ENDPOINTS = ['/api/v1/health', '/api/v1/models'] as const;
type Endpoint = (typeof ENDPOINTS)[number];

interface Server {
  url: string;
  close(): Promise<void>;
}

interface Sample {
  rps: number;
  /** CPU time of the server thread per response, in µs; undefined where Linux's schedstat is missing. */
  cpuMicros: number | undefined;
  /** Responses outside 2xx plus connection errors and timeouts: any of them voids the run. */
  failures: number;
}

interface Pair {
  loom: Sample;
  bare: Sample;
}

interface Comparison {
  endpoint: Endpoint;
  pairs: Pair[];
  warmupFailures: number;
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
  };
}

/**
 * The real `loom hosted`, through its own composition root: SQLite store, catalog, services,
 * and the production log (asynchronous JSON lines) written to /dev/null rather than stdout.
 */
async function startLoom(config: LoomConfig): Promise<Server> {
  const hosted = await startHosted(config, undefined, { logDestination: new AsyncLogDestination('/dev/null') });
  return { url: hosted.url, close: () => hosted.close() };
}

/**
 * The anchor: plain Fastify, one route per endpoint, the same bodies from the same domain code
 * (the models listing looks for each model's file, as Loom's does), nothing else.
 */
async function startBare(config: LoomConfig): Promise<Server> {
  const library = new ModelLibrary(loadCatalog(config.catalog), config.modelsDir);
  const startedAt = Date.now();
  const app = Fastify();
  app.get('/api/v1/health', async () => ({
    ok: true,
    version: LOOM_VERSION,
    uptime: Math.round(Date.now() - startedAt) / 1000,
  }));
  app.get('/api/v1/models', async () => ({ models: library.listing() }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => app.close() };
}

/**
 * Guards against measuring the wrong thing: both servers must answer 200 with the same body,
 * and Loom's rate-limit plugin must be active (its headers are present).
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
 * Nanoseconds the calling thread has spent on a CPU (Linux). Unlike req/s, it does not move
 * when the VM is given less CPU, so it shows what each request costs the server.
 */
function threadCpuNanos(): number | undefined {
  try {
    return Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

/**
 * One autocannon run. The load runs in a worker thread: on the same event loop as the server
 * it would steal the server's time, more so from the slower side, and skew the ratio. The
 * server thread's CPU time is then almost all serving.
 */
async function measure(url: string, seconds: number): Promise<Sample> {
  const cpuBefore = threadCpuNanos();
  const result = await autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration: seconds, workers: 1 });
  const cpuAfter = threadCpuNanos();
  const cpuMicros = cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / 1000 / result.requests.total;
  return { rps: result.requests.average, cpuMicros, failures: result.non2xx + result.errors + result.timeouts };
}

/**
 * Measures the sides in adjacent slices and flips which goes first each pair (bare, loom,
 * loom, bare, ...), so that drift in the machine falls on both alike.
 */
async function compare(endpoint: Endpoint, loom: Server, bare: Server): Promise<Comparison> {
  // Warm-up: lets V8 optimise both servers' hot paths before anything is recorded.
  const warmup = [await measure(bare.url + endpoint, WARMUP_SECONDS), await measure(loom.url + endpoint, WARMUP_SECONDS)];
  const pairs: Pair[] = [];
  for (let index = 0; index < PAIRS; index++) {
    const pair = await measurePair(endpoint, loom, bare, index % 2 === 1);
    const pairRatio = (pair.loom.rps / pair.bare.rps).toFixed(2);
    console.log(`  ${endpoint} slice ${index + 1}: bare ${formatRps(pair.bare.rps)}, loom ${formatRps(pair.loom.rps)} req/s (${pairRatio})`);
    pairs.push(pair);
  }
  return { endpoint, pairs, warmupFailures: warmup.reduce((sum, s) => sum + s.failures, 0) };
}

async function measurePair(endpoint: Endpoint, loom: Server, bare: Server, loomFirst: boolean): Promise<Pair> {
  const run = (server: Server) => measure(server.url + endpoint, SLICE_SECONDS);
  if (loomFirst) {
    const loomSample = await run(loom);
    return { loom: loomSample, bare: await run(bare) };
  }
  const bareSample = await run(bare);
  return { bare: bareSample, loom: await run(loom) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function formatRps(rps: number): string {
  return Math.round(rps).toLocaleString('en-US');
}

/** "server CPU/request: loom 16.6 µs, bare 13.8 µs (bare/loom 0.83)", or '' without schedstat. */
function formatCpu(pairs: Pair[]): string {
  const loom = pairs.map((p) => p.loom.cpuMicros);
  const bare = pairs.map((p) => p.bare.cpuMicros);
  if ([...loom, ...bare].some((value) => value === undefined)) return '';
  const loomMicros = median(loom as number[]);
  const bareMicros = median(bare as number[]);
  const ratio = (bareMicros / loomMicros).toFixed(2);
  return `\n  server CPU/request: loom ${loomMicros.toFixed(1)} µs, bare ${bareMicros.toFixed(1)} µs (bare/loom ${ratio})`;
}

/**
 * Prints the summary of one endpoint; returns whether its run was clean. The ratio is the
 * median of the per-pair ratios, which cancels drift that the medians of req/s keep.
 */
function report({ endpoint, pairs, warmupFailures }: Comparison, logLevel: string, goalApplies: boolean): boolean {
  const loomRps = median(pairs.map((p) => p.loom.rps));
  const bareRps = median(pairs.map((p) => p.bare.rps));
  const ratio = median(pairs.map((p) => p.loom.rps / p.bare.rps));
  const failures = pairs.reduce((sum, p) => sum + p.loom.failures + p.bare.failures, warmupFailures);
  const name = endpoint.slice('/api/v1/'.length);
  const goal = goalApplies ? ` (goal >= ${GOAL}${ratio < GOAL ? ', MISSED' : ''})` : ' (no goal: not the default)';
  console.log(
    `${name}, log level ${logLevel}: loom ${formatRps(loomRps)} req/s, bare ${formatRps(bareRps)} req/s, ` +
      `ratio ${ratio.toFixed(3)}${goal}, non-2xx/errors ${failures}` +
      formatCpu(pairs),
  );
  return failures === 0;
}

/** Measures Loom at one log level against the anchor, in this process. */
async function measureAt(logLevel: string): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-'));
  const config = benchConfig(dir);
  const defaultLevel = config.logLevel;
  const servers: Server[] = [];
  try {
    const loom = await startLoom({ ...config, logLevel });
    servers.push(loom);
    const bare = await startBare(config);
    servers.push(bare);
    console.log(
      `hosted-throughput, log level ${logLevel}: ${CONNECTIONS} connections, pipelining 1, ${PAIRS} x ${SLICE_SECONDS} s slices per side, ` +
        `${os.availableParallelism()} cores, node ${process.version}`,
    );
    for (const endpoint of ENDPOINTS) await checkEquivalent(endpoint, loom, bare);
    const comparisons: Comparison[] = [];
    for (const endpoint of ENDPOINTS) comparisons.push(await compare(endpoint, loom, bare));
    console.log('');
    const clean = comparisons.map((comparison) => report(comparison, logLevel, logLevel === defaultLevel)).every(Boolean);
    if (!clean) {
      console.error('FAILED: some requests were answered outside 2xx or failed; the figures are void.');
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(servers.map((server) => server.close()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Each log level in a process of its own: in one process, servers with and without a logger
 * would share Fastify's compiled code and slow each other down.
 */
async function main(): Promise<void> {
  const level = process.env[LEVEL_VARIABLE];
  if (level !== undefined) return measureAt(level);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-'));
  const defaultLevel = benchConfig(dir).logLevel;
  fs.rmSync(dir, { recursive: true, force: true });
  for (const logLevel of [defaultLevel, 'silent']) {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
      env: { ...process.env, [LEVEL_VARIABLE]: logLevel },
      stdio: 'inherit',
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    if (code !== 0) process.exitCode = 1;
    console.log('');
  }
}

await main();
