// Calibration: how likely the leading candidate is the right next token, from the shape of
// the evidence (how much of the weight it holds, how many occurrences and how long their
// matches, whether the current file agrees and how near, what kind of token it is, where in
// the line and how deep into the suggestion). A small neural network (one hidden layer of
// rectifiers, then a logistic output): the features interact (a high share means little with
// two occurrences, much with forty). Its weights are fitted by
// bench/completion/support-calibration.ts on the training split of the quality benchmark (each
// training file completed against the others), so "0.9" means right nine times in ten on code
// the model had not seen.

import { FITTED } from './calibration-weights.ts';
import type { Evidence } from './evidence.ts';
import { END } from './evidence.ts';

/** A fitted calibration network. */
export interface Calibrator {
  /** Per feature: subtracted, then divided by (standardization). */
  mean: readonly number[];
  scale: readonly number[];
  /** hidden[k][j]: weight of feature j in hidden unit k; then the unit's bias. */
  hidden: readonly (readonly number[])[];
  hiddenBias: readonly number[];
  /** Weights of the hidden units in the output, and its bias. */
  output: readonly number[];
  outputBias: number;
}

export const FEATURE_NAMES = [
  'bias',
  'share',
  'second share',
  'log top count',
  'log other count',
  'log top match',
  'log other match',
  'file agrees',
  'log top file count',
  'file share',
  'project share',
  'log distinct',
  'is end',
  'is word',
  'is punctuation',
  'first step',
  'log depth',
  'near-longest share',
  'log near-longest count',
  'log match beyond line',
  'log line tokens',
  'open brackets',
  'is string',
  'is closer',
  'is dot',
  'log nearest in file',
  'nearest is top',
  'previous share',
  'log previous match',
  'log project count',
] as const;

/** Where the decoder is: in its line, and how the suggestion's last step went. */
export interface StepState {
  /** Tokens from the start of the line to the cursor (the suggestion so far included). */
  tokens: number;
  /** Brackets opened in the line and not closed yet. */
  open: number;
  /** The leader's share of the weight and its longest match at the previous step (1, 0 at the first). */
  previousShare: number;
  previousMatch: number;
}

export function features(evidence: Evidence, topText: string, depth: number, line: StepState): number[] {
  const [top, second] = evidence.candidates;
  if (!top) return [];
  const total = evidence.total || 1;
  let otherMatch = 0;
  let nearestOther = Infinity;
  for (let i = 1; i < evidence.candidates.length; i++) {
    const candidate = evidence.candidates[i]!;
    otherMatch = Math.max(otherMatch, candidate.maxMatch);
    nearestOther = Math.min(nearestOther, candidate.nearest);
  }
  const projectTotal = evidence.total - evidence.fileWeight;
  const projectTop = top.weight - top.fileWeight;
  const core = topText.trimStart();
  const isEnd = top.id === END;
  const isWord = !isEnd && /^[\w$]/.test(core);
  const isString = !isEnd && /^["'`]/.test(core);
  return [
    1,
    top.weight / total,
    second ? second.weight / total : 0,
    Math.log1p(top.count),
    Math.log1p(evidence.count - top.count),
    Math.log1p(top.maxMatch),
    Math.log1p(otherMatch),
    top.fileCount > 0 ? 1 : 0,
    Math.log1p(top.fileCount),
    evidence.fileWeight > 0 ? top.fileWeight / evidence.fileWeight : 0,
    projectTotal > 0 ? projectTop / projectTotal : 0,
    Math.log1p(evidence.candidates.length),
    isEnd ? 1 : 0,
    isWord ? 1 : 0,
    !isEnd && !isWord && !isString ? 1 : 0,
    depth === 0 ? 1 : 0,
    Math.log1p(depth),
    evidence.nearMax > 0 ? evidence.nearMaxTop / evidence.nearMax : 0,
    Math.log1p(evidence.nearMax),
    Math.log1p(Math.max(0, top.maxMatch - line.tokens)),
    Math.log1p(line.tokens),
    Math.min(line.open, 4),
    isString ? 1 : 0,
    /^[)\]}]/.test(core) ? 1 : 0,
    core === '.' || core === '?.' ? 1 : 0,
    top.nearest === Infinity ? 0 : Math.log1p(top.nearest) / 10,
    top.nearest < nearestOther ? 1 : 0,
    line.previousShare,
    Math.log1p(line.previousMatch),
    Math.log1p(evidence.count - evidence.fileCount),
  ];
}

/** The probability that the leading candidate is right, given its features. */
export function confidenceOf(x: number[], calibrator: Calibrator = FITTED): number {
  if (x.length === 0) return 0;
  const { mean, scale, hidden, hiddenBias, output } = calibrator;
  let z = calibrator.outputBias;
  for (let k = 0; k < hidden.length; k++) {
    const row = hidden[k]!;
    let a = hiddenBias[k]!;
    for (let j = 0; j < x.length; j++) a += row[j]! * ((x[j]! - mean[j]!) / scale[j]!);
    if (a > 0) z += output[k]! * a;
  }
  return 1 / (1 + Math.exp(-z));
}
