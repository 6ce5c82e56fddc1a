// Fuzzy matching as fzf does it (its "v2" algorithm, scores and bonuses; VS Code's Ctrl+P ranks
// alike): the query's characters must appear in order; a match scores for each character,
// more at the start of a word (after `/`, `_`, `-`, `.`, a space, a lower→upper hump) and for
// runs of consecutive characters, and loses for gaps. Smart case: a query with a capital
// letter matches case-sensitively. Cost: O(query × the stretch of the target between the
// first possible and the last possible match), with a linear subsequence test first that
// turns most targets away; no backtracking.

const SCORE_MATCH = 16;
const SCORE_GAP_START = -3;
const SCORE_GAP_EXTENSION = -1;
const BONUS_BOUNDARY = SCORE_MATCH / 2;
const BONUS_NON_WORD = SCORE_MATCH / 2;
const BONUS_CAMEL = BONUS_BOUNDARY + SCORE_GAP_EXTENSION;
const BONUS_CONSECUTIVE = -(SCORE_GAP_START + SCORE_GAP_EXTENSION);
const BONUS_FIRST_CHAR_MULTIPLIER = 2;
const BONUS_BOUNDARY_WHITE = BONUS_BOUNDARY + 2;
const BONUS_BOUNDARY_DELIMITER = BONUS_BOUNDARY + 1;
/** A path's match wholly inside its file name ranks above one spread over its folders. */
const BONUS_IN_BASENAME = SCORE_MATCH * 2;
/** Longest query scored (characters); the rest is ignored. */
const MAX_QUERY = 64;
/** Longest target scored; longer ones are cut (a path or a name is never this long). */
const MAX_TARGET = 1024;

const WHITE = 0;
const NON_WORD = 1;
const DELIMITER = 2;
const LOWER = 3;
const UPPER = 4;
const LETTER = 5;
const NUMBER = 6;

function classOf(code: number): number {
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 48 && code <= 57) return NUMBER;
  if (code === 32 || code === 9 || code === 10 || code === 13) return WHITE;
  if (code === 47 || code === 44 || code === 58 || code === 59 || code === 124 || code === 92) return DELIMITER;
  if (code < 128) return NON_WORD;
  const char = String.fromCharCode(code);
  if (/\p{Lu}/u.test(char)) return UPPER;
  if (/\p{L}/u.test(char)) return LETTER;
  if (/\p{N}/u.test(char)) return NUMBER;
  return /\s/u.test(char) ? WHITE : NON_WORD;
}

function bonusFor(previous: number, current: number): number {
  if (current > DELIMITER) {
    if (previous === WHITE) return BONUS_BOUNDARY_WHITE;
    if (previous === DELIMITER) return BONUS_BOUNDARY_DELIMITER;
    if (previous === NON_WORD) return BONUS_BOUNDARY;
  }
  if ((previous === LOWER && current === UPPER) || (previous !== NUMBER && current === NUMBER)) return BONUS_CAMEL;
  if (current === NON_WORD || current === DELIMITER) return BONUS_NON_WORD;
  if (current === WHITE) return BONUS_BOUNDARY_WHITE;
  return 0;
}

/** A match: its score (higher is better) and the target's matched UTF-16 indices, ascending. */
export interface FuzzyMatch {
  score: number;
  positions: number[];
}

/** A query ready to score many targets. */
export interface FuzzyQuery {
  /** The query's terms (split at spaces); each must match. */
  readonly terms: readonly string[];
  readonly caseSensitive: boolean;
}

/**
 * Prepares `query`: split at whitespace into terms (every term must match, in any order),
 * case-sensitive when it holds a capital letter.
 *
 * @example fuzzyScore(fuzzyQuery('fb'), 'src/foo/bar.ts') // { score: …, positions: [4, 8] }
 */
export function fuzzyQuery(query: string): FuzzyQuery {
  const terms = query
    .slice(0, MAX_QUERY)
    .split(/\s+/)
    .filter((term) => term.length > 0);
  const caseSensitive = terms.some((term) => term !== term.toLowerCase());
  return { terms: caseSensitive ? terms : terms.map((term) => term.toLowerCase()), caseSensitive };
}

/** Scratch space reused across calls: the score and run-length matrices, the bonuses. */
let scores = new Int32Array(1024);
let runs = new Int32Array(1024);
let bonuses = new Int32Array(256);
const firsts = new Int32Array(MAX_QUERY);

/**
 * Scores one term against `target` (`folded`: the target lower-cased, or the target itself
 * when case-sensitive); undefined when the term's characters are not all in it, in order.
 */
function scoreTerm(term: string, target: string, folded: string): FuzzyMatch | undefined {
  const m = term.length;
  const n = Math.min(folded.length, MAX_TARGET);
  if (m === 0) return { score: 0, positions: [] };
  // Phase 1: the first place each character can match (greedy), and the last place the final one can.
  let at = 0;
  for (let i = 0; i < m; i++) {
    const found = folded.indexOf(term[i]!, at);
    if (found < 0 || found >= n) return undefined;
    firsts[i] = found;
    at = found + 1;
  }
  const start = firsts[0]!;
  let last = n - 1;
  while (last > firsts[m - 1]! && folded.charCodeAt(last) !== term.charCodeAt(m - 1)) last--;
  const width = last - start + 1;
  if (scores.length < m * width) {
    scores = new Int32Array(m * width * 2);
    runs = new Int32Array(m * width * 2);
  }
  if (bonuses.length < width) bonuses = new Int32Array(width * 2);
  // Phase 2: each position's bonus, from the class of the character before it.
  let previous = start > 0 ? classOf(target.charCodeAt(start - 1)) : WHITE;
  for (let j = 0; j < width; j++) {
    const current = classOf(target.charCodeAt(start + j));
    bonuses[j] = bonusFor(previous, current);
    previous = current;
  }
  // Phase 3: the first row.
  let best = -1;
  let bestAt = -1;
  const first = term.charCodeAt(0);
  let inGap = false;
  let previousScore = 0;
  for (let j = 0; j < width; j++) {
    if (folded.charCodeAt(start + j) === first) {
      const score = SCORE_MATCH + bonuses[j]! * BONUS_FIRST_CHAR_MULTIPLIER;
      scores[j] = score;
      runs[j] = 1;
      if (m === 1 && score > best) {
        best = score;
        bestAt = j;
      }
      inGap = false;
    } else {
      scores[j] = Math.max(previousScore + (inGap ? SCORE_GAP_EXTENSION : SCORE_GAP_START), 0);
      runs[j] = 0;
      inGap = true;
    }
    previousScore = scores[j]!;
  }
  // Phase 4: the other rows.
  for (let i = 1; i < m; i++) {
    const row = i * width;
    const code = term.charCodeAt(i);
    const from = firsts[i]! - start;
    for (let j = 0; j < from; j++) {
      scores[row + j] = 0;
      runs[row + j] = 0;
    }
    inGap = false;
    for (let j = from; j < width; j++) {
      const left = j > 0 ? scores[row + j - 1]! : 0;
      const s2: number = left + (inGap ? SCORE_GAP_EXTENSION : SCORE_GAP_START);
      let s1 = 0;
      let run = 0;
      if (folded.charCodeAt(start + j) === code && j > 0) {
        s1 = scores[row - width + j - 1]! + SCORE_MATCH;
        let bonus = bonuses[j]!;
        run = runs[row - width + j - 1]! + 1;
        if (run > 1) {
          const runBonus = bonuses[j - run + 1]!;
          if (bonus >= BONUS_BOUNDARY && bonus > runBonus) run = 1;
          else bonus = Math.max(bonus, BONUS_CONSECUTIVE, runBonus);
        }
        if (s1 + bonus < s2) {
          s1 += bonuses[j]!;
          run = 0;
        } else s1 += bonus;
      }
      runs[row + j] = run;
      inGap = s1 < s2;
      const score = Math.max(s1, s2, 0);
      if (i === m - 1 && score > best) {
        best = score;
        bestAt = j;
      }
      scores[row + j] = score;
    }
  }
  if (bestAt < 0) return undefined;
  // Phase 5: back from the best end, the matched positions.
  const positions: number[] = [];
  let i = m - 1;
  let j = bestAt;
  let preferMatch = true;
  while (j >= 0) {
    const row = i * width;
    const score = scores[row + j]!;
    const diagonal = i > 0 && j > 0 && j >= firsts[i]! - start ? scores[row - width + j - 1]! : 0;
    const left = j > firsts[i]! - start ? scores[row + j - 1]! : 0;
    if (score > diagonal && (score > left || (score === left && preferMatch)) && folded.charCodeAt(start + j) === term.charCodeAt(i)) {
      positions.push(start + j);
      if (i === 0) break;
      i--;
    }
    preferMatch = runs[row + j]! > 1 || (row + width + j + 1 < m * width && runs[row + width + j + 1]! > 0);
    j--;
  }
  if (positions.length !== m) return undefined;
  positions.reverse();
  return { score: best, positions };
}

/**
 * Scores `target` for a prepared query: every term must match; the score is their sum.
 *
 * @example fuzzyScore(fuzzyQuery('usr'), 'getUserName')?.score // > 0
 */
export function fuzzyScore(query: FuzzyQuery, target: string, folded = query.caseSensitive ? target : target.toLowerCase()): FuzzyMatch | undefined {
  let score = 0;
  const positions: number[] = [];
  for (const term of query.terms) {
    const match = scoreTerm(term, target, folded);
    if (!match) return undefined;
    score += match.score;
    positions.push(...match.positions);
  }
  if (query.terms.length > 1) positions.sort((a, b) => a - b);
  return { score, positions };
}

/**
 * Scores a workspace-relative path: as fuzzyScore, and a match wholly inside the file name
 * (what Ctrl+P users type) scores that match plus BONUS_IN_BASENAME.
 *
 * @example fuzzyPathScore(fuzzyQuery('docs'), 'src/core/documents.ts')
 */
export function fuzzyPathScore(query: FuzzyQuery, path: string, folded = query.caseSensitive ? path : path.toLowerCase()): FuzzyMatch | undefined {
  const whole = fuzzyScore(query, path, folded);
  if (!whole) return undefined;
  const slash = path.lastIndexOf('/');
  if (slash < 0) return { score: whole.score + BONUS_IN_BASENAME, positions: whole.positions };
  const inName = fuzzyScore(query, path.slice(slash + 1), folded.slice(slash + 1));
  if (!inName || inName.score + BONUS_IN_BASENAME < whole.score) return whole;
  return { score: inName.score + BONUS_IN_BASENAME, positions: inName.positions.map((position) => position + slash + 1) };
}

/**
 * The highest score fuzzyPathScore can give any path for `query`: each term's first character
 * SCORE_MATCH plus twice the largest bonus, each other character SCORE_MATCH plus the largest
 * bonus (gaps only take away), and the file name's bonus. A picker whose worst kept score is
 * this high can pass over a path that would lose the tie (longer, or after it) unscored.
 *
 * @example fuzzyPathBound(fuzzyQuery('o')) // 68: `o` at the start of a file name scores it
 */
export function fuzzyPathBound(query: FuzzyQuery): number {
  let bound = BONUS_IN_BASENAME;
  for (const term of query.terms) bound += term.length * SCORE_MATCH + (term.length + 1) * BONUS_BOUNDARY_WHITE;
  return bound;
}

/**
 * Whether every term's characters are in `folded` in order (within the part scored): what any
 * match needs, tested without scoring.
 *
 * @example fuzzyMayMatch(fuzzyQuery('fb'), 'src/foo/bar.ts') // true
 */
export function fuzzyMayMatch(query: FuzzyQuery, folded: string): boolean {
  const n = Math.min(folded.length, MAX_TARGET);
  for (const term of query.terms) {
    let at = 0;
    for (let i = 0; i < term.length; i++) {
      const found = folded.indexOf(term[i]!, at);
      if (found < 0 || found >= n) return false;
      at = found + 1;
    }
  }
  return true;
}

/** A ranked candidate. */
export interface Ranked<T> extends FuzzyMatch {
  item: T;
}

/**
 * The best `limit` of `items` for `query`, best first; ties go to the shorter text, then to
 * the text in code-point order.
 *
 * @example rankFuzzy('fb', ['src/foo/bar.ts', 'fib.ts'], (path) => path, 10, { path: true })
 */
export function rankFuzzy<T>(query: string, items: Iterable<T>, text: (item: T) => string, limit: number, options: { path?: boolean } = {}): Ranked<T>[] {
  const prepared = fuzzyQuery(query);
  const score = options.path ? fuzzyPathScore : fuzzyScore;
  const kept = new TopK<T>(limit, text);
  for (const item of items) {
    const match = score(prepared, text(item));
    if (match) kept.offer({ item, ...match });
  }
  return kept.sorted();
}

/** The best `limit` candidates offered, kept in a sorted array (limit is small: a picker's page). */
export class TopK<T> {
  private readonly kept: Ranked<T>[] = [];

  constructor(
    private readonly limit: number,
    private readonly text: (item: T) => string,
  ) {}

  offer(candidate: Ranked<T>): void {
    if (this.limit <= 0) return;
    if (this.kept.length === this.limit && this.compare(candidate, this.kept[this.kept.length - 1]!) >= 0) return;
    let at = this.kept.length;
    while (at > 0 && this.compare(candidate, this.kept[at - 1]!) < 0) at--;
    this.kept.splice(at, 0, candidate);
    if (this.kept.length > this.limit) this.kept.pop();
  }

  sorted(): Ranked<T>[] {
    return [...this.kept];
  }

  /** Whether a candidate of this score and text could still be kept (false once it would rank after the last of a full list). */
  wouldKeep(score: number, item: T): boolean {
    if (this.limit <= 0) return false;
    const last = this.kept[this.kept.length - 1];
    return this.kept.length < this.limit || !last || this.order(score, item, last.score, last.item) < 0;
  }

  private compare(a: Ranked<T>, b: Ranked<T>): number {
    return this.order(a.score, a.item, b.score, b.item);
  }

  /** Higher scores first; ties to the shorter text, then to the text in code-point order. */
  private order(scoreA: number, itemA: T, scoreB: number, itemB: T): number {
    if (scoreA !== scoreB) return scoreB - scoreA;
    const textA = this.text(itemA);
    const textB = this.text(itemB);
    if (textA.length !== textB.length) return textA.length - textB.length;
    return textA < textB ? -1 : textA > textB ? 1 : 0;
  }
}
