// The suggestion decoder: greedy, token by token, up to the end of the line. At each step the
// occurrences of the context vote on the next token (evidence.ts) and the calibrated
// confidence of the leading candidate (calibration.ts) decides: go on while the joint
// confidence of the whole suggestion stays above the threshold, else stop. Saying nothing is
// the default; a suggestion needs agreeing evidence.

import { confidenceOf, features, type Calibrator, type LineState } from './calibration.ts';
import { END, gatherEvidence, type Evidence, type Source } from './evidence.ts';
import { MAX_MATCH } from './occurrence-index.ts';
import { BOUNDARY, LINE_BREAK, type LocalVocabulary } from './vocabulary.ts';

export interface DecoderSettings {
  /** Chain steps per level in the project / in the current file. */
  projectWalk: number;
  fileWalk: number;
  /** Occurrences after which shorter contexts are not looked up. */
  enough: number;
  /** Weight of an occurrence: (match length) ^ matchPower, times fileWeight in the file. */
  matchPower: number;
  fileWeight: number;
  /** Extra weight of occurrences near the cursor (see GatherSettings). */
  recencyBoost: number;
  recencyScale: number;
  /** Minimum joint confidence of the whole suggestion. */
  threshold: number;
  /** Minimum confidence of each token. */
  stepThreshold: number;
  /** The utility of a suggestion (see utility()): characters a right one is worth beyond its
   * length, and characters a wrong one costs. */
  acceptBonus: number;
  wrongCost: number;
  /** Confidence that a known token at the cursor is finished, when nothing says it goes on. */
  pendingDefault: number;
  /** Calibration network (calibration.ts); the fitted one when unset. */
  calibration?: Calibrator;
}

export const DEFAULT_SETTINGS: DecoderSettings = {
  projectWalk: 256,
  fileWalk: 256,
  enough: 24,
  matchPower: 2,
  fileWeight: 4,
  recencyBoost: 0,
  recencyScale: 200,
  threshold: 0.4,
  stepThreshold: 0.05,
  acceptBonus: 4,
  wrongCost: 12,
  pendingDefault: 1,
};

export interface DecodeInput {
  /** The tokens before the cursor; only the last MAX_MATCH matter. */
  context: ArrayLike<number>;
  contextLength: number;
  /** The unfinished token at the cursor ('' for none). */
  pending: string;
  sources: Source[];
  vocabulary: LocalVocabulary;
  maxTokens: number;
  stop?: (text: string) => number | undefined;
  settings: DecoderSettings;
  /** Told of each token taken, with its confidence (diagnostics, policy experiments). */
  onStep?: (piece: string, confidence: number) => void;
}

export interface DecodeResult {
  text: string;
  tokens: number;
  /** Joint confidence of the text. */
  confidence: number;
}

/** The last MAX_MATCH tokens before the cursor, as a growable window. */
function window(input: DecodeInput): number[] {
  const context: number[] = [];
  for (let i = Math.max(0, input.contextLength - MAX_MATCH - 1); i < input.contextLength; i++) context.push(input.context[i]!);
  return context;
}

/**
 * The worth of suggesting `chars` characters that are right with probability `p`: what a
 * right one saves, less what a wrong one costs (reading it, dismissing it). The decoder
 * stops where this is highest, so a longer suggestion must be worth its added risk.
 */
export function utility(chars: number, p: number, settings: DecoderSettings): number {
  return p * (chars + settings.acceptBonus) - settings.wrongCost * (1 - p);
}

/** Decodes a suggestion; '' when the evidence does not agree enough. */
export function decode(input: DecodeInput): DecodeResult {
  const { vocabulary, settings, pending } = input;
  const nothing: DecodeResult = { text: '', tokens: 0, confidence: 0 };
  const context = window(input);
  let text = '';
  let confidence = 1;
  let tokens = 0;
  let filter: string | undefined;
  let best = nothing;
  const consider = () => {
    const chars = text.trimEnd().length;
    if (chars > 0 && utility(chars, confidence, settings) > utility(best.text.trimEnd().length, best.confidence, settings)) best = { text, tokens, confidence };
  };

  // An unfinished word at the cursor: settle which token it is before predicting what follows.
  if (pending.trim() !== '') {
    const settled = settlePending(input, context);
    if (!settled || settled.confidence < settings.threshold) return nothing;
    confidence = settled.confidence;
    context.push(settled.id);
    text = vocabulary.text(settled.id).slice(pending.length);
    input.onStep?.(text, settled.confidence);
    if (text !== '') tokens++;
    consider();
  } else if (pending !== '') filter = pending; // whitespace: the next token starts with it

  // Greedy to the end of the line or until the joint confidence is too low; then the best
  // place to stop on the way.
  for (let depth = 0; tokens < input.maxTokens; depth++) {
    const only = filter;
    const evidence = gatherEvidence(context, input.sources, settings, only === undefined ? undefined : (id) => id !== END && vocabulary.text(id).startsWith(only));
    const step = stepConfidence(evidence, depth, input, context);
    const top = evidence.candidates[0];
    if (!top || top.id === END) break;
    if (step < settings.stepThreshold || confidence * step < settings.threshold) break;
    let piece = vocabulary.text(top.id);
    if (filter !== undefined) piece = piece.slice(filter.length);
    filter = undefined;
    const candidate = text + piece;
    tokens++;
    confidence *= step;
    input.onStep?.(piece, step);
    const cut = input.stop?.(candidate);
    text = cut === undefined ? candidate : candidate.slice(0, cut);
    consider();
    if (cut !== undefined) break;
    context.push(top.id);
  }
  return best;
}

function stepConfidence(evidence: Evidence, depth: number, input: DecodeInput, context: number[]): number {
  const top = evidence.candidates[0];
  if (!top) return 0;
  const text = top.id === END ? '' : input.vocabulary.text(top.id);
  return confidenceOf(features(evidence, text, depth, lineState(context, input.vocabulary)), input.settings.calibration);
}

/** Tokens and open brackets from the last line break of the context window to its end. */
function lineState(context: number[], vocabulary: LocalVocabulary): LineState {
  let open = 0;
  let i = context.length - 1;
  for (; i >= 0 && context[i] !== LINE_BREAK && context[i] !== BOUNDARY; i--) {
    const text = vocabulary.text(context[i]!);
    const last = text.charCodeAt(text.length - 1);
    if (text.length <= 2 && (last === 40 || last === 91 || last === 123)) open++;
    else if (text.length <= 2 && (last === 41 || last === 93 || last === 125)) open--;
  }
  return { tokens: context.length - 1 - i, open: Math.max(0, open) };
}

/**
 * Which token the unfinished text at the cursor is, and how sure that is: the text as it is
 * when the project or the file knows it, unless occurrences of the context say it goes on
 * (the share of the longer tokens lowers the confidence).
 */
function settlePending(input: DecodeInput, context: number[]): { id: number; confidence: number } | undefined {
  const { pending, vocabulary, settings } = input;
  const known = vocabulary.lookup(pending);
  const evidence = gatherEvidence(context, input.sources, settings, (id) => id !== END && vocabulary.text(id).startsWith(pending));
  const best = evidence.candidates[0];
  if (!best) return known >= 0 ? { id: known, confidence: settings.pendingDefault } : undefined;
  const knownWeight = known >= 0 ? (evidence.candidates.find((c) => c.id === known)?.weight ?? 0) : 0;
  // The text as typed stays the favourite unless a longer token clearly beats it.
  if (known >= 0 && knownWeight * 2 >= best.weight) return { id: known, confidence: settings.pendingDefault * Math.max(0.5, (knownWeight + 1) / (evidence.total + 1)) };
  return { id: best.id, confidence: best.weight / (evidence.total + 1) };
}

/** One step of a forced decode, for calibration: the features and whether the top was right. */
export interface TracedStep {
  features: number[];
  right: boolean;
}

/**
 * Walks the true continuation `truth` (token ids, END last) and records, at each step, the
 * features of the evidence and whether its leading candidate was the true next token. The
 * pending token must already be in the context.
 */
export function traceSteps(input: DecodeInput, truth: number[]): TracedStep[] {
  const context = window(input);
  const steps: TracedStep[] = [];
  for (let depth = 0; depth < truth.length; depth++) {
    const evidence = gatherEvidence(context, input.sources, input.settings);
    const top = evidence.candidates[0];
    if (!top) break;
    const text = top.id === END ? '' : input.vocabulary.text(top.id);
    steps.push({ features: features(evidence, text, depth, lineState(context, input.vocabulary)), right: top.id === truth[depth] });
    if (truth[depth] === END) break;
    context.push(truth[depth]!);
  }
  return steps;
}
