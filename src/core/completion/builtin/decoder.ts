// The suggestion decoder: greedy, token by token, up to the end of the line. At each step the
// occurrences of the context vote on the next token (evidence.ts) and calibration
// (calibration.ts) says how likely the leading candidate is right; the product of those is the
// probability that the whole suggestion so far is right. The decoder goes on while that stays
// above a floor, then answers with the prefix of the way that is worth the most (utility():
// characters saved against the cost of a wrong suggestion, and a bonus for a finished line).
// Saying nothing is worth 0, so it is the answer unless a suggestion is worth more.

import { confidenceOf, features, type Calibrator, type StepState } from './calibration.ts';
import { END, gatherEvidence, type Evidence, type Keys, type Source } from './evidence.ts';
import { MAX_MATCH } from './occurrence-index.ts';
import type { Scope } from './scope.ts';
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
  /** What a literal that differs from the context's takes off an occurrence's match length. */
  literalPenalty: number;
  /** Minimum joint confidence of the whole suggestion. */
  threshold: number;
  /** Minimum confidence of each token. */
  stepThreshold: number;
  /** The utility of a suggestion (see utility()): characters a right one is worth beyond its
   * length, and characters a wrong one costs. */
  acceptBonus: number;
  wrongCost: number;
  /** What finishing the whole line is worth on top (characters). */
  lineBonus: number;
  /** Confidence that a known token at the cursor is finished, when nothing says it goes on. */
  pendingDefault: number;
  /** Calibration network (calibration.ts); the fitted one when unset. */
  calibration?: Calibrator;
  /** Confidence that the one name in scope (scope.ts) the typed letters start is meant, when nothing else votes. */
  scopeConfidence: number;
  /** Letters typed before a name in scope is proposed (the benchmark types 3; 2 is a guess, not measured). */
  scopeMinChars: number;
}

export const DEFAULT_SETTINGS: DecoderSettings = {
  projectWalk: 256,
  fileWalk: 256,
  enough: 24,
  matchPower: 3,
  fileWeight: 4,
  literalPenalty: 1,
  threshold: 0.3,
  stepThreshold: 0.05,
  acceptBonus: 1,
  wrongCost: 26,
  lineBonus: 5,
  pendingDefault: 1,
  scopeConfidence: 0.9,
  scopeMinChars: 2,
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
  /** The text after the cursor on its line: a bracket it closes is not suggested again. */
  suffixLine?: string;
  /** What the context's tokens match as (evidence.ts); each only itself when not given. */
  keys?: Keys;
  /** The names in scope (scope.ts), when the code index is on. */
  scope?: Scope;
}

export interface DecodeResult {
  text: string;
  tokens: number;
  /** Joint confidence of the text. */
  confidence: number;
  /** The names in scope would have been read, had the input had them (the caller may fetch them and decode again). */
  scopeWanted?: boolean;
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
export function utility(chars: number, p: number, settings: Pick<DecoderSettings, 'acceptBonus' | 'wrongCost'>): number {
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
  // Saying nothing is worth 0: a suggestion must be worth more.
  let best = nothing;
  let bestUtility = 0;
  // `ends`: the probability that the line ends right after the text (it is then complete).
  const consider = (ends = 0) => {
    const chars = text.trimEnd().length;
    const worth = chars > 0 ? utility(chars, confidence, settings) + confidence * ends * settings.lineBonus : 0;
    if (worth > bestUtility) {
      best = nothing.scopeWanted ? { text, tokens, confidence, scopeWanted: true } : { text, tokens, confidence };
      bestUtility = worth;
    }
  };

  // An unfinished word at the cursor: settle which token it is before predicting what follows.
  if (pending.trim() !== '') {
    const wanted = { scope: false };
    const settled = settlePending(input, context, wanted);
    // Told apart only when it is so: the result is otherwise exactly the same object as ever.
    if (wanted.scope) nothing.scopeWanted = true;
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
  let previous: Evidence | undefined;
  const brackets = new BracketBalance(input.suffixLine ?? '');
  for (let depth = 0; tokens < input.maxTokens; depth++) {
    const only = filter;
    const evidence = gatherEvidence(
      context,
      input.sources,
      settings,
      only === undefined ? undefined : (id) => id !== END && vocabulary.text(id).startsWith(only),
      input.keys,
    );
    const step = confidenceOf(stepFeatures(evidence, depth, vocabulary, context, previous), settings.calibration);
    previous = evidence;
    const top = evidence.candidates[0];
    if (!top) break;
    if (top.id === END) {
      // The line ends here: the text so far is the whole rest of the line.
      input.onStep?.('\n', step);
      consider(step);
      break;
    }
    if (step < settings.stepThreshold || confidence * step < settings.threshold) break;
    let piece = vocabulary.text(top.id);
    if (filter !== undefined) piece = piece.slice(filter.length);
    filter = undefined;
    if (brackets.closesSuffix(piece)) {
      // The text after the cursor closes it already: the suggestion fills the gap, like a
      // finished line.
      consider(step);
      break;
    }
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

function stepFeatures(evidence: Evidence, depth: number, vocabulary: LocalVocabulary, context: number[], previous: Evidence | undefined): number[] {
  const top = evidence.candidates[0];
  if (!top) return [];
  const text = top.id === END ? '' : vocabulary.text(top.id);
  const leader = previous?.candidates[0];
  const state: StepState = {
    ...lineState(context, vocabulary),
    previousShare: leader ? leader.weight / previous.total : 1,
    previousMatch: leader ? leader.maxMatch : 0,
  };
  return features(evidence, text, depth, state);
}

/** Tokens and open brackets from the last line break of the context window to its end. */
function lineState(context: number[], vocabulary: LocalVocabulary): { tokens: number; open: number } {
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
 * Which token the unfinished text at the cursor is, and how sure that is. The text as typed
 * when the project or the file knows it, unless it never follows this context and a longer
 * token does, again and again; an unknown text must be the start of a token that follows.
 */
function settlePending(input: DecodeInput, context: number[], wanted: { scope: boolean }): { id: number; confidence: number } | undefined {
  const { pending, vocabulary, settings } = input;
  const known = vocabulary.lookup(pending);
  const evidence = gatherEvidence(context, input.sources, settings, (id) => id !== END && vocabulary.text(id).startsWith(pending), input.keys);
  const best = evidence.candidates[0];
  const knownHere = known >= 0 && evidence.candidates.some((c) => c.id === known);
  // Nothing here follows the context with a token the text starts: a name in scope may.
  if (!best) {
    const scoped = fromScope(input, context);
    if (scoped === 'scope wanted') wanted.scope = true;
    else if (scoped) return scoped;
  }
  if (known >= 0 && (knownHere || !best || best.count < 3)) return { id: known, confidence: settings.pendingDefault };
  if (!best) return undefined;
  // Its share of the weight, discounted when few occurrences say so (one: two thirds).
  return { id: best.id, confidence: (best.weight / evidence.total) * (best.count / (best.count + 0.5)) };
}

/** Words after which a name is being declared, not used: a name in scope is not what comes. */
const DECLARES: ReadonlySet<string> = new Set('const let var function function* class interface type enum get set async static namespace'.split(' '));

/**
 * The name in scope that the unfinished word at the cursor starts (several: as far as they
 * agree), after a dot among the members, else among the bare names; never where a name is declared,
 * nor when the file uses another word that starts so (a local variable, a parameter: the index
 * does not know them), or the typed word itself (it may be finished).
 */
function fromScope(input: DecodeInput, context: number[]): { id: number; confidence: number } | 'scope wanted' | undefined {
  const { pending, scope, settings, vocabulary } = input;
  const word = pending.trimStart();
  if (word.length < settings.scopeMinChars || !/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(word)) return undefined;
  const last = context.length > 0 ? vocabulary.text(context[context.length - 1]!).trim() : '';
  const beforeLast = context.length > 1 ? vocabulary.text(context[context.length - 2]!).trim() : '';
  if (DECLARES.has(last) || ((last === '{' || last === '[') && DECLARES.has(beforeLast))) return undefined;
  if (!scope) return 'scope wanted';
  const names = last === '.' || last === '?.' ? scope.members : scope.names;
  const candidates = new Set<string>();
  for (const name of names) if (name.length > word.length && name.startsWith(word)) candidates.add(name);
  if (candidates.size === 0) return undefined;
  for (const source of input.sources) {
    if (!source.inFile) continue;
    const { tokens, length } = source.index;
    for (let i = 0; i < length; i++) {
      const text = vocabulary.text(tokens[i]!);
      const start = text.length - text.trimStart().length;
      if (text.startsWith(word, start) && !candidates.has(text.slice(start))) return undefined;
    }
  }
  // Several names: as far as they agree (`getPath`, `getPathNoStrict`: `getPath`).
  let found = candidates.values().next().value!;
  for (const name of candidates) {
    let n = 0;
    while (n < found.length && n < name.length && found.charCodeAt(n) === name.charCodeAt(n)) n++;
    found = found.slice(0, n);
  }
  if (found.length <= word.length) return undefined;
  return { id: vocabulary.id(pending.slice(0, pending.length - word.length) + found), confidence: settings.scopeConfidence };
}

const OPENERS = '([{';
const CLOSERS = ')]}';

/**
 * Bracket balance of a suggestion against the text after the cursor: a closing bracket that
 * closes what was open before the cursor, when the rest of the line starts with that same
 * bracket (an editor closed it already), ends the suggestion before it.
 */
class BracketBalance {
  private depth = 0;
  private readonly next: string;

  constructor(suffixLine: string) {
    this.next = suffixLine.trimStart().charAt(0);
  }

  /** Takes the piece into the balance; true if it would close a bracket the suffix closes. */
  closesSuffix(piece: string): boolean {
    const core = piece.trimStart();
    if (this.depth === 0 && core !== '' && CLOSERS.includes(core.charAt(0)) && core.charAt(0) === this.next) return true;
    for (const c of core) {
      if (OPENERS.includes(c)) this.depth++;
      else if (CLOSERS.includes(c)) this.depth = Math.max(0, this.depth - 1);
    }
    return false;
  }
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
  let previous: Evidence | undefined;
  for (let depth = 0; depth < truth.length; depth++) {
    const evidence = gatherEvidence(context, input.sources, input.settings, undefined, input.keys);
    const top = evidence.candidates[0];
    if (!top) break;
    steps.push({ features: stepFeatures(evidence, depth, input.vocabulary, context, previous), right: top.id === truth[depth] });
    previous = evidence;
    if (truth[depth] === END) break;
    context.push(truth[depth]!);
  }
  return steps;
}
