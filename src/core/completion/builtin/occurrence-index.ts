// A token stream with hash chains: for each context length K of a few levels, every position
// p is linked to the previous position whose K preceding tokens hash the same. Walking a chain
// finds the earlier occurrences of the context before the cursor, most recent first, and what
// followed each of them; extending a match backwards gives its length. This one structure
// serves as n-gram counts (the followers of a short context), as the long-match "copy" model
// (the followers of a long context), and it appends in O(levels · K) per token.
//
// Chains link positions by the keys of their contexts (see keyOf: a string literal's key is
// its class), and a match compares tokens, or keys for the context tokens marked loose.
//
// Memory: 4 bytes per token for the stream, 4 for the keys (when keyed), 4 per token per level
// for the chains, and the chain heads (a power of two near half the stream's capacity).

/** Marks a position that no longer counts (a removed or replaced file). */
export const DEAD = -1;

/**
 * The context lengths that have chains: a short one for counts, long ones for copies. A match
 * is always measured to its full length whichever chain found it, so three levels do as well
 * as five (1, 2, 4, 8, 16) on the quality benchmark's development split, for less memory; and
 * with no single-token level, a context whose last two tokens were never seen gets no
 * occurrences at all, which is the right answer to give there: none.
 */
export const LEVELS: readonly number[] = [2, 5, 12];

/** Longest match length measured (a longer match counts as this long). */
export const MAX_MATCH = 48;

/** Ids at or above this are local to one request (vocabulary.ts). */
const LOCAL_BASE = 1 << 30;

export function hashTail(tokens: ArrayLike<number>, end: number, k: number): number {
  let h = 0x811c9dc5 ^ k;
  for (let i = end - k; i < end; i++) {
    h = Math.imul(h ^ tokens[i]!, 0x01000193);
    h ^= h >>> 15;
  }
  return Math.imul(h, 0x9e3779b1) >>> 0;
}

export interface Occurrence {
  /** Position of the follower in the stream. */
  pos: number;
  /** How many tokens before `pos` equal the tail of the context (at most MAX_MATCH), literals
   * of a class counting as equal (see literalClass in vocabulary.ts). */
  match: number;
  /** How many of those are literals that differ from the context's. */
  misses: number;
}

export class OccurrenceIndex {
  tokens: Int32Array;
  /**
   * Per position: what the token matches as in contexts (see keyOf; the tokens themselves
   * without one). The chains link positions by the keys of their contexts.
   */
  keys: Int32Array;
  length = 0;
  private heads: Int32Array[];
  private prevs: Int32Array[];
  /** Per level: head table size - 1. */
  private masks: number[];
  /** Per level, during a lookup: the position its walk stopped at (Infinity: not walked). */
  private readonly reached: number[] = LEVELS.map(() => Infinity);
  /** How many times each request-local id (LOCAL_BASE and up) is in the stream. */
  private readonly localCounts = new Map<number, number>();

  /**
   * `keyOf`: what a token matches as in contexts (Vocabulary.key: a string literal matches
   * any string literal); every token only itself when not given.
   */
  constructor(
    capacity = 1024,
    readonly keyOf?: (id: number) => number,
  ) {
    this.tokens = new Int32Array(capacity);
    this.keys = keyOf ? new Int32Array(capacity) : this.tokens;
    this.heads = LEVELS.map((k) => new Int32Array(headSizeFor(capacity, k)).fill(-1));
    this.masks = this.heads.map((h) => h.length - 1);
    this.prevs = LEVELS.map(() => new Int32Array(capacity));
  }

  /** Appends tokens, linking each new position into the chains. */
  append(ids: ArrayLike<number>): void {
    const end = this.length + ids.length;
    this.reserve(end);
    this.tokens.set(ids as ArrayLike<number>, this.length);
    const keyOf = this.keyOf;
    if (keyOf) for (let i = 0; i < ids.length; i++) this.keys[this.length + i] = keyOf(ids[i]!);
    for (let i = 0; i < ids.length; i++) if (ids[i]! >= LOCAL_BASE) this.localCounts.set(ids[i]!, (this.localCounts.get(ids[i]!) ?? 0) + 1);
    for (let p = this.length; p < end; p++) this.link(p);
    this.length = end;
  }

  /** Drops the tokens from `length` on (undoing their links), for an incremental re-lex. */
  truncate(length: number): void {
    for (let p = this.length - 1; p >= length; p--) {
      const id = this.tokens[p]!;
      if (id >= LOCAL_BASE) this.localCounts.set(id, (this.localCounts.get(id) ?? 1) - 1);
      for (let level = 0; level < LEVELS.length; level++) {
        const k = LEVELS[level]!;
        if (p < k) continue;
        const slot = hashTail(this.keys, p, k) & this.masks[level]!;
        const heads = this.heads[level]!;
        if (heads[slot] === p) heads[slot] = this.prevs[level]![p]!;
      }
    }
    this.length = Math.min(this.length, length);
  }

  /** How many times a request-local id (LOCAL_BASE and up) is in the stream. */
  localCount(id: number): number {
    return this.localCounts.get(id) ?? 0;
  }

  /** Marks [start, end) as not counting: its followers and contexts no longer match. */
  kill(start: number, end: number): void {
    this.tokens.fill(DEAD, start, end);
    if (this.keys !== this.tokens) this.keys.fill(DEAD, start, end);
  }

  /**
   * The occurrences of the tail of `context` (its last `contextLength` tokens), the longest
   * contexts first, most recent first within a level; at most `walk` chain steps per level,
   * and no shorter level once `enough` occurrences were found. Positions in [skipFrom,
   * skipTo) are left out. `contextKeys`: the keys of the context's tokens (see keyOf; the
   * context itself when not given); `loose`: per context token, whether it matches any token
   * of its key (1) or only itself (0, all of them when not given). `misses` counts the
   * tokens of a match that matched by their keys only.
   */
  occurrences(
    context: ArrayLike<number>,
    contextLength: number,
    out: Occurrence[],
    options: { walk: number; enough: number; skipFrom?: number; skipTo?: number; contextKeys?: ArrayLike<number>; loose?: ArrayLike<number> },
  ): void {
    const { walk, enough } = options;
    const skipFrom = options.skipFrom ?? 0;
    const skipTo = options.skipTo ?? 0;
    const contextKeys = options.contextKeys ?? context;
    const loose = options.loose;
    const tokens = this.tokens;
    const keys = this.keys;
    const found = out.length;
    // A position a longer level's walk reached was counted there. Chains run from the most
    // recent position down, so that walk reached exactly the positions above where it stopped.
    const reached = this.reached;
    for (let level = LEVELS.length - 1; level >= 0; level--) {
      reached[level] = Infinity;
      const k = LEVELS[level]!;
      if (k > contextLength) continue;
      let p = this.heads[level]![hashTail(contextKeys, contextLength, k) & this.masks[level]!]!;
      const prev = this.prevs[level]!;
      for (let steps = 0; p >= 0 && steps < walk; steps++, p = prev[p]!) {
        if ((p >= skipFrom && p < skipTo) || tokens[p] === DEAD) continue;
        let match = 0;
        let misses = 0;
        const most = Math.min(MAX_MATCH, p, contextLength);
        while (match < most && keys[p - 1 - match] === contextKeys[contextLength - 1 - match]) {
          if (tokens[p - 1 - match] !== context[contextLength - 1 - match]) {
            if (!loose?.[contextLength - 1 - match]) break;
            misses++;
          }
          match++;
        }
        if (match < k) continue; // a hash collision
        if (this.countedAbove(level, match, p)) continue;
        out.push({ pos: p, match, misses });
      }
      reached[level] = p; // -1 when the whole chain was walked
      if (out.length - found >= enough) break;
    }
  }

  /** Whether a longer level's walk already counted position p (its match is long enough). */
  private countedAbove(level: number, match: number, p: number): boolean {
    for (let longer = level + 1; longer < LEVELS.length; longer++) if (match >= LEVELS[longer]! && p > this.reached[longer]!) return true;
    return false;
  }

  /** Approximate bytes held. */
  bytes(): number {
    const keys = this.keys !== this.tokens ? this.keys.byteLength : 0;
    return this.tokens.byteLength + keys + this.heads.reduce((s, h) => s + h.byteLength, 0) + this.prevs.reduce((s, p) => s + p.byteLength, 0);
  }

  private link(p: number): void {
    for (let level = 0; level < LEVELS.length; level++) {
      const k = LEVELS[level]!;
      if (p < k) break;
      const slot = hashTail(this.keys, p, k) & this.masks[level]!;
      const heads = this.heads[level]!;
      this.prevs[level]![p] = heads[slot]!;
      heads[slot] = p;
    }
  }

  private reserve(needed: number): void {
    if (needed <= this.tokens.length) return;
    // Doubling while small, a quarter more when big: at most a fifth of the memory is slack.
    let capacity = this.tokens.length;
    while (capacity < needed) capacity = capacity < 1 << 20 ? capacity * 2 : Math.ceil(capacity * 1.25);
    const grow = (old: Int32Array) => {
      const grown = new Int32Array(capacity);
      grown.set(old.subarray(0, this.length));
      return grown;
    };
    const keyed = this.keys !== this.tokens;
    this.tokens = grow(this.tokens);
    this.keys = keyed ? grow(this.keys) : this.tokens;
    this.prevs = this.prevs.map(grow);
    if (LEVELS.some((k, level) => headSizeFor(capacity, k) !== this.heads[level]!.length)) this.rehash(capacity);
  }

  /** Re-links every position into bigger head tables (chains keep most-recent-first order). */
  private rehash(capacity: number): void {
    this.heads = LEVELS.map((k) => new Int32Array(headSizeFor(capacity, k)).fill(-1));
    this.masks = this.heads.map((h) => h.length - 1);
    for (let p = 0; p < this.length; p++) this.link(p);
  }
}

/**
 * Head tables about half the capacity, so that chains of distinct contexts rarely share a
 * slot; an eighth for single tokens, whose distinct contexts are far fewer than positions.
 */
function headSizeFor(capacity: number, k: number): number {
  const wanted = k === 1 ? capacity / 8 : capacity / 2;
  let size = 256;
  while (size < wanted) size *= 2;
  return size;
}
