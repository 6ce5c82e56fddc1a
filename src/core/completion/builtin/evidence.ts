// The evidence for the next token: the occurrences of the context in every source (the file
// before and after the cursor, the project), tallied by the token that followed them. Each
// occurrence weighs (match length) ^ matchPower, times the source's weight; the tally keeps,
// per candidate token, what calibration needs (counts, longest match, the file's part).

import { DEAD, type Occurrence, type OccurrenceIndex } from './occurrence-index.ts';
import { BOUNDARY, LINE_BREAK } from './vocabulary.ts';

/** The end of the line (or of a file): where a suggestion stops. */
export const END = -2;

/** Where occurrences are looked for. */
export interface Source {
  index: OccurrenceIndex;
  /** Occurrences count this much more (the current file). */
  weight: number;
  /** Whether it is the current file (calibration tells its votes apart). */
  inFile: boolean;
  /** How far an occurrence is from the cursor: from the end of the stream (the text before
   * the cursor), from its start (the text after), or not measured (the project). */
  distance?: 'fromEnd' | 'fromStart';
  /** Positions in [skipFrom, skipTo) do not count (the project's copy of the current file). */
  skipFrom?: number;
  skipTo?: number;
  /** Chain steps per level. */
  walk: number;
}

export interface Candidate {
  id: number;
  weight: number;
  count: number;
  maxMatch: number;
  fileCount: number;
  fileWeight: number;
  /** Tokens between the cursor and the nearest occurrence in the file (Infinity: none). */
  nearest: number;
}

export interface Evidence {
  /** Candidates by weight, heaviest first (END included). */
  candidates: Candidate[];
  total: number;
  count: number;
  fileWeight: number;
  fileCount: number;
  /** The longest match of any occurrence. */
  maxMatch: number;
  /** Occurrences whose match is within one of the longest, and those of them for the leader. */
  nearMax: number;
  nearMaxTop: number;
}

export interface GatherSettings {
  matchPower: number;
  /** What a literal that differs from the context's takes off an occurrence's match length. */
  literalPenalty: number;
  /** Occurrences after which shorter contexts are not looked up. */
  enough: number;
}

const found: Occurrence[] = [];
/** (candidate id, match) of every counted occurrence, for the near-longest statistics. */
const votes: number[] = [];
const contextKeys: number[] = [];
const loose: number[] = [];

/** What context tokens match as (see OccurrenceIndex.occurrences). */
export interface Keys {
  /** The key of a token (the sources' indexes must use the same). */
  keyOf: (id: number) => number;
  /** Whether a token of the context matches any token of its key, not only itself. */
  loose: (id: number) => boolean;
}

/**
 * Tallies the followers of the tail of `context`; `accept` filters candidate tokens; `keys`:
 * what the context's tokens match as (each only itself when not given).
 */
export function gatherEvidence(context: number[], sources: Source[], settings: GatherSettings, accept?: (id: number) => boolean, keys?: Keys): Evidence {
  const byId = new Map<number, Candidate>();
  const evidence: Evidence = { candidates: [], total: 0, count: 0, fileWeight: 0, fileCount: 0, maxMatch: 0, nearMax: 0, nearMaxTop: 0 };
  votes.length = 0;
  contextKeys.length = context.length;
  loose.length = context.length;
  for (let i = 0; i < context.length; i++) {
    const id = context[i]!;
    contextKeys[i] = keys ? keys.keyOf(id) : id;
    loose[i] = keys && contextKeys[i] !== id && keys.loose(id) ? 1 : 0;
  }
  const penalty = settings.literalPenalty;
  for (const source of sources) {
    found.length = 0;
    source.index.occurrences(context, context.length, found, {
      walk: source.walk,
      enough: settings.enough,
      skipFrom: source.skipFrom,
      skipTo: source.skipTo,
      contextKeys,
      loose,
    });
    const tokens = source.index.tokens;
    for (const o of found) {
      const match = o.misses > 0 ? Math.max(1, o.match - penalty * o.misses) : o.match;
      let id = tokens[o.pos]!;
      if (id === LINE_BREAK || id === BOUNDARY || id === DEAD) id = END;
      if (accept && !accept(id)) continue;
      const weight = source.weight * Math.pow(match, settings.matchPower);
      let candidate = byId.get(id);
      if (!candidate) byId.set(id, (candidate = { id, weight: 0, count: 0, maxMatch: 0, fileCount: 0, fileWeight: 0, nearest: Infinity }));
      if (source.distance) {
        const distance = source.distance === 'fromEnd' ? source.index.length - o.pos : o.pos;
        if (distance < candidate.nearest) candidate.nearest = distance;
      }
      candidate.weight += weight;
      candidate.count++;
      if (match > candidate.maxMatch) candidate.maxMatch = match;
      evidence.total += weight;
      evidence.count++;
      votes.push(id, match);
      if (match > evidence.maxMatch) evidence.maxMatch = match;
      if (source.inFile) {
        candidate.fileCount++;
        candidate.fileWeight += weight;
        evidence.fileWeight += weight;
        evidence.fileCount++;
      }
    }
  }
  evidence.candidates = [...byId.values()].sort((a, b) => b.weight - a.weight);
  const top = evidence.candidates[0];
  for (let i = 0; i < votes.length; i += 2) {
    if (votes[i + 1]! < evidence.maxMatch - 1) continue;
    evidence.nearMax++;
    if (votes[i] === top?.id) evidence.nearMaxTop++;
  }
  return evidence;
}
