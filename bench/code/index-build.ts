// The code index on a large tree of real code no one here wrote: a fixed snapshot of the
// project's node_modules (its JavaScript and TypeScript files, copied to a temporary folder so
// the tree does not change under the runs). Anchor: Universal Ctags (`ctags -R`) on the same
// tree in the same run, before and after Loom's build (the median of its runs). Measures:
//
// - a full build: files/s and MB/s (definitions and references, the ranked-search chunks, the
//   SQLite writes), against ctags' (definitions only); peak RSS of the process, threads included;
// - a re-index after 1 % of the files changed, as a share of the full build's time;
// - incremental: a file saved → its new symbol found by search, from the moment the watcher's
//   debounce lets the change go (p50, p99);
// - search latencies on the built index: files (Ctrl+P), symbols (Ctrl+T), ranked, text.
//
// `loom code index` runs from the compiled build, as users run it: the bench builds dist/cli/
// first (scripts/build-cli.js), as `npm install` does; LOOM_FROM_SOURCE=1 measures the sources
// through tsx instead.
//
//   npx tsx bench/code/index-build.ts
//     BENCH_TREE: the folder to snapshot (default: the checkout's node_modules)
//     BENCH_MAX_FILES: files copied at most (default: all)
//     BENCH_SAMPLES: incremental samples (default 200)
//     BENCH_WORKERS: parsing threads (default: loom code index's, one per core)
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodeIndex } from '../../src/adapters/code/code-index.ts';
import { LiveIndex, type ChangeSource, type LiveUpdate } from '../../src/adapters/code/live.ts';
import { hasLongLine } from '../../src/core/code/content.ts';
import { rankFuzzy } from '../../src/matching/fuzzy.ts';
import { percentile, readPositive } from '../support.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE_TREE = process.env.BENCH_TREE ?? path.join(ROOT, 'node_modules');
const MAX_FILES = Math.round(readPositive('BENCH_MAX_FILES', Number.MAX_SAFE_INTEGER));
const SAMPLES = Math.round(readPositive('BENCH_SAMPLES', 200));
const WORKERS = Math.round(readPositive('BENCH_WORKERS', Math.max(1, Math.min(8, os.availableParallelism()))));
const CODE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const GOAL_THROUGHPUT_RATIO = 0.5;
const GOAL_RSS_MB = 300;
const GOAL_REINDEX_SHARE = 0.05;
const GOAL_P99_MS = 50;

/** Copies the JavaScript and TypeScript files of `from` into `to` (links not followed); returns how many and their bytes. */
function snapshot(from: string, to: string): { files: number; bytes: number; list: string[] } {
  const list: string[] = [];
  let bytes = 0;
  const pending = [''];
  while (pending.length > 0 && list.length < MAX_FILES) {
    const relative = pending.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(from, relative), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    for (const entry of entries) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory() && entry.name !== '.cache') pending.push(child);
      else if (entry.isFile() && CODE.test(entry.name) && list.length < MAX_FILES) {
        const target = path.join(to, child);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(path.join(from, child), target);
        bytes += fs.statSync(target).size;
        list.push(child);
      }
    }
  }
  return { files: list.length, bytes, list };
}

/** One run of `ctags -R` on the tree: wall time and what its totals say it scanned. */
function ctags(tree: string, tags: string): { ms: number; files: number; bytes: number; tags: number } {
  const started = performance.now();
  // Its warnings ("ignoring null tag", thousands) and its totals both go to stderr.
  const run = spawnSync('ctags', ['-R', '--totals=yes', '--languages=JavaScript,TypeScript', '-f', tags, tree], {
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`ctags failed (${run.status}): ${run.error?.message ?? run.stderr.slice(-2000)}`);
  const totals = /(\d+) files?, (\d+) lines? \((\d+) kB\) scanned/.exec(run.stdout + run.stderr);
  if (!totals) throw new Error(`ctags printed no totals: ${run.stdout}${run.stderr}`);
  const lines = fs.readFileSync(tags, 'utf8').split('\n');
  return { ms, files: Number(totals[1]), bytes: Number(totals[3]) * 1024, tags: lines.filter((line) => line && !line.startsWith('!_TAG')).length };
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

async function main(): Promise<void> {
  if (process.env.LOOM_FROM_SOURCE !== '1') execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-cli.js')], { stdio: 'inherit' });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-code-'));
  const tree = path.join(scratch, 'tree');
  try {
    console.log(`Snapshot of ${SOURCE_TREE} …`);
    const copied = snapshot(SOURCE_TREE, tree);
    console.log(`  ${copied.files} JavaScript/TypeScript files, ${mb(copied.bytes)} MB, in ${tree}`);
    console.log(
      `  machine: ${os.availableParallelism()} cores, load ${os
        .loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')}; Loom parses on ${WORKERS} threads, ctags on one`,
    );

    // The page cache warmed for both: ctags once, unmeasured.
    ctags(tree, path.join(scratch, 'tags'));
    const before = ctags(tree, path.join(scratch, 'tags'));

    // Loom's build as users run it: `loom code index`, a process of its own (its peak RSS, every
    // thread included, from GNU time), the index's own duration from its --json answer.
    const dataDir = path.join(scratch, 'data');
    const full = loomIndex(tree, dataDir);
    const after = ctags(tree, path.join(scratch, 'tags'));
    const anchor = before.ms <= after.ms ? before : after;
    const summary = full.answer.build;
    const status = full.answer.status;
    const definitions = (await countDefinitions(dataDir)) ?? 0;

    const loomFilesPerSecond = summary.files / (summary.durationMs / 1000);
    const loomMbPerSecond = summary.bytes / 1024 / 1024 / (summary.durationMs / 1000);
    const ctagsFilesPerSecond = anchor.files / (anchor.ms / 1000);
    const ctagsMbPerSecond = anchor.bytes / 1024 / 1024 / (anchor.ms / 1000);
    console.log('\nFull build');
    console.log(
      `  ctags -R   ${anchor.files} files, ${mb(anchor.bytes)} MB in ${(anchor.ms / 1000).toFixed(2)} s (runs: ${(before.ms / 1000).toFixed(2)}, ${(after.ms / 1000).toFixed(2)}): ${loomRate(ctagsFilesPerSecond, ctagsMbPerSecond)}; ${anchor.tags} tags`,
    );
    console.log(
      `  Loom       ${summary.files} files, ${mb(summary.bytes)} MB read in ${(summary.durationMs / 1000).toFixed(2)} s: ${loomRate(loomFilesPerSecond, loomMbPerSecond)}; ${status.parsed} parsed, ${status.lexical} text only, ${status.skipped} left out; ${definitions} definitions`,
    );
    const parseOnly = await treeSitterAlone(tree, copied.list);
    console.log(
      `  tree-sitter alone, one thread (parse, no query, no write) on the same files: ${parseOnly.mbPerSecond.toFixed(2)} MB/s (${(parseOnly.mbPerSecond / ctagsMbPerSecond).toFixed(2)} of ctags)`,
    );
    const ratio = loomMbPerSecond / ctagsMbPerSecond;
    console.log(
      `  ratio (MB/s, Loom/ctags): ${ratio.toFixed(2)}  files/s: ${(loomFilesPerSecond / ctagsFilesPerSecond).toFixed(2)}   goal ≥ ${GOAL_THROUGHPUT_RATIO}`,
    );
    console.log(
      `  peak RSS of loom code index: ${full.peakMb.toFixed(0)} MB   goal ≤ ${GOAL_RSS_MB} MB;  the process took ${full.seconds.toFixed(1)} s;  database: ${mb(fs.statSync(path.join(dataDir, 'code-index.db')).size)} MB`,
    );

    // 1 % of the files changed: each gets a new function at its end.
    const changed = copied.list.filter((_, i) => i % 100 === 0);
    for (const [i, file] of changed.entries()) fs.appendFileSync(path.join(tree, file), `\nfunction benchChanged${i}() {}\n`);
    const reindex = loomIndex(tree, dataDir);
    const share = reindex.answer.build.durationMs / summary.durationMs;
    console.log('\nRe-index after 1 % of the files changed');
    console.log(
      `  ${changed.length} files changed: ${(reindex.answer.build.durationMs / 1000).toFixed(2)} s (${reindex.answer.build.parsed} parsed, ${reindex.answer.build.unchanged} unchanged) = ${(share * 100).toFixed(1)} % of the full build   goal ≤ ${GOAL_REINDEX_SHARE * 100} %;  peak RSS ${reindex.peakMb.toFixed(0)} MB`,
    );

    // In this process from here: a restart with nothing changed, then the live index and searches.
    const index = CodeIndex.open({ root: fs.realpathSync(tree), dataDir, dependencies: true, workers: WORKERS, maxFiles: 1_000_000 });
    const restart = await timed(() => index.refresh());
    console.log(
      `  a restart with nothing changed: ${(restart.ms / 1000).toFixed(2)} s (${restart.result.parsed} parsed, ${restart.result.unchanged} unchanged)`,
    );

    await incremental(index, tree, copied.list);
    await searches(index);
    await index.close();
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

interface IndexAnswer {
  build: { files: number; parsed: number; unchanged: number; bytes: number; durationMs: number };
  status: { parsed: number; lexical: number; skipped: number };
}

/** Runs `loom code index --json` on the tree under GNU time: its answer, peak RSS and wall time. */
function loomIndex(tree: string, dataDir: string): { answer: IndexAnswer; peakMb: number; seconds: number } {
  const env = { ...process.env, LOOM_CODE_INDEX_DEPENDENCIES: 'index', LOOM_CODE_INDEX_WORKERS: String(WORKERS), LOOM_CODE_INDEX_MAX_FILES: '1000000' };
  const run = spawnSync(
    '/usr/bin/time',
    ['-f', 'BENCH-TIME %M %e', process.execPath, path.join(ROOT, 'bin', 'loom.js'), 'code', 'index', '--workspace', tree, '--data-dir', dataDir, '--json'],
    {
      encoding: 'utf8',
      env,
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const time = /BENCH-TIME (\d+) ([\d.]+)/.exec(run.stderr);
  if (run.status !== 0 || !time) throw new Error(`loom code index failed (${run.status}): ${run.stderr}`);
  return { answer: JSON.parse(run.stdout) as IndexAnswer, peakMb: Number(time[1]) / 1024, seconds: Number(time[2]) };
}

/** tree-sitter's parse alone (the floor of any tree-sitter index), on this thread, over the files Loom parses. */
async function treeSitterAlone(tree: string, files: string[]): Promise<{ mbPerSecond: number }> {
  const { Language, Parser } = await import('web-tree-sitter');
  const { grammarPath } = await import('../../src/adapters/code/extract.ts');
  await Parser.init();
  const parser = new Parser();
  const grammars = new Map<string, InstanceType<typeof Language>>();
  for (const grammar of ['javascript', 'typescript', 'tsx']) grammars.set(grammar, await Language.load(grammarPath(grammar)));
  let bytes = 0;
  let ms = 0;
  for (const file of files) {
    const text = fs.readFileSync(path.join(tree, file), 'utf8');
    // What Loom parses: not larger than its limit, not minified.
    if (text.length > 1024 * 1024 || hasLongLine(text, 20_000)) continue;
    parser.setLanguage(grammars.get(/\.tsx$/.test(file) ? 'tsx' : /\.[cm]?ts$/.test(file) ? 'typescript' : 'javascript')!);
    const started = performance.now();
    parser.parse(text)?.delete();
    ms += performance.now() - started;
    bytes += Buffer.byteLength(text);
  }
  parser.delete();
  return { mbPerSecond: bytes / 1024 / 1024 / (ms / 1000) };
}

function loomRate(filesPerSecond: number, mbPerSecond: number): string {
  return `${filesPerSecond.toFixed(0)} files/s, ${mbPerSecond.toFixed(2)} MB/s`;
}

async function countDefinitions(dataDir: string): Promise<number | undefined> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path.join(dataDir, 'code-index.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM symbol').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/**
 * An edit saved → its symbol found: a file gets a new function, the watcher's change is given
 * to the live index (here by hand: the measure starts where the debounce lets the change go),
 * and the time runs until findSymbols returns the new function.
 */
async function incremental(index: CodeIndex, tree: string, files: string[]): Promise<void> {
  let listener: (absolute: string) => void = () => {};
  const watcher: ChangeSource = { root: index.root, onChange: (heard) => ((listener = heard), () => {}), start: () => {} };
  let resolveUpdate: (update: LiveUpdate) => void = () => {};
  const live = new LiveIndex(index, { watcher }, { onUpdate: (update) => resolveUpdate(update) });
  live.start();
  // The live index's timers keep no process alive (a server's sockets do); this one does, meanwhile.
  const keepAlive = setInterval(() => {}, 1000);
  const latencies: number[] = [];
  /** The same, for files of at most 64 KB (hand-written source; a 200 KB bundle alone takes ~50 ms to parse). */
  const small: number[] = [];
  // Files the index parsed (not minified ones: their symbols are not indexed).
  const parsed = new Set((await index.findFiles('', { limit: 10_000 })).filter((hit) => hit.state === 'parsed').map((hit) => hit.path));
  const candidates = files.filter((file) => parsed.has(file) && !file.endsWith('.d.ts'));
  // The first samples start the parsing thread and read the names into memory; they are not counted.
  const WARMUP = 3;
  for (let i = 0; i < SAMPLES + WARMUP; i++) {
    const file = candidates[(i * 7919) % candidates.length]!;
    const name = `benchSaved${i}`;
    fs.appendFileSync(path.join(tree, file), `\nexport function ${name}() {}\n`);
    const updated = new Promise<LiveUpdate>((resolve) => (resolveUpdate = resolve));
    listener(path.join(index.root, file));
    const update = await updated;
    const hits = await index.findSymbols(name, { limit: 5 });
    const foundAt = performance.now();
    if (!hits.some((hit) => hit.name === name && hit.path === file)) throw new Error(`${name} not found in ${file} after its update`);
    if (i >= WARMUP) {
      latencies.push(foundAt - update.releasedAt);
      if (fs.statSync(path.join(tree, file)).size <= 64 * 1024) small.push(foundAt - update.releasedAt);
    }
  }
  live.close();
  clearInterval(keepAlive);
  console.log('\nIncremental: an edit saved → its new symbol found by search, after the watcher’s debounce');
  const line = (samples: number[]) =>
    `p50 ${percentile(samples, 0.5).toFixed(1)} ms, p90 ${percentile(samples, 0.9).toFixed(1)} ms, p99 ${percentile(samples, 0.99).toFixed(1)} ms, max ${Math.max(...samples).toFixed(1)} ms`;
  console.log(`  ${SAMPLES} edits, files of any size: ${line(latencies)}   goal p99 ≤ ${GOAL_P99_MS} ms`);
  console.log(`  the ${small.length} of them in files of at most 64 KB: ${line(small)}`);
}

async function searches(index: CodeIndex): Promise<void> {
  const median = async (work: () => Promise<unknown>, runs = 15) => {
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) samples.push((await timed(work)).ms);
    return percentile(samples, 0.5).toFixed(1);
  };
  console.log('\nSearch on the built index (median of 15)');
  console.log(
    `  files 'indexjs' (Ctrl+P): ${await median(() => index.findFiles('indexjs'))} ms;  symbols 'parseexpr' (Ctrl+T): ${await median(() => index.findSymbols('parseexpr'))} ms`,
  );
  console.log(
    `  ranked 'parse json schema': ${await median(() => index.searchRanked('parse json schema'))} ms;  text 'function main' (all matches): ${await median(
      async () => {
        for await (const _ of index.searchText({ pattern: 'function main', maxMatches: 100_000 }));
      },
      3,
    )} ms`,
  );
  const paths = Array.from({ length: 50_000 }, (_, i) => `packages/module-${i % 211}/src/feature${i % 37}/component-${i}.tsx`);
  console.log(`  fuzzy paths, 50,000 in memory, 'featcomp12': ${await median(async () => rankFuzzy('featcomp12', paths, (p) => p, 50, { path: true }))} ms`);
}

await main();
