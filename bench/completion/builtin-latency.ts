// Latency and memory of the builtin completion model on a ~5 MB workspace of real code (from
// node_modules, support-workspace.ts): training time (trainOnFolder), the memory the model
// holds per MB of code, suggest() latency over a few thousand cursors that move through files
// as typing does, and updateFile on a 20 KB file. The anchor, run in the same process on the
// same code and cursors: the textbook 4-gram of the quality benchmark (Maps of strings,
// support-baseline.ts).
//
//   npx tsx bench/completion/builtin-latency.ts    BENCH_WORKSPACE_MB: workspace size (default 5)
//                                                  BENCH_CURSORS: measured cursors (default 3000)
import { BuiltinModel, trainOnFolder } from '../../src/core/completion/builtin/index.ts';
import { WorkspacePaths } from '../../src/core/workspace/paths.ts';
import { BaselineModel } from './support-baseline.ts';
import { buildWorkspace } from './support-workspace.ts';
import { collectGarbage, percentile, readPositive } from '../support.ts';
import { seeded } from '../../test/support/random.ts';

const WORKSPACE_MB = readPositive('BENCH_WORKSPACE_MB', 5);
const CURSORS = Math.round(readPositive('BENCH_CURSORS', 3000));
/** Cursors per visited file, one per line going down, as when writing it. */
const RUN = 20;
const GOALS = { p50: 5, p99: 25 };

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

interface Memory {
  heapUsed: number;
  /** Typed arrays' backing stores live outside the heap. */
  arrayBuffers: number;
  rss: number;
}

function memory(): Memory {
  collectGarbage();
  collectGarbage();
  const { heapUsed, arrayBuffers, rss } = process.memoryUsage();
  return { heapUsed, arrayBuffers, rss };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function held(before: Memory, after: Memory): number {
  return after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
}

function formatMs(ms: number): string {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`;
}

function describe(samples: number[]): string {
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return `p50 ${formatMs(percentile(samples, 0.5))}, p99 ${formatMs(percentile(samples, 0.99))}, max ${formatMs(Math.max(...samples))}, mean ${formatMs(mean)} (${samples.length})`;
}

interface Cursor {
  file: number;
  offset: number;
  /** Where the cursor's line ends: the rest of the line is being typed, not there yet. */
  lineEnd: number;
  /** The first cursor of a visit: the file cache starts cold. */
  first: boolean;
}

/**
 * Runs of cursors going down a file, at a random column of each line (inside tokens too), the
 * rest of the line not typed yet: the request's suffix starts at the end of the line.
 */
function cursors(files: { text: string }[], count: number, random: () => number): Cursor[] {
  const out: Cursor[] = [];
  while (out.length < count) {
    const file = Math.floor(random() * files.length);
    const text = files[file]!.text;
    const lineStarts = [0];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
    let line = Math.floor(random() * Math.max(1, lineStarts.length - RUN));
    for (let k = 0; k < RUN && line < lineStarts.length && out.length < count; k++, line++) {
      const start = lineStarts[line]!;
      const end = line + 1 < lineStarts.length ? lineStarts[line + 1]! - 1 : text.length;
      out.push({ file, offset: start + Math.floor(random() * (end - start + 1)), lineEnd: end, first: k === 0 });
    }
  }
  return out;
}

async function main(): Promise<void> {
  const workspace = buildWorkspace(WORKSPACE_MB);
  const codeMb = workspace.bytes / 1024 / 1024;
  console.log(`builtin latency: workspace ${workspace.files.length} files, ${mb(workspace.bytes)} of real code (node_modules), node ${process.version}`);
  try {
    // Training and memory. Memory is heapUsed + arrayBuffers (typed arrays) after two full
    // collections, before and after, so it is what the model keeps, not training garbage.
    const empty = memory();
    let start = nowMs();
    const model = new BuiltinModel();
    const trained = await trainOnFolder(model, new WorkspacePaths(workspace.root));
    const trainMs = nowMs() - start;
    const withModel = memory();
    const modelBytes = held(empty, withModel);
    const stats = model.stats();
    console.log(
      `  builtin: trained on ${trained.files} files (${mb(trained.bytes)}) in ${formatMs(trainMs)}; ${stats.tokens.toLocaleString('en-US')} tokens; ` +
        `holds ${mb(modelBytes)} = ${(modelBytes / 1024 / 1024 / codeMb).toFixed(1)} MB per MB of code ` +
        `(rss +${mb(withModel.rss - empty.rss)}; stats() says ${mb(stats.bytes)})`,
    );

    const random = seeded(11);
    const warmup = cursors(workspace.files, 300, random);
    const measured = cursors(workspace.files, CURSORS, random);
    const request = (c: Cursor) => {
      const file = workspace.files[c.file]!;
      return { prefix: file.text.slice(0, c.offset), suffix: file.text.slice(c.lineEnd), filePath: file.path, language: 'javascript' };
    };
    for (const c of warmup) model.suggest(request(c));
    const all: number[] = [];
    const cold: number[] = [];
    let nonEmpty = 0;
    for (const c of measured) {
      const input = request(c);
      const t = nowMs();
      const suggestion = model.suggest(input);
      const ms = nowMs() - t;
      all.push(ms);
      if (c.first) cold.push(ms);
      if (suggestion.text) nonEmpty++;
    }
    console.log(`  suggest(): ${describe(all)}; ${((100 * nonEmpty) / all.length).toFixed(0)}% non-empty`);
    console.log(`    first cursor of a visit (file cache cold): ${describe(cold)}`);

    // updateFile of a 20 KB file: recording it, then indexing it (done lazily, when a
    // suggestion for another file needs the project, or by indexPending()).
    const big = workspace.files.find((f) => f.text.length >= 20 * 1024) ?? workspace.files[0]!;
    const text20k = big.text.slice(0, 20 * 1024);
    const record: number[] = [];
    const index: number[] = [];
    for (let i = 0; i < 200; i++) {
      const edited = text20k.slice(0, 10_000) + `x${i}` + text20k.slice(10_000);
      let t = nowMs();
      model.updateFile(big.path, edited);
      record.push(nowMs() - t);
      t = nowMs();
      model.indexPending();
      index.push(nowMs() - t);
    }
    console.log(`  updateFile (20 KB file): record ${describe(record)}; indexing ${describe(index)}`);

    // The anchor: the same code, the same cursors.
    const beforeAnchor = memory();
    start = nowMs();
    const anchor = new BaselineModel(workspace.files.map((f) => f.text));
    const anchorTrainMs = nowMs() - start;
    const anchorBytes = held(beforeAnchor, memory());
    const scorers = new Map<number, ReturnType<BaselineModel['forFile']>>();
    const anchorMs: number[] = [];
    for (const c of measured.slice(0, Math.min(measured.length, 1000))) {
      // The anchor's file cache only moves forward: a new visit starts a new one.
      if (c.first || !scorers.has(c.file)) scorers.set(c.file, anchor.forFile(workspace.files[c.file]!.text));
      const t = nowMs();
      scorers.get(c.file)!.suggest(c.offset);
      anchorMs.push(nowMs() - t);
    }
    console.log(
      `  anchor (4-gram, Maps of strings): trained in ${formatMs(anchorTrainMs)}; holds ${mb(anchorBytes)} = ${(anchorBytes / 1024 / 1024 / codeMb).toFixed(1)} MB per MB of code; ` +
        `suggest ${describe(anchorMs)}`,
    );
    const p50 = percentile(all, 0.5);
    const p99 = percentile(all, 0.99);
    console.log(
      `  builtin/anchor: suggest p50 ${(p50 / percentile(anchorMs, 0.5)).toFixed(2)}x, training time ${(trainMs / anchorTrainMs).toFixed(2)}x, memory ${(modelBytes / anchorBytes).toFixed(2)}x`,
    );
    const met = p50 <= GOALS.p50 && p99 <= GOALS.p99;
    console.log(`  goals: p50 <= ${GOALS.p50} ms ${p50 <= GOALS.p50 ? 'met' : 'MISSED'}; p99 <= ${GOALS.p99} ms ${p99 <= GOALS.p99 ? 'met' : 'MISSED'}`);
    console.log(met ? '\nGoals met.' : '\nSome goals MISSED.');
    void scorers.clear();
  } finally {
    workspace.remove();
  }
}

await main();
