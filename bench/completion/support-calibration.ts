// Fits the builtin model's calibration network (src/core/completion/builtin/calibration.ts) on
// the TRAINING split of the quality benchmark only: each training file is completed, cursor by
// cursor as in the benchmark, against a project of all the others (the model leaves the
// current file's own copy out), and at every step of the true rest of the line the features
// of the evidence are recorded with whether the leading candidate was right. The development
// split then only tunes the thresholds, and the test split is only reported.
//
//   npx tsx bench/completion/support-calibration.ts [--write]
//     --write: replace src/core/completion/builtin/calibration-weights.ts with the fit
//     BENCH_SETTINGS: decoder settings (JSON) to collect the evidence with
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BuiltinModel } from '../../src/core/completion/builtin/index.ts';
import { FEATURE_NAMES, confidenceOf, type Calibrator } from '../../src/core/completion/builtin/calibration.ts';
import { loadCorpus, type CorpusFile } from './support-corpus.ts';
import { positions } from './support-metrics.ts';
import { seeded } from '../../test/support/random.ts';

export interface Sample {
  x: number[];
  y: number;
}

/** One training file in this many is traced with no project (see collect). */
const FILE_ONLY_EVERY = 4;

const WEIGHTS_FILE = fileURLToPath(new URL('../../src/core/completion/builtin/calibration-weights.ts', import.meta.url));

/**
 * The traced steps of every cursor of `files`, each file completed as `pathOf(file)`. One file
 * in `fileOnlyEvery` is completed with the project left out, as a hosted request for a file
 * the server never saw, so that calibration knows what the file's evidence alone is worth.
 */
export function collect(model: BuiltinModel, files: CorpusFile[], pathOf: (p: string) => string, fileOnlyEvery = 0): Sample[] {
  const samples: Sample[] = [];
  for (const [i, file] of files.entries()) {
    const settings = fileOnlyEvery > 0 && i % fileOnlyEvery === fileOnlyEvery - 1 ? { projectWalk: 0 } : undefined;
    for (const position of positions(file.text)) {
      const steps = model.trace({ prefix: position.prefix, suffix: position.suffix, filePath: pathOf(file.path), settings }, position.truth);
      for (const step of steps) samples.push({ x: step.features, y: step.right ? 1 : 0 });
    }
  }
  return samples;
}

/** A one-hidden-layer network fitted by plain SGD on the log loss, learning rate decaying. */
export function fitNetwork(samples: Sample[], options: { hidden?: number; epochs?: number; rate?: number } = {}): Calibrator {
  const hiddenUnits = options.hidden ?? 32;
  const epochs = options.epochs ?? 24;
  const d = samples[0]!.x.length;
  const random = seeded(7);
  const mean = new Array<number>(d).fill(0);
  const scale = new Array<number>(d).fill(0);
  for (const s of samples) for (let j = 0; j < d; j++) mean[j]! += s.x[j]! / samples.length;
  for (const s of samples) for (let j = 0; j < d; j++) scale[j]! += (s.x[j]! - mean[j]!) ** 2 / samples.length;
  for (let j = 0; j < d; j++) {
    // A constant feature (the bias) is left as it is: its "standardized" value is noise.
    if (scale[j]! < 1e-12) [mean[j], scale[j]] = [0, 1];
    else scale[j] = Math.sqrt(scale[j]!);
  }
  const xs = samples.map((s) => s.x.map((v, j) => (v - mean[j]!) / scale[j]!));
  const hidden = Array.from({ length: hiddenUnits }, () => Array.from({ length: d }, () => (random() - 0.5) * 0.3));
  const hiddenBias = new Array<number>(hiddenUnits).fill(0);
  const output = Array.from({ length: hiddenUnits }, () => (random() - 0.5) * 0.3);
  let outputBias = 0;
  const activations = new Array<number>(hiddenUnits).fill(0);
  const order = xs.map((_, i) => i);
  for (let epoch = 0; epoch < epochs; epoch++) {
    const rate = (options.rate ?? 0.01) * (1 - (0.9 * epoch) / epochs);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const i of order) {
      const x = xs[i]!;
      let z = outputBias;
      for (let k = 0; k < hiddenUnits; k++) {
        const row = hidden[k]!;
        let a = hiddenBias[k]!;
        for (let j = 0; j < d; j++) a += row[j]! * x[j]!;
        activations[k] = a > 0 ? a : 0;
        z += output[k]! * activations[k]!;
      }
      const error = 1 / (1 + Math.exp(-z)) - samples[i]!.y;
      for (let k = 0; k < hiddenUnits; k++) {
        if (activations[k]! > 0) {
          const g = error * output[k]!;
          const row = hidden[k]!;
          for (let j = 0; j < d; j++) row[j]! -= rate * g * x[j]!;
          hiddenBias[k]! -= rate * g;
        }
        output[k]! -= rate * error * activations[k]!;
      }
      outputBias -= rate * error;
    }
  }
  return { mean, scale, hidden, hiddenBias, output, outputBias };
}

export function logLoss(samples: Sample[], calibrator?: Calibrator): number {
  let loss = 0;
  for (const s of samples) {
    const p = Math.min(1 - 1e-9, Math.max(1e-9, confidenceOf(s.x, calibrator)));
    loss -= s.y ? Math.log(p) : Math.log(1 - p);
  }
  return loss / samples.length;
}

/** Predicted against observed, by bins of predicted confidence. */
function reliability(samples: Sample[], calibrator: Calibrator): string {
  const bins = [0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 1.01];
  const rows: string[] = [];
  for (let b = 0; b + 1 < bins.length; b++) {
    let count = 0;
    let observed = 0;
    let predicted = 0;
    for (const s of samples) {
      const p = confidenceOf(s.x, calibrator);
      if (p < bins[b]! || p >= bins[b + 1]!) continue;
      count++;
      observed += s.y;
      predicted += p;
    }
    if (count > 0)
      rows.push(
        `    [${bins[b]}, ${Math.min(1, bins[b + 1]!)}): ${count} steps, predicted ${(predicted / count).toFixed(3)}, observed ${(observed / count).toFixed(3)}`,
      );
  }
  return rows.join('\n');
}

const round = (values: readonly number[]) => `[${values.map((v) => Number(v.toPrecision(5))).join(', ')}]`;

function weightsSource(calibrator: Calibrator, steps: number): string {
  return [
    '// Generated by bench/completion/support-calibration.ts --write: the calibration network',
    `// fitted on ${steps} traced steps of the quality benchmark's training split. Do not edit.`,
    `// Features (in order): ${FEATURE_NAMES.join(', ')}.`,
    "import type { Calibrator } from './calibration.ts';",
    '',
    'export const FITTED: Calibrator = {',
    `  mean: ${round(calibrator.mean)},`,
    `  scale: ${round(calibrator.scale)},`,
    '  hidden: [',
    ...calibrator.hidden.map((row) => `    ${round(row)},`),
    '  ],',
    `  hiddenBias: ${round(calibrator.hiddenBias)},`,
    `  output: ${round(calibrator.output)},`,
    `  outputBias: ${Number(calibrator.outputBias.toPrecision(5))},`,
    '};',
    '',
  ].join('\n');
}

function main(): void {
  const settings = process.env.BENCH_SETTINGS ? JSON.parse(process.env.BENCH_SETTINGS) : undefined;
  const corpus = loadCorpus();
  const model = new BuiltinModel({ settings });
  for (const file of corpus.train) model.updateFile(file.path, file.text);
  model.indexPending();
  const train = collect(model, corpus.train, (p) => p, FILE_ONLY_EVERY);
  console.log(
    `calibration: ${train.length} steps from ${corpus.train.length} training files (each against the others; ` + `one in ${FILE_ONLY_EVERY} with no project)`,
  );
  const calibrator = fitNetwork(train);
  console.log(`  log loss on the training steps: fitted ${logLoss(train, calibrator).toFixed(4)}`);
  console.log('  reliability of the fit on the training steps:\n' + reliability(train, calibrator));
  if (process.argv.includes('--write')) {
    fs.writeFileSync(WEIGHTS_FILE, weightsSource(calibrator, train.length));
    console.log(`  written to ${WEIGHTS_FILE}`);
  }
}

// Run as a script (the experiments import collect and fitNetwork).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
