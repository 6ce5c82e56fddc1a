// Derives localization instances from a repository's history by the rule the shared instances
// follow (/work/shared/bench-data/localization/README.md), for a check on repositories the
// weights never saw:
//   npx tsx bench/code/derive-localization.ts "$LOOM_BENCH_REPOS/psf/requests" psf/requests > bench/code/held-out/requests.jsonl
// Non-merge commits of the first-parent history whose message is at least 25 characters and is
// not a chore, docs, test, build, release or revert message, that modify 1 to 3 source files
// (code, not tests, docs or configuration) and add, delete or rename none; 40 spread evenly.
import { execFileSync } from 'node:child_process';
import { isTestPath } from '../../src/core/code/file-roles.ts';
import { languageOf } from '../../src/core/code/languages.ts';

const [clone, repo, countText] = process.argv.slice(2);
if (!clone || !repo) {
  console.error('usage: derive-localization.ts CLONE owner/name [COUNT]');
  process.exit(2);
}
const count = Number(countText ?? 40);
const SKIPPED_MESSAGE =
  /^(chore|docs?|tests?|build|ci|release|revert|style|bump|merge|v?\d+\.\d+)\b|^(version|changelog|update (the )?(changelog|history|readme))\b|\brelease\b/i;
const DOCS = /(^|\/)(docs?|examples?|benchmarks?)\//i;

function git(...args: string[]): string {
  return execFileSync('git', ['-C', clone!, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
}

function isSource(path: string): boolean {
  return languageOf(path, '') !== 'text' && !isTestPath(path) && !DOCS.test(path);
}

// Oldest first: each commit with its parents, its message, and its changes (status and path).
const log = git('log', '--reverse', '--first-parent', '--no-renames', '--name-status', '-z', '--format=%x1e%H %P%x1f%B%x1f', 'HEAD');
const eligible: { commit: string; parent: string; query: string; gold: string[] }[] = [];
for (const record of log.split('\x1e').slice(1)) {
  const [head, message, changes = ''] = record.split('\x1f') as [string, string, string?];
  const [commit, ...parents] = head.trim().split(' ');
  if (parents.length !== 1) continue;
  const query = message.trim();
  if (query.length < 25 || SKIPPED_MESSAGE.test(query)) continue;
  const fields = changes
    .replace(/^[\0\n]+/, '')
    .split('\0')
    .filter(Boolean);
  const statuses: [string, string][] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) statuses.push([fields[i]!, fields[i + 1]!]);
  if (statuses.length === 0 || statuses.some(([status]) => status !== 'M')) continue;
  const gold = statuses.map(([, path]) => path).filter(isSource);
  if (gold.length < 1 || gold.length > 3) continue;
  eligible.push({ commit: commit!, parent: parents[0]!, query, gold: gold.sort() });
}
const chosen = eligible.length <= count ? eligible : Array.from({ length: count }, (_, i) => eligible[Math.floor(((i + 0.5) * eligible.length) / count)]!);
// Newest first, as the shared files list them.
for (const instance of chosen.reverse())
  console.log(JSON.stringify({ repo, commit: instance.commit, parent: instance.parent, query: instance.query, gold: instance.gold }));
console.error(`${chosen.length} of ${eligible.length} eligible commits`);
