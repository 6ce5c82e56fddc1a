// Fits the builtin model's calibration (src/core/completion/builtin/calibration.ts) on the
// TRAINING split of the quality benchmark only: each training file is completed, cursor by
// cursor as in the benchmark, against a project of all the others (the model leaves the
// current file's own copy out), and at every step of the true rest of the line the features
// of the evidence are recorded with whether the leading candidate was right. A logistic
// regression on those gives the weights to paste into calibration.ts; the development split
// then only tunes the thresholds, and the test split is only reported.
//
//   npx tsx bench/completion/support-calibration.ts     BENCH_SETTINGS: decoder settings (JSON)
import { BuiltinModel } from '../../src/core/completion/builtin/index.ts';
import { CALIBRATION, FEATURE_NAMES, confidenceOf } from '../../src/core/completion/builtin/calibration.ts';
import { loadCorpus } from './support-corpus.ts';
import { positions } from './support-metrics.ts';
import { pathToFileURL } from 'node:url';

interface Sample {
  x: number[];
  y: number;
}

export function collect(model: BuiltinModel, files: { path: string; text: string }[], pathOf: (p: string) => string): Sample[] {
  const samples: Sample[] = [];
  for (const file of files) {
    for (const position of positions(file.text)) {
      const steps = model.trace({ prefix: position.prefix, suffix: position.suffix, filePath: pathOf(file.path) }, position.truth);
      for (const step of steps) samples.push({ x: step.features, y: step.right ? 1 : 0 });
    }
  }
  return samples;
}

/** Logistic regression by full-batch gradient descent (Adam) on standardized features. */
export function fit(samples: Sample[], epochs = 600, l2 = 1e-4): number[] {
  const d = samples[0]!.x.length;
  const mean = new Array<number>(d).fill(0);
  const scale = new Array<number>(d).fill(0);
  for (const s of samples) for (let j = 0; j < d; j++) mean[j]! += s.x[j]! / samples.length;
  for (const s of samples) for (let j = 0; j < d; j++) scale[j]! += (s.x[j]! - mean[j]!) ** 2 / samples.length;
  for (let j = 0; j < d; j++) scale[j] = j === 0 || scale[j]! === 0 ? 1 : Math.sqrt(scale[j]!);
  mean[0] = 0;
  const z = samples.map((s) => s.x.map((v, j) => (j === 0 ? 1 : (v - mean[j]!) / scale[j]!)));
  const w = new Array<number>(d).fill(0);
  const m = new Array<number>(d).fill(0);
  const v = new Array<number>(d).fill(0);
  const rate = 0.05;
  for (let epoch = 1; epoch <= epochs; epoch++) {
    const grad = new Array<number>(d).fill(0);
    for (let i = 0; i < z.length; i++) {
      const x = z[i]!;
      let dot = 0;
      for (let j = 0; j < d; j++) dot += w[j]! * x[j]!;
      const error = 1 / (1 + Math.exp(-dot)) - samples[i]!.y;
      for (let j = 0; j < d; j++) grad[j]! += (error * x[j]!) / z.length;
    }
    for (let j = 1; j < d; j++) grad[j]! += l2 * w[j]!;
    for (let j = 0; j < d; j++) {
      m[j] = 0.9 * m[j]! + 0.1 * grad[j]!;
      v[j] = 0.999 * v[j]! + 0.001 * grad[j]! ** 2;
      const mh = m[j]! / (1 - 0.9 ** epoch);
      const vh = v[j]! / (1 - 0.999 ** epoch);
      w[j]! -= (rate * mh) / (Math.sqrt(vh) + 1e-8);
    }
  }
  // Back to the raw features' scale.
  const raw = w.map((wj, j) => (j === 0 ? wj : wj / scale[j]!));
  raw[0] = w[0]! - w.reduce((sum, wj, j) => (j === 0 ? sum : sum + (wj * mean[j]!) / scale[j]!), 0);
  return raw;
}

function logLoss(samples: Sample[], weights: readonly number[]): number {
  let loss = 0;
  for (const s of samples) {
    const p = Math.min(1 - 1e-9, Math.max(1e-9, confidenceOf(s.x, weights)));
    loss -= s.y ? Math.log(p) : Math.log(1 - p);
  }
  return loss / samples.length;
}

/** Predicted against observed, by bins of predicted confidence. */
function reliability(samples: Sample[], weights: readonly number[]): string {
  const bins = [0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 1.01];
  const rows: string[] = [];
  for (let b = 0; b + 1 < bins.length; b++) {
    const inBin = samples.filter((s) => {
      const p = confidenceOf(s.x, weights);
      return p >= bins[b]! && p < bins[b + 1]!;
    });
    if (inBin.length === 0) continue;
    const observed = inBin.reduce((sum, s) => sum + s.y, 0) / inBin.length;
    const predicted = inBin.reduce((sum, s) => sum + confidenceOf(s.x, weights), 0) / inBin.length;
    rows.push(`    [${bins[b]}, ${Math.min(1, bins[b + 1]!)}): ${inBin.length} steps, predicted ${predicted.toFixed(3)}, observed ${observed.toFixed(3)}`);
  }
  return rows.join('\n');
}

function main(): void {
  const settings = process.env.BENCH_SETTINGS ? JSON.parse(process.env.BENCH_SETTINGS) : undefined;
  const corpus = loadCorpus();
  const model = new BuiltinModel({ settings });
  for (const file of corpus.train) model.updateFile(file.path, file.text);
  model.indexPending();
  const train = collect(model, corpus.train, (p) => p);
  console.log(`calibration: ${train.length} steps from ${corpus.train.length} training files (each against the others)`);
  const weights = fit(train);
  console.log(`  log loss: current ${logLoss(train, CALIBRATION).toFixed(4)}, fitted ${logLoss(train, weights).toFixed(4)}`);
  console.log('  reliability of the fitted weights on the training steps:\n' + reliability(train, weights));
  console.log('  weights:');
  FEATURE_NAMES.forEach((name, j) => console.log(`    ${name.padEnd(20)} ${weights[j]!.toFixed(4)}`));
  console.log(`\nexport const CALIBRATION: readonly number[] = [${weights.map((w) => Number(w.toFixed(4))).join(', ')}];`);
}

// Run as a script (the experiments import collect and fit).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
