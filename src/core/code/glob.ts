// Globs as .gitignore writes them (git's wildmatch), matched without backtracking.
//
// A segment pattern (between slashes) is cut at its `*`s into pieces of fixed length (`?`,
// classes and characters): the first piece must match at the start, the last at the end, and
// each piece between is placed at its leftmost match after the one before. Leftmost placement
// is never worse for what follows, so one pass decides: O(text × pattern), whatever the input
// (a regex engine that backtracks takes exponential time on `*a*a*a*b` against `aaaa…`).
// Whole paths are matched the same way one level up: `**` segments cut the pattern into groups
// of segments, each group placed at its leftmost match.

/** One character of a piece: a code unit, any one (`?`), or a class (`[a-z]`). */
type Token = number | typeof ANY | CharClass;
const ANY = -1;

interface CharClass {
  negated: boolean;
  test(code: number): boolean;
}

/** Matches one segment (no `/`) of a path. */
export interface SegmentMatcher {
  matches(text: string): boolean;
}

/** A glob cut at its `**` segments. */
type PathPart = SegmentMatcher | typeof GLOBSTAR;
const GLOBSTAR = '**';

const POSIX_CLASSES: Record<string, (code: number) => boolean> = {
  alpha: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  digit: (c) => c >= 48 && c <= 57,
  alnum: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57),
  upper: (c) => c >= 65 && c <= 90,
  lower: (c) => c >= 97 && c <= 122,
  space: (c) => c === 32 || (c >= 9 && c <= 13),
  blank: (c) => c === 32 || c === 9,
  xdigit: (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102),
  punct: (c) => (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126),
  cntrl: (c) => c < 32 || c === 127,
  print: (c) => c >= 32 && c < 127,
  graph: (c) => c > 32 && c < 127,
};

/** A pattern that can never match (an unclosed `[`, as git's wildmatch treats it). */
const NEVER: SegmentMatcher = { matches: () => false };

/**
 * Compiles one segment's pattern: `*` (any run without `/`), `?` (one character), `[…]` (a
 * class: ranges, `!` or `^` to negate, `[:alpha:]`…), `\x` (x itself).
 *
 * @example compileSegment('*.test.[jt]s').matches('a.test.ts') // true
 */
export function compileSegment(pattern: string): SegmentMatcher {
  const pieces: Token[][] = [[]];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*') {
      // A run of stars is one star; a new piece starts after it.
      if (pieces[pieces.length - 1]!.length > 0 || pieces.length === 1) pieces.push([]);
      while (pattern[i + 1] === '*') i++;
    } else if (char === '?') pieces[pieces.length - 1]!.push(ANY);
    else if (char === '[') {
      const parsed = parseClass(pattern, i);
      if (!parsed) return NEVER;
      pieces[pieces.length - 1]!.push(parsed.charClass);
      i = parsed.end;
    } else if (char === '\\' && i + 1 < pattern.length) pieces[pieces.length - 1]!.push(pattern.charCodeAt(++i));
    else pieces[pieces.length - 1]!.push(pattern.charCodeAt(i));
  }
  if (pieces.length === 1) return exactMatcher(pieces[0]!);
  return starMatcher(pieces[0]!, pieces.slice(1, -1), pieces[pieces.length - 1]!);
}

function exactMatcher(piece: Token[]): SegmentMatcher {
  const literal = literalOf(piece);
  if (literal !== undefined) return { matches: (text) => text === literal };
  return { matches: (text) => text.length === piece.length && pieceAt(piece, text, 0) };
}

/** `head*middle…*tail`: head at the start, tail at the end, each middle piece leftmost between. */
function starMatcher(head: Token[], middle: Token[][], tail: Token[]): SegmentMatcher {
  const headLiteral = literalOf(head);
  const tailLiteral = literalOf(tail);
  const middleLiterals = middle.map(literalOf);
  return {
    matches(text) {
      if (text.length < head.length + tail.length) return false;
      if (headLiteral !== undefined ? !text.startsWith(headLiteral) : !pieceAt(head, text, 0)) return false;
      let at = head.length;
      for (let p = 0; p < middle.length; p++) {
        const piece = middle[p]!;
        const literal = middleLiterals[p];
        const found = literal !== undefined ? text.indexOf(literal, at) : findPiece(piece, text, at);
        if (found < 0) return false;
        at = found + piece.length;
      }
      const tailAt = text.length - tail.length;
      if (tailAt < at) return false;
      return tailLiteral !== undefined ? text.endsWith(tailLiteral) : pieceAt(tail, text, tailAt);
    },
  };
}

/** The piece as a plain string when it holds characters only (the common case: fast paths). */
function literalOf(piece: Token[]): string | undefined {
  if (!piece.every((token) => typeof token === 'number' && token >= 0)) return undefined;
  return String.fromCharCode(...(piece as number[]));
}

function pieceAt(piece: Token[], text: string, at: number): boolean {
  if (at + piece.length > text.length) return false;
  for (let k = 0; k < piece.length; k++) {
    const token = piece[k]!;
    const code = text.charCodeAt(at + k);
    if (token === ANY) continue;
    if (typeof token === 'number') {
      if (code !== token) return false;
    } else if (!token.test(code)) return false;
  }
  return true;
}

function findPiece(piece: Token[], text: string, from: number): number {
  for (let at = from; at + piece.length <= text.length; at++) if (pieceAt(piece, text, at)) return at;
  return -1;
}

/** Parses `[…]` starting at `start`; undefined when it is not closed. */
function parseClass(pattern: string, start: number): { charClass: CharClass; end: number } | undefined {
  let i = start + 1;
  let negated = false;
  if (pattern[i] === '!' || pattern[i] === '^') {
    negated = true;
    i++;
  }
  const tests: ((code: number) => boolean)[] = [];
  let first = true;
  for (; i < pattern.length; i++) {
    let char = pattern[i]!;
    if (char === ']' && !first) {
      const charClass: CharClass = { negated, test: (code) => tests.some((test) => test(code)) !== negated };
      return { charClass, end: i };
    }
    first = false;
    if (char === '[' && pattern[i + 1] === ':') {
      const close = pattern.indexOf(':]', i + 2);
      const named = close > 0 ? POSIX_CLASSES[pattern.slice(i + 2, close)] : undefined;
      if (named) {
        tests.push(named);
        i = close + 1;
        continue;
      }
    }
    if (char === '\\' && i + 1 < pattern.length) char = pattern[++i]!;
    const low = char.charCodeAt(0);
    if (pattern[i + 1] === '-' && i + 2 < pattern.length && pattern[i + 2] !== ']') {
      let highChar = pattern[i + 2]!;
      i += 2;
      if (highChar === '\\' && i + 1 < pattern.length) highChar = pattern[++i]!;
      const high = highChar.charCodeAt(0);
      tests.push((code) => code >= low && code <= high);
    } else tests.push((code) => code === low);
  }
  return undefined;
}

/** A whole-path glob. */
export interface PathGlob {
  /** Whether the path, split at `/`, matches. */
  matches(segments: readonly string[]): boolean;
}

/**
 * Compiles a path glob (segments joined by `/`, no leading `/`): `**` as a whole segment
 * matches any number of folders (none included), and a trailing `**` anything inside (at
 * least one more segment), as in .gitignore.
 *
 * @example compilePathGlob('src/**\/*.ts').matches(['src', 'a', 'b.ts']) // true
 */
export function compilePathGlob(pattern: string): PathGlob {
  const parts: PathPart[] = [];
  const segments = pattern.split('/');
  segments.forEach((segment, index) => {
    if (segment === GLOBSTAR) {
      if (parts[parts.length - 1] !== GLOBSTAR) parts.push(GLOBSTAR);
      // `a/**` is everything inside a: `a/**/*`.
      if (index === segments.length - 1) parts.push(compileSegment('*'));
    } else parts.push(compileSegment(segment));
  });
  const groups: SegmentMatcher[][] = [[]];
  for (const part of parts) {
    if (part === GLOBSTAR) groups.push([]);
    else groups[groups.length - 1]!.push(part);
  }
  const head = groups[0]!;
  if (groups.length === 1) return { matches: (path) => path.length === head.length && groupAt(head, path, 0) };
  const middle = groups.slice(1, -1);
  const tail = groups[groups.length - 1]!;
  return {
    matches(path) {
      if (path.length < head.length + tail.length || !groupAt(head, path, 0)) return false;
      let at = head.length;
      for (const group of middle) {
        let found = -1;
        for (let start = at; start + group.length <= path.length; start++) {
          if (groupAt(group, path, start)) {
            found = start;
            break;
          }
        }
        if (found < 0) return false;
        at = found + group.length;
      }
      const tailAt = path.length - tail.length;
      return tailAt >= at && groupAt(tail, path, tailAt);
    },
  };
}

function groupAt(group: readonly SegmentMatcher[], path: readonly string[], at: number): boolean {
  if (at + group.length > path.length) return false;
  for (let k = 0; k < group.length; k++) if (!group[k]!.matches(path[at + k]!)) return false;
  return true;
}
