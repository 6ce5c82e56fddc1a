// The repository map: how close it comes to its token budget, and how long it takes on a
// workspace of 3,000 files, against reading those files (and BM25 over them) in the same run.
//
//   npx tsx bench/code/repo-map.ts            (BENCH_FILES=3000, BENCH_RUNS=5)
//
// The workspace is 3,000 JavaScript and TypeScript files copied from node_modules (real code,
// not Loom's, in a fixed order), committed to git in 60 commits of 50 files, so that locate reads
// history as it would in a project. The index is built once; each measured run is what
// `loom code map` does once the index is current: every parsed file's outline and text read,
// the history read, locate and the graph ranked, the map laid out.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bm25Index } from '../../src/core/code/bm25.ts';
import { LIMITS } from '../../src/core/code/model.ts';
import { splitTerms } from '../../src/core/code/terms.ts';
import { codeFiles, mapRepository } from '../../src/compose/code-tasks.ts';
import { openCodeIntel } from '../../src/compose/code-intel.ts';
import { percentile, readable, readPositive, sourceFiles } from '../support.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const FILES = readPositive('BENCH_FILES', 3000);
const RUNS = readPositive('BENCH_RUNS', 5);
const BUDGETS = [256, 512, 1024, 2048, 4096, 8192];

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-map-bench-')));
const dataDir = path.join(root, '.data');
const workspace = path.join(root, 'workspace');
fs.mkdirSync(workspace);
const git = (...args: string[]) =>
  execFileSync('git', ['-C', workspace, '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
git('init', '-q', '-b', 'main');

// The files, in folders of 100 named after their package, committed 50 at a time.
const copied: string[] = [];
for (const file of sourceFiles(path.resolve(here, '../../node_modules'))) {
  if (copied.length >= FILES) break;
  const text = fs.readFileSync(file, 'utf8');
  if (!readable(text)) continue;
  const relative = path.relative(path.resolve(here, '../../node_modules'), file);
  const pkg = relative.split(path.sep)[0]!.replace(/^@/, '');
  const target = `src/${pkg}-${Math.floor(copied.length / 100)}/${path.basename(file)}`;
  if (copied.includes(target)) continue;
  fs.mkdirSync(path.join(workspace, path.dirname(target)), { recursive: true });
  fs.writeFileSync(path.join(workspace, target), text);
  copied.push(target);
  if (copied.length % 50 === 0) {
    git('add', '.');
    git('commit', '-q', '-m', `files up to ${copied.length}`);
  }
}
git('add', '.');
git('commit', '-q', '--allow-empty', '-m', 'the rest');

const code = openCodeIntel({
  workspace,
  dataDir,
  settings: { maxFileBytes: LIMITS.maxFileBytes, maxFiles: LIMITS.maxFiles, dependencies: false, workers: 0, background: false },
});
try {
  const build = await code.index.refresh();
  const files = await codeFiles(code.index);
  console.log(`Workspace: ${copied.length} files (${files.length} parsed), index built in ${(build.durationMs / 1000).toFixed(1)} s.`);

  // Tasks: names defined in the workspace, spread over it, as a task would name them.
  const named = files.filter((file) => file.definitions.length > 0);
  const tasks = Array.from({ length: 8 }, (_, i) => {
    const file = named[Math.floor(((i + 0.5) * named.length) / 8)]!;
    return { task: `fix ${file.definitions[0]!.name} when the input is empty`, focus: [file.path] };
  });

  // Budget adherence.
  const ratios: number[] = [];
  for (const tokens of BUDGETS) {
    const perBudget: number[] = [];
    for (const { task, focus } of tasks) {
      const map = await mapRepository(code.index, { task, focus, tokens });
      perBudget.push(map.tokens / tokens);
    }
    ratios.push(...perBudget);
    console.log(`budget ${String(tokens).padStart(5)}: map tokens / budget from ${Math.min(...perBudget).toFixed(3)} to ${Math.max(...perBudget).toFixed(3)}`);
  }
  console.log(`All ${ratios.length} maps: ${ratios.filter((ratio) => ratio >= 0.9 && ratio <= 1.1).length} within ±10 % of the budget.`);

  // Time: the map (1024 tokens) against reading the files, and against BM25 over them.
  const mapMs: number[] = [];
  const readMs: number[] = [];
  const bm25Ms: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const { task, focus } = tasks[run % tasks.length]!;
    let started = performance.now();
    await code.index.refresh();
    await mapRepository(code.index, { task, focus, tokens: 1024 });
    mapMs.push(performance.now() - started);

    started = performance.now();
    const texts = await Promise.all(files.map((file) => fs.promises.readFile(path.join(workspace, file.path), 'utf8')));
    readMs.push(performance.now() - started);

    started = performance.now();
    const index = new Bm25Index({ weights: { text: 1 } });
    texts.forEach((text, i) => index.add({ text: splitTerms(`${files[i]!.path}\n${text}`) }));
    index.search(splitTerms(task), 10);
    bm25Ms.push(performance.now() - started + readMs[readMs.length - 1]!);
  }
  const map = percentile(mapMs, 0.5);
  const read = percentile(readMs, 0.5);
  const bm25 = percentile(bm25Ms, 0.5);
  console.log(
    `Map of ${files.length} files (median of ${RUNS}): ${map.toFixed(0)} ms; reading the files ${read.toFixed(0)} ms (ratio ${(map / read).toFixed(1)}); ` +
      `reading them and BM25 over them ${bm25.toFixed(0)} ms (ratio ${(map / bm25).toFixed(2)}).`,
  );
} finally {
  await code.close();
  fs.rmSync(root, { recursive: true, force: true });
}
