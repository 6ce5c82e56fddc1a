// File localization: recall@5 and @10 of `loom code locate` against BM25 on the same workspaces,
// over instances taken from real repositories' histories (a commit message as the task, the
// source files the commit changed as the answer). docs/BENCHMARKS.md has the figures.
//
//   LOOM_BENCH_REPOS=/path/to/clones npx tsx bench/code/localization.ts
//
// LOOM_BENCH_REPOS holds one clone per repository at <owner>/<name> (bare or not), e.g.
//   git clone --bare https://github.com/honojs/hono "$LOOM_BENCH_REPOS/honojs/hono"
// for honojs/hono, axios/axios, pallets/flask, gin-gonic/gin (the shared instances) and
// psf/requests, expressjs/express (held out: bench/code/held-out, derived by the same rule with
// bench/code/derive-localization.ts). A repository without a clone is skipped, and said so.
// Other variables: LOOM_BENCH_LOCALIZATION (the shared instances' folder, default
// /work/shared/bench-data/localization), LOOM_BENCH_CACHE (workspaces and their index, default
// <tmp>/loom-bench-localization), BENCH_ABLATIONS=1 (also each signal's weight set to 0).
//
// Both rankers see the same files: those the code index parses (source in a known language),
// each read once. The anchor is BM25 over each file's path and text, identifiers split at
// camelCase and snake_case, k1 = 1.2, b = 0.75; locate is the production path (compose/
// code-tasks.ts codeFiles, the git history adapter, core/code/locate.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readGitHistory } from '../../src/adapters/code/git-history.ts';
import { Bm25Index } from '../../src/core/code/bm25.ts';
import { LOCATE_WEIGHTS, locate, type Signal } from '../../src/core/code/locate.ts';
import { LIMITS } from '../../src/core/code/model.ts';
import { splitTerms } from '../../src/core/code/terms.ts';
import { codeFiles } from '../../src/compose/code-tasks.ts';
import { openCodeIntel } from '../../src/compose/code-intel.ts';
import { cacheFolder, cloneOf, DEFAULT_INSTANCES, readInstances, workspaceOf, type Instance } from './support-instances.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const reposFolder = process.env.LOOM_BENCH_REPOS;
if (!reposFolder || !fs.existsSync(reposFolder)) {
  console.log(
    'localization: skipped. Set LOOM_BENCH_REPOS to a folder holding a clone of each repository at <owner>/<name> ' +
      '(git clone --bare https://github.com/honojs/hono "$LOOM_BENCH_REPOS/honojs/hono"; likewise axios/axios, pallets/flask, ' +
      'gin-gonic/gin, psf/requests, expressjs/express).',
  );
  process.exit(0);
}
const ablations = process.env.BENCH_ABLATIONS === '1';
const cache = cacheFolder();
const dataDir = path.join(cache, 'index');
fs.mkdirSync(dataDir, { recursive: true });

interface Outcome {
  instance: Instance;
  /** Position of the instance in its repository's file (for the halves). */
  position: number;
  recall: Record<string, { at5: number; at10: number }>;
  locateMs: number;
  anchorMs: number;
}

function recall(gold: readonly string[], ranked: readonly string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  return gold.filter((file) => top.has(file)).length / gold.length;
}

async function run(instance: Instance, position: number, clone: string): Promise<Outcome> {
  const root = workspaceOf(instance, clone, cache);
  const code = openCodeIntel({
    workspace: root,
    dataDir,
    settings: { maxFileBytes: LIMITS.maxFileBytes, maxFiles: LIMITS.maxFiles, dependencies: false, workers: 1, background: false },
  });
  try {
    await code.index.refresh();
    // Locate as `loom code locate` runs it: the index's files and the history, then the ranking.
    const started = performance.now();
    const [files, history] = await Promise.all([codeFiles(code.index), readGitHistory(root)]);
    const located = locate({ task: instance.query, files, history, limit: 10 }).map((hit) => hit.path);
    const locateMs = performance.now() - started;

    const anchorStarted = performance.now();
    const bm25 = new Bm25Index({ weights: { text: 1 } });
    for (const file of files) bm25.add({ text: splitTerms(`${file.path}\n${file.text}`) });
    const anchor = bm25.search(splitTerms(instance.query), 10).map((hit) => files[hit.doc]!.path);
    const anchorMs = performance.now() - anchorStarted;

    const rankings: Record<string, string[]> = { locate: located, bm25: anchor };
    if (ablations) {
      for (const signal of Object.keys(LOCATE_WEIGHTS) as Signal[]) {
        rankings[`without ${signal}`] = locate({ task: instance.query, files, history, limit: 10, weights: { [signal]: 0 } }).map((hit) => hit.path);
      }
    }
    const result: Outcome['recall'] = {};
    for (const [name, ranked] of Object.entries(rankings)) result[name] = { at5: recall(instance.gold, ranked, 5), at10: recall(instance.gold, ranked, 10) };
    return { instance, position, recall: result, locateMs, anchorMs };
  } finally {
    await code.close();
  }
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
}

function percent(value: number): string {
  return `${(100 * value).toFixed(1)} %`;
}

// One line per repository and a mean, for each ranker; ratios to the anchor.
function report(title: string, outcomes: readonly Outcome[]): void {
  if (outcomes.length === 0) return;
  const repos = [...new Set(outcomes.map((outcome) => outcome.instance.repo))];
  const names = Object.keys(outcomes[0]!.recall);
  const rows: string[][] = [['repository', 'n', 'ranker', 'recall@5', 'recall@10', '@5 / bm25', '@10 / bm25']];
  const means: Record<string, { at5: number[]; at10: number[] }> = {};
  for (const repo of repos) {
    const mine = outcomes.filter((outcome) => outcome.instance.repo === repo);
    const base5 = mean(mine.map((outcome) => outcome.recall.bm25!.at5));
    const base10 = mean(mine.map((outcome) => outcome.recall.bm25!.at10));
    for (const name of names) {
      const at5 = mean(mine.map((outcome) => outcome.recall[name]!.at5));
      const at10 = mean(mine.map((outcome) => outcome.recall[name]!.at10));
      (means[name] ??= { at5: [], at10: [] }).at5.push(at5);
      means[name].at10.push(at10);
      rows.push([repo, String(mine.length), name, percent(at5), percent(at10), (at5 / base5).toFixed(2), (at10 / base10).toFixed(2)]);
    }
  }
  const base5 = mean(means.bm25!.at5);
  const base10 = mean(means.bm25!.at10);
  for (const name of names) {
    const at5 = mean(means[name]!.at5);
    const at10 = mean(means[name]!.at10);
    rows.push(['mean of repositories', String(outcomes.length), name, percent(at5), percent(at10), (at5 / base5).toFixed(2), (at10 / base10).toFixed(2)]);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  console.log(`\n${title}`);
  for (const row of rows) console.log(row.map((cell, column) => (column < 3 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  '));
}

async function runSet(title: string, folder: string): Promise<Outcome[]> {
  if (!fs.existsSync(folder)) {
    console.log(`${title}: skipped, no instances at ${folder}`);
    return [];
  }
  const outcomes: Outcome[] = [];
  const positions = new Map<string, number>();
  for (const instance of readInstances(folder)) {
    const clone = cloneOf(reposFolder!, instance.repo);
    const position = positions.get(instance.repo) ?? 0;
    positions.set(instance.repo, position + 1);
    if (!clone) {
      if (position === 0) console.log(`${title}: ${instance.repo} skipped, no clone at ${path.join(reposFolder!, instance.repo)}`);
      continue;
    }
    outcomes.push(await run(instance, position, clone));
    process.stderr.write('.');
  }
  process.stderr.write('\n');
  return outcomes;
}

const shared = await runSet('shared instances', process.env.LOOM_BENCH_LOCALIZATION || DEFAULT_INSTANCES);
report('Shared instances (weights chosen on these)', shared);
report(
  'Shared instances, even positions',
  shared.filter((outcome) => outcome.position % 2 === 0),
);
report(
  'Shared instances, odd positions',
  shared.filter((outcome) => outcome.position % 2 === 1),
);
const heldOut = await runSet('held-out instances', path.join(here, 'held-out'));
report('Repositories outside the shared set (bench/code/held-out)', heldOut);
const all = [...shared, ...heldOut];
if (all.length) {
  console.log(
    `\nTime per instance (mean): locate ${mean(all.map((outcome) => outcome.locateMs)).toFixed(0)} ms ` +
      `(the index's files read, git history read, ranked), BM25 anchor ${mean(all.map((outcome) => outcome.anchorMs)).toFixed(0)} ms ` +
      `(indexing the same files' text in memory, ranked).`,
  );
}
