// Server-side latency of builtin completion on a 5 MB workspace, through the real path: `loom
// serve`'s engine in-process (engine.complete, high-resolution) and over HTTP
// (POST /api/ai/complete, the token guard, JSON of a whole file as context). The anchor is
// GET /api/health on the same server in the same run. Also: training time and the process
// memory the learned model adds per MB of workspace code.
//
//   npx tsx bench/completion/server-latency.ts    BENCH_WORKSPACE_MB (default 5)
//                                                 BENCH_REQUESTS (default 2000)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../src/config/load.ts';
import { startLocal } from '../../src/local/server.ts';
import { collectGarbage, percentile, readPositive } from '../support.ts';
import { seeded } from '../../test/support/random.ts';
import { lineCursors, type LineCursor } from '../../test/support/real-code.ts';
import { buildWorkspace, type Workspace } from './support-workspace.ts';

const WORKSPACE_MB = readPositive('BENCH_WORKSPACE_MB', 5);
const REQUESTS = Math.round(readPositive('BENCH_REQUESTS', 2000));
const GOAL_P50_MS = 5;
const GOAL_P99_MS = 25;

interface Cursor extends LineCursor {
  /** Each cursor its own document: no type-ahead answer nor supersession between them. */
  filePath: string;
}

/** Cursors after the first token of random lines of workspace files (editing a file the model knows). */
function cursors(files: Workspace['files'], count: number, seed: number): Cursor[] {
  const random = seeded(seed);
  const out: Cursor[] = [];
  while (out.length < count) {
    const file = files[Math.floor(random() * files.length)]!;
    const lines = lineCursors(file.text);
    if (lines.length === 0) continue;
    out.push({ ...lines[Math.floor(random() * lines.length)]!, filePath: `${file.path}#${out.length}` });
  }
  return out;
}

const summary = (samples: number[]) => ({
  p50: percentile(samples, 0.5),
  p99: percentile(samples, 0.99),
  mean: samples.reduce((a, b) => a + b, 0) / samples.length,
});
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

async function main(): Promise<void> {
  const workspace = buildWorkspace(WORKSPACE_MB);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-home-'));
  try {
    const mb = workspace.bytes / 1024 / 1024;
    console.log(`workspace: ${workspace.files.length} files, ${mb.toFixed(2)} MB of real code from node_modules`);
    const config = loadConfig({
      env: {
        LOOM_WORKSPACE: workspace.root,
        LOOM_DATA_DIR: path.join(home, 'data'),
        LOOM_CONFIG_DIR: path.join(home, 'config'),
        LOOM_LOCAL_PORT: '0',
        LOOM_LOG_LEVEL: 'silent',
      },
    });
    collectGarbage();
    const before = process.memoryUsage();
    const started = performance.now();
    const local = await startLocal(config);
    fs.writeFileSync(
      path.join(home, 'config', 'settings.json'),
      JSON.stringify({ apiToken: local.token(), rateLimits: { aiComplete: 100_000, default: 100_000 } }),
    );
    await local.completion.learner.ready;
    const trainMs = performance.now() - started;
    collectGarbage();
    const after = process.memoryUsage();
    const perMb = (value: number) => `${(value / 1024 / 1024 / mb).toFixed(1)} MB`;
    console.log(`training: ${(trainMs / 1000).toFixed(2)} s (${(mb / (trainMs / 1000)).toFixed(2)} MB/s)`);
    console.log(
      `memory added per MB of code: heap ${perMb(after.heapUsed - before.heapUsed)}, array buffers ${perMb(after.arrayBuffers - before.arrayBuffers)}, rss ${perMb(after.rss - before.rss)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // settings.json picked up

    const sample = cursors(workspace.files, REQUESTS, 7);
    const headers = { authorization: `Bearer ${local.token()}`, 'content-type': 'application/json' };
    // Warm-up: JIT and caches, on cursors not measured.
    for (const c of cursors(workspace.files, 200, 8))
      await local.completion.engine.complete({ prefix: c.prefix, suffix: c.suffix, language: 'javascript', caller: 'warm', filePath: c.filePath });

    const engineMs: number[] = [];
    const httpMs: number[] = [];
    const healthMs: number[] = [];
    const serverReported: number[] = [];
    let suggested = 0;
    for (const [i, c] of sample.entries()) {
      // Alternate the three so that drift of the machine hits each alike.
      let t = performance.now();
      const direct = await local.completion.engine.complete({
        prefix: c.prefix,
        suffix: c.suffix,
        language: 'javascript',
        caller: 'bench',
        filePath: c.filePath,
      });
      engineMs.push(performance.now() - t);
      if (direct.completion) suggested++;
      t = performance.now();
      const res = await fetch(`${local.url}/api/ai/complete`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ prompt: c.typed, context: c.context, language: 'javascript', filePath: `${c.filePath}/http${i}` }),
      });
      const body = (await res.json()) as { latencyMs: number };
      httpMs.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(body)}`);
      serverReported.push(body.latencyMs);
      t = performance.now();
      await (await fetch(`${local.url}/api/health`, { headers })).json();
      healthMs.push(performance.now() - t);
    }
    const engine = summary(engineMs);
    const http = summary(httpMs);
    const health = summary(healthMs);
    const reported = summary(serverReported);
    console.log(`\n${REQUESTS} completions at cursors after the first token of a line; ${((100 * suggested) / REQUESTS).toFixed(1)}% got a suggestion`);
    console.log(
      `engine (server-side):   p50 ${fmt(engine.p50)}  p99 ${fmt(engine.p99)}  mean ${fmt(engine.mean)}   goals p50 <= ${GOAL_P50_MS} ms, p99 <= ${GOAL_P99_MS} ms: ${engine.p50 <= GOAL_P50_MS && engine.p99 <= GOAL_P99_MS ? 'met' : 'NOT met'}`,
    );
    console.log(`latencyMs it reports:   p50 ${reported.p50} ms  p99 ${reported.p99} ms`);
    console.log(`HTTP round trip:        p50 ${fmt(http.p50)}  p99 ${fmt(http.p99)}`);
    console.log(`anchor GET /api/health: p50 ${fmt(health.p50)}  p99 ${fmt(health.p99)}`);
    console.log(`ratio HTTP completion / health: p50 ${(http.p50 / health.p50).toFixed(2)}x  p99 ${(http.p99 / health.p99).toFixed(2)}x`);
    await local.close();
  } finally {
    workspace.remove();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

await main();
