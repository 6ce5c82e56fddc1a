// What linear-time matching costs and what it buys, for regular expressions from outside Loom
// (src/core/search/): RE2 (re2js) beside JavaScript's RegExp, the anchor, in the same process.
//
// 1. Typical searches: patterns a model or a person writes, over the lines (at most 4,000
//    characters) of real code that is not ours (packages in node_modules); MB/s of each engine,
//    the same matches required of both, and the ratio.
// 2. The slowest line: patterns built to defeat RE2's DFA, at sizes up to the largest the search
//    takes, each on the longest line the search matches it against (4,000 characters, fewer
//    for a large pattern: text-query.ts); the slowest line is the longest the event loop waits
//    on a search.
// 3. Catastrophic patterns: ^(a+)+$ against n a's and a `!`. RegExp doubles with each a (run up
//    to 24 only); RE2 at 64, the case, and at 100,000.
// 4. The event loop during a search over many files (searchLines) with a costly pattern: how
//    late it ran, measured by perf_hooks, against 3 s idle; and what one line costs.
//
//   npx tsx bench/search/linear-regex.ts     BENCH_FILES: files of real code (default 400)
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { LinearRegex, MAX_PROGRAM_SIZE } from '../../src/core/search/linear-regex.ts';
import { searchLines } from '../../src/core/search/search-lines.ts';
import { compileTextQuery, type TextQuery } from '../../src/core/search/text-query.ts';
import { seeded } from '../../test/support/random.ts';
import { percentile, readPositive, readable, sourceFiles } from '../support.ts';

const NODE_MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));
const FILES = Math.round(readPositive('BENCH_FILES', 400));
const LINE_CHARS = 4000;

const lines: string[] = [];
let files = 0;
for (const file of sourceFiles(NODE_MODULES)) {
  const text = fs.readFileSync(file, 'utf8');
  if (!readable(text)) continue;
  for (const line of text.split('\n')) if (line.length <= LINE_CHARS) lines.push(line);
  if (++files >= FILES) break;
}
const megabytes = lines.reduce((sum, line) => sum + line.length + 1, 0) / 1e6;
console.log(`corpus: ${files} files of node_modules, ${lines.length} lines, ${megabytes.toFixed(1)} MB`);

// ---- 1. Typical searches ----
const TYPICAL: [string, boolean][] = [
  ['\\bfunction\\s+\\w+\\s*\\(', false],
  ['TODO|FIXME|XXX', false],
  ['require\\([\'"][^\'"]+[\'"]\\)', false],
  ['^\\s*(export\\s+)?(async\\s+)?function', false],
  ['error', true],
  ['\\.then\\(\\s*function', false],
];
const timeEngine = (test: (line: string) => boolean): { ms: number; matches: number } => {
  const start = performance.now();
  let matches = 0;
  for (const line of lines) if (test(line)) matches++;
  return { ms: performance.now() - start, matches };
};
let re2Total = 0;
let jsTotal = 0;
console.log('\n1. typical searches (MB/s; the better of 3 alternate runs each)');
for (const [source, ignoreCase] of TYPICAL) {
  const re2 = LinearRegex.compile(source, { ignoreCase });
  const js = new RegExp(source, ignoreCase ? 'i' : '');
  let re2Ms = Infinity;
  let jsMs = Infinity;
  for (let round = 0; round < 3; round++) {
    const a = timeEngine((line) => re2.test(line));
    const b = timeEngine((line) => js.test(line));
    if (a.matches !== b.matches) throw new Error(`${source}: RE2 found ${a.matches} lines, RegExp ${b.matches}`);
    re2Ms = Math.min(re2Ms, a.ms);
    jsMs = Math.min(jsMs, b.ms);
  }
  re2Total += re2Ms;
  jsTotal += jsMs;
  console.log(
    `  ${source.padEnd(42)} RE2 ${(megabytes / (re2Ms / 1000)).toFixed(0).padStart(5)}  RegExp ${(megabytes / (jsMs / 1000)).toFixed(0).padStart(5)}  RE2/RegExp time ${(re2Ms / jsMs).toFixed(1)}×`,
  );
}
console.log(`  all: RE2 takes ${(re2Total / jsTotal).toFixed(1)}× RegExp's time`);

// ---- 2. The slowest line at the bounds ----
const random = seeded(7);
const ab = (n: number) => Array.from({ length: n }, () => (random() < 0.5 ? 'a' : 'b')).join('');
/** Families of patterns built to defeat RE2's DFA: the pattern for a size n, and a line of `chars` characters that makes it work. */
const FAMILIES: { name: string; pattern: (n: number) => string; ignoreCase?: boolean; line: (chars: number) => string }[] = [
  { name: 'DFA blow-up (?:a|b)*a(?:a|b){n}c', pattern: (n) => `(?:a|b)*a(?:a|b){${n}}c`, line: (chars) => `${ab(chars - 2)}dc` },
  { name: 'class repeat [\\p{L}\\p{N}]{n}x', pattern: (n) => `[\\p{L}\\p{N}]{${n}}x`, line: (chars) => `${'é'.repeat(chars - 2)}-x` },
  { name: 'case-folded literal a…ab', pattern: (n) => `${'a'.repeat(n)}b`, ignoreCase: true, line: (chars) => `${'A'.repeat(chars - 1)}c` },
  { name: 'dot repeat (?:.a){n}c', pattern: (n) => `(?:.a){${n}}c`, line: (chars) => `${'xa'.repeat(chars / 2 - 1)}-c` },
];
console.log(
  `\n2. the slowest line: each family at sizes up to ${MAX_PROGRAM_SIZE} instructions, on the longest line the search matches it against (ms, worst of 3 fresh compiles)`,
);
let worst = 0;
for (const family of FAMILIES) {
  const cells: string[] = [];
  for (const n of [20, 50, 100, 200, 500, 1000]) {
    let query: TextQuery;
    try {
      query = compileTextQuery({ query: family.pattern(n), regex: true, caseSensitive: !family.ignoreCase, maxLineChars: LINE_CHARS });
    } catch {
      continue; // past MAX_PROGRAM_SIZE, or the query's length: refused
    }
    const line = family.line(query.maxLineChars);
    let ms = 0;
    for (let round = 0; round < 3; round++) {
      const fresh = compileTextQuery({ query: family.pattern(n), regex: true, caseSensitive: !family.ignoreCase, maxLineChars: LINE_CHARS });
      const start = performance.now();
      fresh.test(line);
      ms = Math.max(ms, performance.now() - start);
    }
    worst = Math.max(worst, ms);
    cells.push(`n=${n} (${query.maxLineChars} chars) ${ms.toFixed(0)}`);
  }
  console.log(`  ${family.name.padEnd(36)} ${cells.join('  ')}`);
}
console.log(`  slowest line: ${worst.toFixed(0)} ms`);

// ---- 3. Catastrophic patterns ----
console.log('\n3. ^(a+)+$ against n a\'s and a "!" (ms)');
const nested = /^(a+)+$/;
nested.test(`${'a'.repeat(10)}!`); // compiled and warm before it is timed
for (const n of [20, 22, 24]) {
  const start = performance.now();
  nested.test(`${'a'.repeat(n)}!`);
  console.log(`  RegExp n=${n}: ${(performance.now() - start).toFixed(1)} ms`);
}
const linear = LinearRegex.compile('^(a+)+$');
for (const n of [24, 64, 100_000]) {
  const start = performance.now();
  linear.test(`${'a'.repeat(n)}!`);
  console.log(`  RE2    n=${n}: ${(performance.now() - start).toFixed(1)} ms`);
}

// ---- 4. The event loop during a search ----
const costly = compileTextQuery({ query: '(?:a|b)*a(?:a|b){45}c', regex: true, maxLineChars: LINE_CHARS });
const searchFiles = Array.from({ length: 50 }, (_, i) => `file${i}.txt`);
const text = Array.from({ length: 10 }, () => `${ab(costly.maxLineChars - 2)}dc`).join('\n');
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const started = performance.now();
const { matches } = await searchLines(searchFiles, () => text, costly, { maxMatches: 100 });
const elapsed = performance.now() - started;
delay.disable();
// What one line costs: 300 lines, each new to the pattern's DFA.
const lineTimes = Array.from({ length: 300 }, () => `${ab(costly.maxLineChars - 2)}dc`).map((line) => {
  const start = performance.now();
  costly.test(line);
  return performance.now() - start;
});
// The anchor: the event loop's delays over 3 s of doing nothing, which is what the machine's load alone costs it.
const idle = monitorEventLoopDelay({ resolution: 1 });
idle.enable();
await new Promise((resolve) => setTimeout(resolve, 3000));
idle.disable();
const ms = (nanoseconds: number) => (nanoseconds / 1e6).toFixed(0);
console.log(
  `\n4. a search of ${searchFiles.length} files × 10 lines of ${costly.maxLineChars} characters with (?:a|b)*a(?:a|b){45}c: ${(elapsed / 1000).toFixed(1)} s, ${matches.length} matches\n` +
    `  the event loop's waits during it: p99 ${ms(delay.percentile(99))} ms, longest ${ms(delay.max)} ms\n` +
    `  anchor, 3 s idle:                 p99 ${ms(idle.percentile(99))} ms, longest ${ms(idle.max)} ms\n` +
    `  one line (300 new ones): p50 ${percentile(lineTimes, 0.5).toFixed(1)} ms, p99 ${percentile(lineTimes, 0.99).toFixed(1)} ms, longest ${Math.max(...lineTimes).toFixed(1)} ms`,
);
