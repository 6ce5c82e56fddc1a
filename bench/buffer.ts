// Edit latency of the editor's document buffer (TextBuffer, a piece table) on a 50 MB source
// file, as a ratio to an anchor: keeping the document in one string and rebuilding it on each
// edit (`s.slice(0, i) + text + s.slice(j)`). Both sides run in this process, in alternating
// slices; also prints lookup latency (lineCount, offsetAt, positionAt, getLine) and the memory
// the buffer adds to the document it holds.
//
//   npm run bench:buffer      BENCH_DOC_MB: document size (default 50)
//                             BENCH_OPS: measured TextBuffer edits per kind (default 2000)
//                             BENCH_ANCHOR_OPS: measured anchor edits per kind (default 50)
import fs from 'node:fs';
import os from 'node:os';
import { TextBuffer } from '../src/core/text/index.ts';
import { collectGarbage, percentile, readPositive } from './support.ts';
import { seeded } from '../test/support/random.ts';

const DOC_MB = readPositive('BENCH_DOC_MB', 50);
const LOOM_OPS = Math.round(readPositive('BENCH_OPS', 2000));
const ANCHOR_OPS = Math.round(readPositive('BENCH_ANCHOR_OPS', 50));
// Slices, as in bench/hosted-throughput: the CPU a thread gets on a shared VM drifts within
// seconds, so each Loom slice is measured next to an anchor slice (docs/BENCHMARKS.md).
const ROUNDS = 5;
const WARMUP_OPS = 300;
const LOOKUPS = 20_000;
const GOAL_RATIO = 100;
const GOAL_P99_MS = 1;

interface Edit {
  /** Where, as a fraction of the document's length when the edit is applied. */
  at: number;
  remove: number;
  text: string;
}

type Kind = 'insert' | 'replace';

interface Latencies {
  /** Milliseconds per operation. */
  samples: number[];
  /** The same, of the multi-line pastes alone. */
  pastes: number[];
  /** How much the edits lengthened the document, to check the result against. */
  growth: number;
  /** CPU time of this thread over the slices, in ns; undefined where schedstat is missing. */
  cpuNanos: number | undefined;
}

const newLatencies = (): Latencies => ({ samples: [], pastes: [], growth: 0, cpuNanos: 0 });

const random = seeded(42);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const NAMES = ['currentValue', 'parsedResult', 'lineIndex', 'sourceBuffer', 'renderOptions', 'request', 'eventHandler', 'count', 'syntaxNode', 'items'];
const CALLS = ['compute', 'parse', 'render', 'dispatch', 'resolve', 'update', 'validate', 'emit'];

/** One line of TypeScript-looking code, 42 characters on average (as in real code), ASCII only. */
function sourceLine(): string {
  const indent = '  '.repeat(1 + Math.floor(random() * 4));
  const roll = random();
  if (roll < 0.06) return '';
  if (roll < 0.14) return `${indent}}`;
  if (roll < 0.26) return `${indent}// ${pick(CALLS)} the ${pick(NAMES)} before we ${pick(CALLS)} it`;
  if (roll < 0.38) return `${indent}if (${pick(NAMES)}.length > ${Math.floor(random() * 1000)}) {`;
  if (roll < 0.52) return `${indent}return this.${pick(CALLS)}(${pick(NAMES)}, ${pick(NAMES)});`;
  return `${indent}const ${pick(NAMES)}${Math.floor(random() * 100)} = ${pick(CALLS)}(${pick(NAMES)}, ${Math.floor(random() * 100)});`;
}

function sourceLines(count: number): string {
  return Array.from({ length: count }, sourceLine).join('\n') + '\n';
}

/** A generated source file of at least `megabytes` MB (one byte per character: ASCII). */
function sourceDocument(megabytes: number): string {
  const target = megabytes * 1024 * 1024;
  const lines: string[] = [];
  let size = 0;
  while (size < target) {
    const line = sourceLine();
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

/** Keystroke-sized inserts, some new lines, and a multi-line paste one time in thirty. */
function insertEdit(): Edit {
  const roll = random();
  const text = roll < 0.9 ? pick([...'abcdefghijklmnopqrstuvwxyz(){};., ']) : roll < 0.967 ? '\n    ' : sourceLines(5 + Math.floor(random() * 36));
  return { at: random(), remove: 0, text };
}

/** Renames and retyped words, some whole lines, and a paste over a block one time in thirty. */
function replaceEdit(): Edit {
  const roll = random();
  if (roll < 0.9) return { at: random(), remove: 1 + Math.floor(random() * 12), text: pick(NAMES) + pick(['', '2', 'Next']) };
  if (roll < 0.967) return { at: random(), remove: Math.floor(random() * 80), text: sourceLine() };
  return { at: random(), remove: 100 + Math.floor(random() * 1900), text: sourceLines(5 + Math.floor(random() * 36)) };
}

function edits(kind: Kind, count: number): Edit[] {
  return Array.from({ length: count }, kind === 'insert' ? insertEdit : replaceEdit);
}

/** The offset and the length to remove of an edit on a document of `length` code units. */
function placeEdit(edit: Edit, length: number): { offset: number; remove: number } {
  const offset = Math.floor(edit.at * (length + 1));
  return { offset, remove: Math.min(edit.remove, length - offset) };
}

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

const isPaste = (edit: Edit): boolean => edit.text.length > 100;

function record(into: Latencies, edit: Edit, ms: number): void {
  into.samples.push(ms);
  if (isPaste(edit)) into.pastes.push(ms);
}

function applyLoom(buffer: TextBuffer, batch: Edit[], into: Latencies): void {
  for (const edit of batch) {
    const { offset, remove } = placeEdit(edit, buffer.length);
    const start = nowMs();
    buffer.replace(offset, remove, edit.text);
    record(into, edit, nowMs() - start);
    into.growth += edit.text.length - remove;
  }
}

/**
 * The anchor's edit. V8 concatenates lazily (a "cons string" in O(1)) and copies the whole
 * document at the next read; reading the edited character, as any next use of the document
 * does, makes the copy happen here, inside the measurement, instead of somewhere later.
 */
function applyAnchor(document: string, batch: Edit[], into: Latencies): string {
  for (const edit of batch) {
    const { offset, remove } = placeEdit(edit, document.length);
    const start = nowMs();
    document = document.slice(0, offset) + edit.text + document.slice(offset + remove);
    document.charCodeAt(offset);
    record(into, edit, nowMs() - start);
  }
  return document;
}

function mean(samples: number[]): number {
  return samples.reduce((sum, value) => sum + value, 0) / samples.length;
}

function formatMs(ms: number): string {
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 1) return `${ms.toFixed(1)} ms`;
  return `${(ms * 1000).toFixed(1)} µs`;
}

function describe(samples: number[]): string {
  const figures = [`mean ${formatMs(mean(samples))}`, `p50 ${formatMs(percentile(samples, 0.5))}`];
  figures.push(`p99 ${formatMs(percentile(samples, 0.99))}`, `max ${formatMs(Math.max(...samples))}`);
  return `${figures.join(', ')} (${samples.length} ops)`;
}

interface EditResult {
  kind: Kind;
  loom: Latencies;
  anchor: Latencies;
}

/**
 * Measures one kind of edit, alternating Loom and anchor slices and flipping which goes
 * first each round. The anchor's document is the same text as Loom's at the start.
 */
function compareEdits(kind: Kind, buffer: TextBuffer, document: string): EditResult {
  const loomEdits = edits(kind, LOOM_OPS);
  const anchorEdits = edits(kind, ANCHOR_OPS);
  const loom = newLatencies();
  const anchor = newLatencies();
  for (let round = 0; round < ROUNDS; round++) {
    const slice = <T>(items: T[]) => items.slice(Math.floor((round * items.length) / ROUNDS), Math.floor(((round + 1) * items.length) / ROUNDS));
    const runLoom = () => timeCpu(loom, () => applyLoom(buffer, slice(loomEdits), loom));
    const runAnchor = () =>
      timeCpu(anchor, () => {
        document = applyAnchor(document, slice(anchorEdits), anchor);
      });
    for (const run of round % 2 === 0 ? [runAnchor, runLoom] : [runLoom, runAnchor]) {
      collectGarbage();
      run();
    }
  }
  return { kind, loom, anchor };
}

/**
 * Nanoseconds the calling thread has spent on a CPU (Linux). Unlike wall time it does not
 * count the slices the VM gives to others, which on a shared machine make the max of a 5 µs
 * operation jump to milliseconds (docs/BENCHMARKS.md).
 */
function threadCpuNanos(): number | undefined {
  try {
    return Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

function timeCpu(into: Latencies, run: () => void): void {
  const before = threadCpuNanos();
  run();
  const after = threadCpuNanos();
  into.cpuNanos = before === undefined || after === undefined || into.cpuNanos === undefined ? undefined : into.cpuNanos + after - before;
}

function cpuPerOpMs(side: Latencies): number | undefined {
  return side.cpuNanos === undefined ? undefined : side.cpuNanos / 1e6 / side.samples.length;
}

/** "CPU/op: loom 4.1 µs, anchor 40.2 ms (anchor/loom 9805x)", or '' without schedstat. */
function formatCpu(loom: Latencies, anchor: Latencies): string {
  const loomCpu = cpuPerOpMs(loom);
  const anchorCpu = cpuPerOpMs(anchor);
  if (loomCpu === undefined || anchorCpu === undefined) return '';
  return `\n  CPU/op: loom ${formatMs(loomCpu)}, anchor ${formatMs(anchorCpu)} (anchor/loom ${(anchorCpu / loomCpu).toFixed(0)}x)`;
}

function reportEdits({ kind, loom, anchor }: EditResult): boolean {
  const ratio = mean(anchor.samples) / mean(loom.samples);
  const p99 = percentile(loom.samples, 0.99);
  const met = ratio >= GOAL_RATIO && p99 < GOAL_P99_MS;
  console.log(`${kind}:`);
  console.log(`  loom   ${describe(loom.samples)}`);
  console.log(`  anchor ${describe(anchor.samples)}`);
  // The anchor's cost is the copy of the document whatever the edit, so only Loom's is split.
  if (loom.pastes.length > 0) console.log(`  loom, multi-line pastes only: ${describe(loom.pastes)}`);
  console.log(`  anchor/loom (means) ${ratio.toFixed(0)}x (goal >= ${GOAL_RATIO}x, p99 < ${GOAL_P99_MS} ms${met ? '' : ', MISSED'})` + formatCpu(loom, anchor));
  return met;
}

/** Times `count` calls of `lookup`, one at a time; returns the latencies in ms. */
function timeLookups(count: number, lookup: (index: number) => unknown): number[] {
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = nowMs();
    lookup(index);
    samples.push(nowMs() - start);
  }
  return samples;
}

/**
 * The lookup anchor: a line-start array over a string that never changes, searched by
 * bisection. It is what the lookups cost when edits need not be supported (any edit would
 * have to rebuild it); Loom's figure as a multiple of it is the price of editability.
 */
class StaticLineIndex {
  private readonly starts: Uint32Array;
  constructor(private readonly text: string) {
    const starts = [0];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    this.starts = Uint32Array.from(starts);
  }
  get lineCount(): number {
    return this.starts.length;
  }
  offsetAt(line: number, column: number): number {
    return this.starts[line]! + column;
  }
  positionAt(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low, column: offset - this.starts[low]! };
  }
  getLine(line: number): string {
    const end = line + 1 < this.starts.length ? this.starts[line + 1]! - 1 : this.text.length;
    return this.text.slice(this.starts[line]!, end);
  }
}

function reportLookups(buffer: TextBuffer, document: string): void {
  const index = new StaticLineIndex(document);
  const lines = Array.from({ length: LOOKUPS }, () => Math.floor(random() * buffer.lineCount));
  const offsets = Array.from({ length: LOOKUPS }, () => Math.floor(random() * (buffer.length + 1)));
  const anchorLines = lines.map((line) => Math.min(line, index.lineCount - 1));
  const anchorOffsets = offsets.map((offset) => Math.min(offset, document.length));
  const lookups: [string, (i: number) => unknown, (i: number) => unknown][] = [
    ['lineCount', () => buffer.lineCount, () => index.lineCount],
    ['offsetAt', (i) => buffer.offsetAt(lines[i]!, 0), (i) => index.offsetAt(anchorLines[i]!, 0)],
    ['positionAt', (i) => buffer.positionAt(offsets[i]!), (i) => index.positionAt(anchorOffsets[i]!)],
    ['getLine', (i) => buffer.getLine(lines[i]!), (i) => index.getLine(anchorLines[i]!)],
  ];
  console.log(`lookups (${LOOKUPS} each, on the edited document; anchor: a static line-start array over a string):`);
  for (const [name, loom, anchor] of lookups) {
    timeLookups(1000, loom); // warm-up
    timeLookups(1000, anchor);
    const loomSamples = timeLookups(LOOKUPS, loom);
    const anchorSamples = timeLookups(LOOKUPS, anchor);
    const ratio = mean(loomSamples) / mean(anchorSamples);
    console.log(
      `  ${name.padEnd(10)} loom p50 ${formatMs(percentile(loomSamples, 0.5))}, p99 ${formatMs(percentile(loomSamples, 0.99))}` +
        ` | anchor p50 ${formatMs(percentile(anchorSamples, 0.5))}, p99 ${formatMs(percentile(anchorSamples, 0.99))}` +
        ` | loom/anchor (means) ${ratio.toFixed(1)}x`,
    );
  }
}

interface Memory {
  heapUsed: number;
  external: number;
}

function memory(): Memory {
  // Twice: V8 frees the backing stores of dead typed arrays after a collection, concurrently;
  // the second one waits for that, or external shows buffers that are already garbage.
  collectGarbage();
  collectGarbage();
  const { heapUsed, external } = process.memoryUsage();
  return { heapUsed, external };
}

function formatGrowth(before: Memory, after: Memory): string {
  const mb = (bytes: number) => `${bytes < 0 ? '' : '+'}${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `heapUsed ${mb(after.heapUsed - before.heapUsed)}, external ${mb(after.external - before.external)}`;
}

/**
 * Checks that the figures are of a working buffer: its length is the one the edits imply,
 * and its line index agrees with a rescan of its own text (the unit tests check the text).
 */
function checkConsistent(buffer: TextBuffer, expectedLength: number): boolean {
  const text = buffer.getText();
  const lines = text.split(/\r\n|\r|\n/);
  const sampled = [0, 1, lines.length >> 1, lines.length - 2, lines.length - 1].filter((line) => line >= 0);
  const ok =
    buffer.length === expectedLength &&
    text.length === expectedLength &&
    buffer.lineCount === lines.length &&
    sampled.every((line) => buffer.getLine(line) === lines[line]);
  if (!ok) console.error('FAILED: the buffer disagrees with its own text; the figures are void.');
  return ok;
}

/** Runs both sides' code paths until V8 has optimised them, on copies the figures never see. */
function warmUp(document: string): void {
  const scratch = new TextBuffer(document);
  applyLoom(scratch, [...edits('insert', WARMUP_OPS), ...edits('replace', WARMUP_OPS)], newLatencies());
  applyAnchor(document, edits('replace', 3), newLatencies());
}

function main(): void {
  const document = sourceDocument(DOC_MB);
  const lineCount = document.split('\n').length;
  console.log(
    `buffer: ${(document.length / 1024 / 1024).toFixed(1)} MB document, ${lineCount.toLocaleString('en-US')} lines; ` +
      `${LOOM_OPS} TextBuffer / ${ANCHOR_OPS} anchor edits per kind in ${ROUNDS} alternating slices; ` +
      `${os.availableParallelism()} cores, node ${process.version}`,
  );
  const empty = memory();
  const buildStart = nowMs();
  const buffer = new TextBuffer(document);
  const buildMs = nowMs() - buildStart;
  const built = memory();
  console.log(`open: new TextBuffer(document) ${formatMs(buildMs)}; memory over the document: ${formatGrowth(empty, built)}`);
  warmUp(document);

  const results = (['insert', 'replace'] as const).map((kind) => compareEdits(kind, buffer, document));
  const edited = memory();
  const { pieces, depth } = buffer.shape();
  console.log(`after the edits: ${pieces} pieces, tree depth ${depth}; memory over the document: ${formatGrowth(empty, edited)}\n`);

  const goals = results.map(reportEdits).every(Boolean);
  reportLookups(buffer, document);
  const expectedLength = document.length + results.reduce((sum, result) => sum + result.loom.growth, 0);
  if (!checkConsistent(buffer, expectedLength)) process.exitCode = 1;
  console.log(goals ? '\nGoals met.' : '\nSome goals MISSED.');
}

main();
