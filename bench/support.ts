// Helpers every benchmark shares.
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';

/** A positive number from the environment (BENCH_DURATION…), or the fallback when unset. */
export function readPositive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not "${raw}"`);
  return value;
}

/** A full garbage collection, so that one side's garbage is not collected on the other's time. */
export const collectGarbage: () => void = (() => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

/** The sample at `fraction` (0.5: the median, 0.99: p99) of the samples in ascending order. */
export function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

const SOURCE = /\.(?:[cm]?js|ts)$/;
const NOT_SOURCE = /\.d\.[cm]?ts$|\.min\.js$/;

/** The JavaScript and TypeScript files under `folder` (not .d.ts, not .min.js), in a fixed (sorted) order. */
export function* sourceFiles(folder: string): Generator<string> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory() && !entry.name.startsWith('.')) yield* sourceFiles(full);
    else if (entry.isFile() && SOURCE.test(entry.name) && !NOT_SOURCE.test(entry.name)) yield full;
  }
}

/** Hand-written looking code: not empty, not huge, not minified (short lines). */
export function readable(text: string): boolean {
  if (text.length < 512 || text.length > 256 * 1024) return false;
  const lines = text.split('\n').length;
  return text.length / lines < 100;
}
