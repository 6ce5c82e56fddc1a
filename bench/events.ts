// Delivery latency of the local event stream (/events) of the real `loom serve`: 100 WebSocket
// clients, events emitted through the server's own EventBus at 2,000 per second; as a ratio to
// an anchor, a bare `ws` WebSocketServer (no Fastify, no auth) broadcasting the same JSON to 100
// clients at the same rate. Both servers run in this process and are measured in alternating
// slices; the clients run in a worker thread and time each delivery from when the event was due
// on the emitter's schedule (so an emitter held up by a busy server shows in the figures). Then
// one more client that never reads: the other clients' latency and the server's memory while
// its events pile up.
//
//   npm run bench:events      BENCH_DURATION: measured seconds per side (default 10)
//                             BENCH_SLOW_DURATION: seconds of each run with a client that never reads (default 30)
//                             BENCH_RATE: events per second (default 2000)
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import WebSocket, { WebSocketServer } from 'ws';
import { loadConfig } from '../src/config/load.ts';
import type { EventType } from '../src/core/events/bus.ts';
import { newApiToken } from '../src/local/settings.ts';
import { startLocal } from '../src/local/server.ts';
import { readPositive, collectGarbage } from './support.ts';

const DURATION_SECONDS = readPositive('BENCH_DURATION', 10);
const CLIENTS = 100;
const RATE = readPositive('BENCH_RATE', 2000);
/**
 * The slow client's runs are longer: on loopback the kernel takes some 3 MB of a client that
 * does not read before anything stays in the server, and the server's cap is 1 MiB more (at
 * 2,000 events/s of ~128 bytes, 15 s in all); a shorter run never reaches the cap.
 */
const SLOW_SECONDS = readPositive('BENCH_SLOW_DURATION', 30);
/**
 * The pacer wakes this often and emits every event that has come due since (it catches up).
 * Latency counts from when an event was due, so a late tick shows in it; 1 ms keeps the
 * timer's own granularity out of the figures (at 5 ms it adds 0-5 ms to both sides).
 */
const TICK_MS = 1;
// Slices, as in bench/hosted-throughput: the CPU a thread gets on a shared VM drifts within
// seconds, so each Loom slice is measured next to an anchor slice (docs/BENCHMARKS.md).
const SLICE_SECONDS = Math.min(2, DURATION_SECONDS);
const PAIRS = Math.max(1, Math.round(DURATION_SECONDS / SLICE_SECONDS));
const WARMUP_SECONDS = 2;
const GOAL_P99_MS = 20;
/**
 * After the last event of a run, the clients read until each has it, or until none has received
 * anything for this long: the rest counts as missing (a server far behind can take seconds).
 */
const DRAIN_QUIET_MS = 3000;
/** Emit times, indexed by seq modulo this (a power of two): 131 s of events at 2,000/s. */
const RING = 1 << 18;

type SideName = 'loom' | 'anchor';
const SIDES: readonly SideName[] = ['loom', 'anchor'];

/** What the main thread shares with the clients' thread. */
interface Shared {
  /**
   * Per side, each event's emit time (process.hrtime, ns) at index seq % RING: the time it was
   * due on the schedule, which the emit call follows by the pacer's lag.
   */
  sent: Record<SideName, BigInt64Array>;
}

/** Requests from the main thread to the clients' thread. */
type Request =
  | { kind: 'connect'; side: SideName; url: string; headers: Record<string, string>; count: number }
  | { kind: 'connectSlow'; side: SideName; url: string; headers: Record<string, string> }
  | { kind: 'start'; side: SideName; firstSeq: number }
  | { kind: 'stop'; side: SideName; lastSeq: number }
  | { kind: 'resumeSlow'; side: SideName; lastSeq: number }
  | { kind: 'close' };

interface StopResult {
  /** Delivery latencies in ms, at every client but the slow one: Histogram counts and max. */
  latencies: { counts: Int32Array; max: number };
  /** Events each (not slow) client received of those emitted since `start`. */
  received: number[];
  /** The last message client 0 received, to check both sides send the same JSON. */
  sample: string;
  /** Time from `stop` until every client had the last event (or gave up waiting). */
  drainMs: number;
  /** CPU time of the clients' thread from `start` to `stop`, in ns; undefined without schedstat. */
  cpuNanos: number | undefined;
}

interface SlowResult {
  received: number;
  /** Index in the run (0-based) of the first event the slow client did not get, if any. */
  firstMissing: number | undefined;
  /** Bytes of the messages it received before the first missing one. */
  bytesBeforeGap: number;
}

/** The monotonic clock in ns: one clock for every thread of the process. */
const nowNs = (): bigint => process.hrtime.bigint();
const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

// ─── The clients' thread ────────────────────────────────────────────────────────────────────

/**
 * Latencies in fixed memory: 10 µs buckets up to 100 ms, then 1 ms buckets up to 60 s (and one
 * for anything later), so millions of deliveries cost the process no memory that grows with
 * the run (the slow-client runs measure the process's memory). Percentiles are bucket tops.
 */
class Histogram {
  static readonly FINE_MS = 0.01;
  static readonly FINE_BUCKETS = 10_000;
  static readonly COARSE_MS = 1;
  static readonly COARSE_BUCKETS = 59_900;
  readonly counts: Int32Array;
  total = 0;
  max = 0;

  constructor(counts?: Int32Array) {
    this.counts = counts ?? new Int32Array(Histogram.FINE_BUCKETS + Histogram.COARSE_BUCKETS + 1);
    for (const count of this.counts) this.total += count;
  }

  add(ms: number): void {
    const fine = Math.floor(Math.max(0, ms) / Histogram.FINE_MS);
    const bucket =
      fine < Histogram.FINE_BUCKETS
        ? fine
        : Histogram.FINE_BUCKETS + Math.min(Histogram.COARSE_BUCKETS, Math.floor((ms - Histogram.FINE_BUCKETS * Histogram.FINE_MS) / Histogram.COARSE_MS));
    this.counts[bucket]!++;
    this.total++;
    if (ms > this.max) this.max = ms;
  }

  merge(other: Histogram): void {
    for (let bucket = 0; bucket < this.counts.length; bucket++) this.counts[bucket]! += other.counts[bucket]!;
    this.total += other.total;
    this.max = Math.max(this.max, other.max);
  }

  /** The top of the bucket that holds the sample at `fraction` of the sorted samples (at most the max). */
  percentile(fraction: number): number {
    const rank = Math.min(this.total - 1, Math.floor(fraction * this.total));
    let seen = 0;
    for (let bucket = 0; bucket < this.counts.length; bucket++) {
      seen += this.counts[bucket]!;
      if (seen > rank) {
        const top =
          bucket < Histogram.FINE_BUCKETS
            ? (bucket + 1) * Histogram.FINE_MS
            : Histogram.FINE_BUCKETS * Histogram.FINE_MS + (bucket - Histogram.FINE_BUCKETS + 1) * Histogram.COARSE_MS;
        return Math.min(top, this.max);
      }
    }
    return NaN;
  }
}

interface Client {
  socket: WebSocket;
  slow: boolean;
  /** The highest seq received. */
  lastSeq: number;
  /** Counts the messages with seq >= `from`. */
  from: number;
  received: number;
  /** The slow client's first gap in seq since `from`, and the bytes it got before it. */
  firstGapSeq: number | undefined;
  bytesBeforeGap: number;
  last: Buffer | undefined;
}

const SEQ_PREFIX = Buffer.from('{"seq":');

/**
 * The seq of an event message without parsing the JSON (both servers serialise `seq` first):
 * the clients are the measuring instrument, and 200,000 JSON.parse calls a second would make
 * the instrument, not the server, the thing measured. Undefined for other messages (hello).
 */
function readSeq(data: Buffer): number | undefined {
  if (data.length < 9 || data.compare(SEQ_PREFIX, 0, 7, 0, 7) !== 0) return undefined;
  let seq = 0;
  for (let index = 7; index < data.length; index++) {
    const code = data[index]!;
    if (code < 48 || code > 57) return index > 7 ? seq : undefined;
    seq = seq * 10 + code - 48;
  }
  return undefined;
}

function clientsThread(shared: Shared): void {
  const port = parentPort!;
  const clients: Record<SideName, Client[]> = { loom: [], anchor: [] };
  const slow: Partial<Record<SideName, Client>> = {};
  const recording: Record<SideName, Histogram | undefined> = { loom: undefined, anchor: undefined };
  const cpuAtStart: Record<SideName, number | undefined> = { loom: undefined, anchor: undefined };

  const connect = (side: SideName, url: string, headers: Record<string, string>, isSlow: boolean) =>
    new Promise<Client>((resolve, reject) => {
      const socket = new WebSocket(url, { headers, perMessageDeflate: false });
      const client: Client = { socket, slow: isSlow, lastSeq: 0, from: Infinity, received: 0, firstGapSeq: undefined, bytesBeforeGap: 0, last: undefined };
      const sent = shared.sent[side];
      socket.on('message', (raw) => {
        const data = raw as Buffer;
        const seq = readSeq(data);
        if (seq === undefined) return; // Loom's hello
        const now = nowNs();
        if (seq >= client.from) {
          client.received++;
          if (client.slow && client.firstGapSeq === undefined) {
            if (seq !== Math.max(client.lastSeq + 1, client.from)) client.firstGapSeq = Math.max(client.lastSeq + 1, client.from);
            else client.bytesBeforeGap += data.length;
          }
          const samples = recording[side];
          if (samples && !client.slow) samples.add(Number(now - Atomics.load(sent, seq & (RING - 1))) / 1e6);
        }
        client.lastSeq = seq;
        client.last = data;
      });
      // Loom registers a client before it sends the hello; the bare server before `open`.
      socket.once(side === 'loom' ? 'message' : 'open', () => resolve(client));
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) => {
        reject(new Error(`${side}: the upgrade was answered ${response.statusCode}`));
        socket.terminate();
      });
    });

  /** Resolves when `done()` holds, or after `timeoutMs`; returns whether it held. */
  const waitFor = async (done: () => boolean, timeoutMs: number): Promise<boolean> => {
    const deadline = nowMs() + timeoutMs;
    while (!done()) {
      if (nowMs() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return true;
  };

  const handle = async (request: Request): Promise<{ result: unknown; transfer?: ArrayBuffer[] }> => {
    switch (request.kind) {
      case 'connect': {
        const batch = Array.from({ length: request.count }, () => connect(request.side, request.url, request.headers, false));
        clients[request.side].push(...(await Promise.all(batch)));
        return { result: clients[request.side].length };
      }
      case 'connectSlow': {
        const client = await connect(request.side, request.url, request.headers, true);
        // It never reads again: what the server sends piles up in the kernel's buffers, then in
        // the server's send buffer for this socket.
        client.socket.pause();
        slow[request.side] = client;
        return { result: true };
      }
      case 'start': {
        for (const client of [...clients[request.side], slow[request.side]]) {
          if (!client) continue;
          client.from = request.firstSeq;
          client.received = 0;
          client.firstGapSeq = undefined;
          client.bytesBeforeGap = 0;
        }
        recording[request.side] = new Histogram();
        cpuAtStart[request.side] = threadCpuNanos();
        return { result: true };
      }
      case 'stop': {
        const started = nowMs();
        const group = clients[request.side];
        let seen = -1;
        let quietSince = nowMs();
        await waitFor(() => {
          if (group.every((client) => client.lastSeq >= request.lastSeq)) return true;
          const received = group.reduce((sum, client) => sum + client.received, 0);
          if (received !== seen) {
            seen = received;
            quietSince = nowMs();
          }
          return nowMs() - quietSince > DRAIN_QUIET_MS;
        }, 600_000);
        const drainMs = nowMs() - started;
        const cpuNow = threadCpuNanos();
        const cpuBefore = cpuAtStart[request.side];
        const histogram = recording[request.side]!;
        recording[request.side] = undefined;
        const latencies = { counts: histogram.counts, max: histogram.max };
        const result: StopResult = {
          latencies,
          received: group.map((client) => client.received),
          sample: group[0]?.last?.toString('utf8') ?? '',
          drainMs,
          cpuNanos: cpuNow === undefined || cpuBefore === undefined ? undefined : cpuNow - cpuBefore,
        };
        return { result, transfer: [latencies.counts.buffer as ArrayBuffer] };
      }
      case 'resumeSlow': {
        const client = slow[request.side]!;
        client.socket.resume();
        // Reads what the kernel and the server still hold, until nothing more comes for 500 ms.
        let seen = -1;
        let quietSince = nowMs();
        await waitFor(() => {
          if (client.lastSeq >= request.lastSeq) return true;
          if (client.received !== seen) {
            seen = client.received;
            quietSince = nowMs();
          }
          return nowMs() - quietSince > 500;
        }, 60_000);
        const gap = client.firstGapSeq ?? (client.lastSeq < request.lastSeq ? client.lastSeq + 1 : undefined);
        const result: SlowResult = {
          received: client.received,
          firstMissing: gap === undefined ? undefined : gap - client.from,
          bytesBeforeGap: client.bytesBeforeGap,
        };
        client.socket.terminate();
        delete slow[request.side];
        return { result };
      }
      case 'close': {
        for (const client of [...clients.loom, ...clients.anchor, slow.loom, slow.anchor]) client?.socket.terminate();
        return { result: true };
      }
    }
  };

  port.on('message', ({ id, request }: { id: number; request: Request }) => {
    handle(request).then(
      ({ result, transfer }) => port.postMessage({ id, result }, transfer ?? []),
      (error: Error) => port.postMessage({ id, error: error.message }),
    );
  });
}

// ─── The main thread: the servers, the emitter, the figures ─────────────────────────────────

/** The clients' thread, as request → answer. */
class ClientsThread {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>();

  constructor(shared: Shared) {
    // tsx's loader does not reach worker threads by itself: register it there, then load this file.
    const api = import.meta.resolve('tsx/esm/api');
    const code = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); });`;
    this.worker = new Worker(code, { eval: true, workerData: shared });
    this.worker.on('message', ({ id, result, error }: { id: number; result?: unknown; error?: string }) => {
      const waiter = this.pending.get(id);
      this.pending.delete(id);
      if (error !== undefined) waiter?.reject(new Error(error));
      else waiter?.resolve(result);
    });
    this.worker.on('error', (error) => {
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
    });
  }

  request<T>(request: Request): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, request });
    });
  }

  async close(): Promise<void> {
    await this.request({ kind: 'close' });
    await this.worker.terminate();
  }
}

/** One side: where its clients connect, and how to emit event number `index` of a run through it. */
interface Side {
  name: SideName;
  url: string;
  headers: Record<string, string>;
  /** The seq the next event will get. */
  nextSeq(): number;
  /** Emits event `index` of a run, recording `dueNs` as its emit time; returns its seq. */
  emit(index: number, dueNs: bigint): number;
  /** The largest send buffer (ws `bufferedAmount`) of any of its clients now, in bytes. */
  maxBuffered(): number;
  /** Events the server has not sent to a client because its buffer was full, so far. */
  dropped(): number;
  close(): Promise<void>;
}

const PATHS = ['src/core/text/buffer.ts', 'src/local/routes/editor.ts', 'README.md', 'test/local/editor.test.ts', 'src/core/events/bus.ts'];

/** Event number `index` of a run: what an editor emits as files are opened and saved. */
function eventAt(index: number): { type: EventType; data: Record<string, unknown> } {
  const file = PATHS[index % PATHS.length]!;
  if (index % 2 === 0) return { type: 'file:open', data: { path: file, language: file.endsWith('.md') ? 'markdown' : 'typescript' } };
  return { type: 'file:save', data: { path: file, version: index, bytes: 1000 + ((index * 37) % 50_000) } };
}

/**
 * The real `loom serve`, through its composition root (settings, workspace, documents, webhook
 * outbox and worker, guard, rate limits): events go through its EventBus, so each one also
 * passes the durable webhook listener (no webhooks configured: nothing is written).
 */
async function startLoomSide(dir: string, sent: BigInt64Array): Promise<Side> {
  const workspace = path.join(dir, 'workspace');
  const configDir = path.join(dir, 'config');
  const dataDir = path.join(dir, 'data');
  for (const folder of [workspace, configDir, dataDir]) fs.mkdirSync(folder, { recursive: true });
  // 101 upgrades in a few ms would nearly exhaust the default 120 requests a minute.
  fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify({ apiToken: newApiToken(), webhooks: [], rateLimits: { default: 100_000 } }), {
    mode: 0o600,
  });
  const configFile = path.join(dir, 'loom.json');
  fs.writeFileSync(configFile, JSON.stringify({ workspace, configDir, dataDir, local: { port: 0 }, logLevel: 'silent' }));
  const local = await startLocal(loadConfig({ env: {}, configFile }));
  const bus = local.events;
  return {
    name: 'loom',
    url: `ws://127.0.0.1:${local.port}/events`,
    headers: { authorization: `Bearer ${local.token()}` },
    nextSeq: () => bus.lastSeq + 1,
    emit(index, dueNs) {
      const seq = bus.lastSeq + 1;
      Atomics.store(sent, seq & (RING - 1), dueNs);
      const { type, data } = eventAt(index);
      // Not awaited: the pacer emits the events due in a tick back to back, as concurrent requests would.
      bus.emit(type, data).catch((error: Error) => {
        console.error(`FAILED: bus.emit rejected: ${error.message}`);
        process.exitCode = 1;
      });
      return seq;
    },
    maxBuffered: () => local.eventStream.maxBuffered(),
    dropped: () => local.eventStream.dropped(),
    close: () => local.close(),
  };
}

/** The anchor: a bare `ws` server, no Fastify, no auth; each event serialised once and sent to every client. */
async function startAnchorSide(sent: BigInt64Array): Promise<Side> {
  const server = http.createServer();
  const wss = new WebSocketServer({ server, path: '/events' });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let seq = 0;
  return {
    name: 'anchor',
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
    headers: {},
    nextSeq: () => seq + 1,
    emit(index, dueNs) {
      seq += 1;
      Atomics.store(sent, seq & (RING - 1), dueNs);
      const { type, data } = eventAt(index);
      // The shape and key order of Loom's events ({seq, type, time, data}).
      const message = JSON.stringify({ seq, type, time: new Date().toISOString(), data });
      for (const client of wss.clients) if (client.readyState === WebSocket.OPEN) client.send(message);
      return seq;
    },
    maxBuffered: () => Math.max(0, ...[...wss.clients].map((client) => client.bufferedAmount)),
    dropped: () => 0,
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise((resolve) => wss.close(resolve));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Nanoseconds the calling thread has spent on a CPU (Linux), as in bench/hosted-throughput. */
function threadCpuNanos(): number | undefined {
  try {
    return Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}

function memory(): Memory {
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, heapUsed, external };
}

interface Run {
  side: SideName;
  events: number;
  /** Events per second, from the first emit to the last. */
  rate: number;
  /** How late each event was emitted against its schedule, in ms (the pacer's own lag). */
  lagMs: Float64Array;
  latencies: Histogram;
  /** Per client: events emitted minus events received. */
  missing: number[];
  sample: string;
  /** CPU time of the main thread (servers and emitter) per event, in µs. */
  cpuMicros: number | undefined;
  /** CPU time of the clients' thread per event (all clients), in µs. */
  clientCpuMicros: number | undefined;
  /** Garbage collections in the server thread during the run: their total and longest pause, ms. */
  gc: { count: number; totalMs: number; maxMs: number };
  firstSeq: number;
  lastSeq: number;
  /** The highest rss, heapUsed + external and send buffer sampled while emitting, when asked for. */
  peak?: { rss: number; heapAndExternal: number; buffered: number };
  /** Events the server dropped during the run. */
  dropped: number;
}

/**
 * Emits `seconds` × RATE events through `side` on a timer that catches up: every TICK_MS it
 * emits every event whose time has come, so a late tick makes a burst, not a lower rate.
 */
function emitPaced(side: Side, seconds: number, onTick?: () => void): Promise<{ events: number; rate: number; lagMs: Float64Array; lastSeq: number }> {
  const total = Math.round(RATE * seconds);
  const lagMs = new Float64Array(total);
  const intervalNs = 1e9 / RATE;
  return new Promise((resolve) => {
    const startNs = nowNs();
    let emitted = 0;
    let lastSeq = 0;
    let lastNs = startNs;
    const tick = () => {
      const due = Math.min(total, Math.floor(Number(nowNs() - startNs) / intervalNs) + 1);
      while (emitted < due) {
        const dueNs = startNs + BigInt(Math.round(emitted * intervalNs));
        lastNs = nowNs();
        lagMs[emitted] = Number(lastNs - dueNs) / 1e6;
        lastSeq = side.emit(emitted, dueNs);
        emitted++;
      }
      onTick?.();
      if (emitted < total) return;
      clearInterval(timer);
      resolve({ events: total, rate: total > 1 ? ((total - 1) * 1e9) / Number(lastNs - startNs) : RATE, lagMs, lastSeq });
    };
    const timer = setInterval(tick, TICK_MS);
    tick();
  });
}

/** Pauses of the server thread for garbage collection, as long as `gcLog` is set. */
let gcLog: Run['gc'] | undefined;
new PerformanceObserver((list) => {
  if (!gcLog) return;
  for (const entry of list.getEntries()) {
    gcLog.count++;
    gcLog.totalMs += entry.duration;
    gcLog.maxMs = Math.max(gcLog.maxMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

async function run(side: Side, clients: ClientsThread, seconds: number, sampleMemory = false): Promise<Run> {
  const firstSeq = side.nextSeq();
  await clients.request({ kind: 'start', side: side.name, firstSeq });
  const gc = { count: 0, totalMs: 0, maxMs: 0 };
  gcLog = gc;
  const droppedBefore = side.dropped();
  const cpuBefore = threadCpuNanos();
  let peak: Run['peak'];
  let lastSample = 0;
  const onTick = sampleMemory
    ? (force = false) => {
        const now = nowMs();
        if (now - lastSample < 100 && !force) return;
        lastSample = now;
        const { rss, heapUsed, external } = memory();
        peak = {
          rss: Math.max(peak?.rss ?? 0, rss),
          heapAndExternal: Math.max(peak?.heapAndExternal ?? 0, heapUsed + external),
          buffered: Math.max(peak?.buffered ?? 0, side.maxBuffered()),
        };
      }
    : undefined;
  const emitted = await emitPaced(side, seconds, onTick);
  onTick?.(true);
  const stopped = await clients.request<StopResult>({ kind: 'stop', side: side.name, lastSeq: emitted.lastSeq });
  const cpuAfter = threadCpuNanos();
  gcLog = undefined;
  const cpuMicros = cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / 1000 / emitted.events;
  return {
    side: side.name,
    events: emitted.events,
    rate: emitted.rate,
    lagMs: emitted.lagMs,
    latencies: Object.assign(new Histogram(stopped.latencies.counts), { max: stopped.latencies.max }),
    missing: stopped.received.map((received) => emitted.events - received),
    sample: stopped.sample,
    cpuMicros,
    clientCpuMicros: stopped.cpuNanos === undefined ? undefined : stopped.cpuNanos / 1000 / emitted.events,
    gc,
    dropped: side.dropped() - droppedBefore,
    firstSeq,
    lastSeq: emitted.lastSeq,
    peak,
  };
}

function sorted(samples: Float64Array): Float64Array {
  return samples.slice().sort();
}

function percentile(ascending: Float64Array, fraction: number): number {
  return ascending[Math.min(ascending.length - 1, Math.floor(fraction * ascending.length))] ?? NaN;
}

function concat(arrays: Float64Array[]): Float64Array {
  const all = new Float64Array(arrays.reduce((sum, array) => sum + array.length, 0));
  let offset = 0;
  for (const array of arrays) {
    all.set(array, offset);
    offset += array.length;
  }
  return all;
}

function median(values: number[]): number {
  const ascending = [...values].sort((a, b) => a - b);
  const middle = Math.floor(ascending.length / 2);
  return ascending.length % 2 === 1 ? ascending[middle]! : (ascending[middle - 1]! + ascending[middle]!) / 2;
}

function formatMs(ms: number): string {
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

const formatCount = (n: number): string => Math.round(n).toLocaleString('en-US');
const formatKb = (bytes: number): string => `${formatCount(bytes / 1024)} KB`;
const formatMb = (bytes: number): string => `${bytes < 0 ? '' : '+'}${(bytes / 1024 / 1024).toFixed(1)} MB`;

interface Summary {
  p50: number;
  p99: number;
  max: number;
  deliveries: number;
  events: number;
  rate: number;
  missing: number;
  worstClientMissing: number;
  lagP99: number;
  lagMax: number;
  cpuMicros: number | undefined;
  clientCpuMicros: number | undefined;
  gc: Run['gc'];
}

/** Pools the runs of one side: percentiles over all their deliveries. */
function summarise(runs: Run[]): Summary {
  const latencies = new Histogram();
  for (const r of runs) latencies.merge(r.latencies);
  const lag = sorted(concat(runs.map((r) => r.lagMs)));
  const events = runs.reduce((sum, r) => sum + r.events, 0);
  const perClient = runs[0]!.missing.map((_, client) => runs.reduce((sum, r) => sum + r.missing[client]!, 0));
  const cpu = runs.map((r) => r.cpuMicros);
  const clientCpu = runs.map((r) => r.clientCpuMicros);
  return {
    p50: latencies.percentile(0.5),
    p99: latencies.percentile(0.99),
    max: latencies.max,
    deliveries: latencies.total,
    events,
    rate: median(runs.map((r) => r.rate)),
    missing: perClient.reduce((sum, n) => sum + n, 0),
    worstClientMissing: Math.max(0, ...perClient),
    lagP99: percentile(lag, 0.99),
    lagMax: lag[lag.length - 1] ?? NaN,
    cpuMicros: cpu.some((c) => c === undefined) ? undefined : median(cpu as number[]),
    clientCpuMicros: clientCpu.some((c) => c === undefined) ? undefined : median(clientCpu as number[]),
    gc: {
      count: runs.reduce((sum, r) => sum + r.gc.count, 0),
      totalMs: runs.reduce((sum, r) => sum + r.gc.totalMs, 0),
      maxMs: Math.max(...runs.map((r) => r.gc.maxMs)),
    },
  };
}

function describe(name: string, s: Summary): string {
  const cpu =
    s.cpuMicros === undefined || s.clientCpuMicros === undefined
      ? ''
      : `\n       CPU/event: server thread ${s.cpuMicros.toFixed(0)} µs, clients' thread ${s.clientCpuMicros.toFixed(0)} µs;` +
        ` server GC: ${s.gc.count} pauses, ${formatMs(s.gc.totalMs)} in all, longest ${formatMs(s.gc.maxMs)}`;
  return (
    `${name.padEnd(6)} p50 ${formatMs(s.p50)}, p99 ${formatMs(s.p99)}, max ${formatMs(s.max)} over ${formatCount(s.deliveries)} deliveries ` +
    `(${formatCount(s.events)} events x ${CLIENTS} clients); ${formatCount(s.rate)} events/s; missing ${s.missing} ` +
    `(worst client ${s.worstClientMissing}); emitter lag p99 ${formatMs(s.lagP99)}, max ${formatMs(s.lagMax)}${cpu}`
  );
}

/** Both sides must send the same JSON: the last event of equal-length runs, seq and time aside. */
function checkEquivalent(loom: Run, anchor: Run): void {
  const comparable = (text: string) => {
    const event = JSON.parse(text) as Record<string, unknown>;
    if (typeof event.time !== 'string' || Number.isNaN(Date.parse(event.time))) throw new Error(`no ISO time in ${text}`);
    return { ...event, seq: undefined, time: undefined };
  };
  if (!isDeepStrictEqual(comparable(loom.sample), comparable(anchor.sample))) {
    throw new Error(`loom and anchor send different JSON:\n  ${loom.sample}\n  ${anchor.sample}`);
  }
  if (Object.keys(JSON.parse(loom.sample)).join() !== Object.keys(JSON.parse(anchor.sample)).join()) {
    throw new Error('loom and anchor order the keys differently');
  }
}

/**
 * One more client that never reads, for `seconds` of events, next to the 100 that do. Memory
 * is the main thread's (the servers': clients live in the other thread) after full GCs before
 * and after the run, the slow client still connected and paused, so what its socket holds is in
 * the second figure; plus the highest rss and heapUsed + external sampled during the run.
 */
async function slowClientRun(side: Side, clients: ClientsThread, seconds: number) {
  await clients.request({ kind: 'connectSlow', side: side.name, url: side.url, headers: side.headers });
  collectGarbage();
  collectGarbage();
  const before = memory();
  const result = await run(side, clients, seconds, true);
  collectGarbage();
  collectGarbage();
  // The bench's own arrays of this run (the lags, the latencies handed over by the clients' thread) aside.
  const measured = memory();
  const after = { ...measured, external: measured.external - result.latencies.counts.byteLength - result.lagMs.byteLength };
  const bufferedAfter = side.maxBuffered();
  const slow = await clients.request<SlowResult>({ kind: 'resumeSlow', side: side.name, lastSeq: result.lastSeq });
  return { result, summary: summarise([result]), slow, before, after, bufferedAfter };
}

function describeSlow(name: string, slow: Awaited<ReturnType<typeof slowClientRun>>): string[] {
  const { summary, result, before, after, bufferedAfter } = slow;
  const dropped = result.events - slow.slow.received;
  const gap =
    slow.slow.firstMissing === undefined
      ? 'it missed none'
      : `it missed ${formatCount(dropped)}, from event ${formatCount(slow.slow.firstMissing)} on ` +
        `(due ${(slow.slow.firstMissing / RATE).toFixed(1)} s in; before it, ${formatMb(slow.slow.bytesBeforeGap).slice(1)} held by the kernel and the server)`;
  const peak = result.peak!;
  return [
    `  ${name.padEnd(6)} the ${CLIENTS} others: p50 ${formatMs(summary.p50)}, p99 ${formatMs(summary.p99)}, max ${formatMs(summary.max)}; ` +
      `missing ${summary.missing}; ${formatCount(summary.rate)} events/s`,
    `         slow client: received ${formatCount(slow.slow.received)} of ${formatCount(result.events)} events; ${gap}`,
    `         server: its send buffer (bufferedAmount) peaked at ${formatKb(peak.buffered)}, ${formatKb(bufferedAfter)} at the end; ` +
      `${formatCount(result.dropped)} events dropped`,
    `         server memory, after GC, before -> after the run: heapUsed ${formatMb(after.heapUsed - before.heapUsed)}, ` +
      `external ${formatMb(after.external - before.external)}, rss ${formatMb(after.rss - before.rss)}; ` +
      `peak during the run over before: heapUsed+external ${formatMb(peak.heapAndExternal - before.heapUsed - before.external)}, rss ${formatMb(peak.rss - before.rss)}`,
  ];
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-events-'));
  const shared: Shared = {
    sent: { loom: new BigInt64Array(new SharedArrayBuffer(RING * 8)), anchor: new BigInt64Array(new SharedArrayBuffer(RING * 8)) },
  };
  const toClose: { close(): Promise<void> }[] = [];
  try {
    const loom = await startLoomSide(dir, shared.sent.loom);
    toClose.push(loom);
    const anchor = await startAnchorSide(shared.sent.anchor);
    toClose.push(anchor);
    const clients = new ClientsThread(shared);
    toClose.unshift(clients);
    const sides: Record<SideName, Side> = { loom, anchor };
    for (const side of SIDES) await clients.request({ kind: 'connect', side, url: sides[side].url, headers: sides[side].headers, count: CLIENTS });
    console.log(
      `events: ${CLIENTS} clients per side (in a worker thread), ${formatCount(RATE)} events/s, ${PAIRS} x ${SLICE_SECONDS} s slices per side; ` +
        `${os.availableParallelism()} cores, node ${process.version}`,
    );

    // Warm-up: lets V8 optimise both paths; also the check that both send the same JSON.
    const warmAnchor = await run(anchor, clients, WARMUP_SECONDS);
    const warmLoom = await run(loom, clients, WARMUP_SECONDS);
    checkEquivalent(warmLoom, warmAnchor);
    const warmupMissing = [...warmLoom.missing, ...warmAnchor.missing].reduce((sum, n) => sum + n, 0);

    const runs: Record<SideName, Run[]> = { loom: [], anchor: [] };
    const sliceRatios: number[] = [];
    for (let index = 0; index < PAIRS; index++) {
      const order: SideName[] = index % 2 === 0 ? ['anchor', 'loom'] : ['loom', 'anchor'];
      for (const name of order) runs[name].push(await run(sides[name], clients, SLICE_SECONDS));
      const [l, a] = [summarise([runs.loom[index]!]), summarise([runs.anchor[index]!])];
      sliceRatios.push(l.p99 / a.p99);
      console.log(
        `  slice ${index + 1}: anchor p50 ${formatMs(a.p50)}, p99 ${formatMs(a.p99)}; loom p50 ${formatMs(l.p50)}, p99 ${formatMs(l.p99)} ` +
          `(p99 loom/anchor ${(l.p99 / a.p99).toFixed(2)})`,
      );
    }
    const loomSummary = summarise(runs.loom);
    const anchorSummary = summarise(runs.anchor);
    const ratio = loomSummary.p99 / anchorSummary.p99;
    const latencyMet = loomSummary.p99 <= GOAL_P99_MS;
    const complete = loomSummary.missing === 0 && warmupMissing === 0;
    console.log('');
    console.log(describe('loom', loomSummary));
    console.log(describe('anchor', anchorSummary));
    const cpuRatio =
      loomSummary.cpuMicros === undefined || anchorSummary.cpuMicros === undefined
        ? ''
        : `; server CPU/event loom/anchor ${(loomSummary.cpuMicros / anchorSummary.cpuMicros).toFixed(2)}`;
    console.log(
      `p99 loom/anchor ${ratio.toFixed(2)} (the slices': ${sliceRatios.map((r) => r.toFixed(2)).join(', ')}; median ${median(sliceRatios).toFixed(2)})${cpuRatio}\n` +
        `goal: loom p99 <= ${GOAL_P99_MS} ms${latencyMet ? '' : ', MISSED'}, 0 missing${complete ? '' : ` (warm-up missing ${warmupMissing}), MISSED`}`,
    );

    console.log(`\nwith one more client that never reads (${SLOW_SECONDS} s per side, loom then anchor):`);
    const slowLoom = await slowClientRun(loom, clients, SLOW_SECONDS);
    for (const line of describeSlow('loom', slowLoom)) console.log(line);
    const slowAnchor = await slowClientRun(anchor, clients, SLOW_SECONDS);
    for (const line of describeSlow('anchor', slowAnchor)) console.log(line);
    const slowMet = slowLoom.summary.p99 <= GOAL_P99_MS && slowLoom.summary.missing === 0;
    console.log(
      `  others' p99 loom/anchor ${(slowLoom.summary.p99 / slowAnchor.summary.p99).toFixed(2)}; ` +
        `goal: loom's others p99 <= ${GOAL_P99_MS} ms, 0 missing${slowMet ? '' : ', MISSED'}`,
    );
    console.log(latencyMet && complete && slowMet ? '\nGoals met.' : '\nSome goals MISSED.');
  } finally {
    for (const item of toClose) await item.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (isMainThread) await main();
else clientsThread(workerData as Shared);
