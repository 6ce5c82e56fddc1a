// Runs every test file under test/ with node:test through tsx. Node 20's --test does not
// expand globs, so the files are listed here. Extra arguments (files or folders) narrow it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function collect(target) {
  const stat = fs.statSync(target);
  if (stat.isFile()) return target.endsWith('.test.ts') ? [target] : [];
  return fs
    .readdirSync(target)
    .sort()
    .flatMap((name) => (name === 'node_modules' ? [] : collect(path.join(target, name))));
}

const targets = process.argv.slice(2);
const files = (targets.length ? targets : ['test']).flatMap(collect);
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// Node 20 applies --test-timeout to each file as a whole, not only to each test in it: it is a
// guard against a hang, so it is generous enough for the slowest file (loom login's, a minute on
// an idle machine) on a loaded 2-core one. Two files run at once, as on CI.
const FILE_TIME_LIMIT_MS = 10 * 60_000;
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', `--test-timeout=${FILE_TIME_LIMIT_MS}`, ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
