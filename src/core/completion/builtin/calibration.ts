// Calibration: how likely the leading candidate is the right next token, from the shape of
// the evidence (how much of the weight it holds, how many occurrences and how long their
// matches, whether the current file agrees, what kind of token it is, how deep into the
// suggestion). A logistic model; its weights are fitted by bench/completion/support-calibration.ts
// on the training split of the quality benchmark (each training file completed against the
// others), so "0.9" means right nine times in ten on code the model had not seen.

import type { Evidence } from './evidence.ts';
import { END } from './evidence.ts';

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
] as const;

/** Fitted weights, one per feature (see the header). */
export const CALIBRATION: readonly number[] = [-4.284, 0.7267, 1.4924, 0.1539, -0.0441, 2.2371, -1.7495, -0.197, 0.1997, 1.5973, 1.96, 0.1786, 0.0173, 0.4346, 0.3208, -0.4229, -0.0427];

export function features(evidence: Evidence, topText: string, depth: number): number[] {
  const [top, second] = evidence.candidates;
  if (!top) return [];
  const total = evidence.total || 1;
  let otherMatch = 0;
  for (let i = 1; i < evidence.candidates.length; i++) otherMatch = Math.max(otherMatch, evidence.candidates[i]!.maxMatch);
  const projectTotal = evidence.total - evidence.fileWeight;
  const projectTop = top.weight - top.fileWeight;
  const core = topText.trimStart();
  const isWord = top.id !== END && /^[\w$]/.test(core);
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
    top.id === END ? 1 : 0,
    isWord ? 1 : 0,
    top.id !== END && !isWord && !/^["'`]/.test(core) ? 1 : 0,
    depth === 0 ? 1 : 0,
    Math.log1p(depth),
  ];
}

export function confidenceOf(x: number[], weights: readonly number[] = CALIBRATION): number {
  if (x.length === 0) return 0;
  let z = 0;
  for (let i = 0; i < x.length; i++) z += x[i]! * (weights[i] ?? 0);
  return 1 / (1 + Math.exp(-z));
}
