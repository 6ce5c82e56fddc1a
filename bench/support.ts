// Helpers every benchmark shares.
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
