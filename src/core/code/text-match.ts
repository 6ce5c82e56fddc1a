// Text search within one file, as ripgrep does it: a literal or a regular expression (RE2
// syntax, run by re2js in linear time: no pattern can make a search backtrack), matched line
// by line (a match never spans lines), smart case by default, optionally whole words only.
// Patterns RE2 cannot run in linear time (lookaround, backreferences) are refused with the
// parser's message.
import { RE2JS } from 're2js';

type Matcher = ReturnType<RE2JS['matcher']>;
import { LoomError } from '../errors.ts';

export interface TextQuery {
  /** The text or regular expression to find. */
  pattern: string;
  /** Whether `pattern` is a regular expression (RE2 syntax) rather than literal text. */
  regex?: boolean;
  /** true, false, or 'smart' (the default): case-sensitive only when the pattern has a capital letter. */
  caseSensitive?: boolean | 'smart';
  /** Only matches with no letter, digit or `_` right before or after them. */
  wholeWord?: boolean;
}

/** A match within a line: UTF-16 offsets, end exclusive. */
export interface LineSpan {
  start: number;
  end: number;
}

/** A match within a line with the text of its capture groups (`groups[0]` the whole match; null for a group that took no part). */
export interface GroupSpan extends LineSpan {
  groups: (string | null)[];
}

/** A compiled query. */
export interface TextMatcher {
  /** Whether the query can match anywhere in `text` (a fast test before the line-by-line search). */
  mayMatch(text: string): boolean;
  /** The matches within one line (no line break in it), left to right, at most `max`. */
  matchLine(line: string, max: number): LineSpan[];
  /** The same matches with their capture groups, numbered as in the pattern (a replacement's `$1`). */
  matchLineGroups(line: string, max: number): GroupSpan[];
  /** Capture groups the pattern has (0 for literal text); group 0, the whole match, not counted. */
  readonly groupCount: number;
  /** The pattern's named groups (`(?P<name>…)`) and their numbers. */
  readonly groupNames: Readonly<Record<string, number>>;
}

/** Longest pattern accepted. */
export const MAX_PATTERN_CHARS = 1000;
const WORD_EDGE = '[^\\p{L}\\p{N}_]';

/**
 * Compiles a query; throws LoomError validation_error for an empty pattern, one longer than
 * MAX_PATTERN_CHARS, one that names a line break (matches never span lines), or a regular
 * expression RE2 refuses.
 *
 * @example compileTextQuery({ pattern: 'todo', wholeWord: true }).matchLine('// TODO: x', 10) // [{start: 3, end: 7}]
 */
export function compileTextQuery(query: TextQuery): TextMatcher {
  const { pattern } = query;
  if (typeof pattern !== 'string' || pattern.length === 0) throw refused('The search pattern is empty.');
  if (pattern.length > MAX_PATTERN_CHARS) throw refused(`The search pattern is longer than ${MAX_PATTERN_CHARS} characters.`);
  if (/[\r\n]/.test(pattern) || (query.regex && /(^|[^\\])(\\\\)*\\[nr]/.test(pattern))) {
    throw refused('The search pattern names a line break; matches never span lines.');
  }
  const caseSensitive = query.caseSensitive === undefined || query.caseSensitive === 'smart' ? hasCapital(pattern, query.regex === true) : query.caseSensitive;
  const body = query.regex ? pattern : RE2JS.quote(pattern);
  const source = query.wholeWord ? `(?:^|${WORD_EDGE})(${body})(?:${WORD_EDGE}|$)` : body;
  const flags = (caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE) | RE2JS.MULTILINE;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, flags);
  } catch (error) {
    throw refused(`The regular expression is not valid RE2: ${(error as Error).message}.`);
  }
  // Whole words wrap the pattern in a group of their own: the pattern's groups come after it.
  const group = query.wholeWord ? 1 : 0;
  const groupCount = query.regex ? compiled.groupCount() - group : 0;
  const groupNames: Record<string, number> = {};
  if (query.regex) for (const [name, index] of Object.entries(compiled.namedGroups())) groupNames[name] = index - group;
  // A literal search with case: indexOf finds it faster than any automaton.
  const literal = !query.regex && !query.wholeWord && caseSensitive ? pattern : undefined;
  const find = <T extends LineSpan>(line: string, max: number, make: (start: number, end: number, matcher?: Matcher) => T): T[] => {
    const spans: T[] = [];
    if (literal !== undefined) {
      for (let at = line.indexOf(literal); at >= 0 && spans.length < max; at = line.indexOf(literal, at + literal.length)) {
        spans.push(make(at, at + literal.length));
      }
      return spans;
    }
    if (!compiled.test(line)) return spans;
    const matcher = compiled.matcher(line);
    let from = 0;
    while (spans.length < max && from <= line.length && matcher.find(from)) {
      const start = matcher.start(group);
      const end = matcher.end(group);
      spans.push(make(start, end, matcher));
      // The next search starts where this match ends: for whole words, the character after
      // it may be the edge before the next one. An empty match moves on by one.
      from = end > start ? end : end + 1;
    }
    return spans;
  };
  return {
    mayMatch: (text) => (literal !== undefined ? text.includes(literal) : compiled.test(text)),
    matchLine: (line, max) => find(line, max, (start, end) => ({ start, end })),
    matchLineGroups: (line, max) =>
      find(line, max, (start, end, matcher) => {
        const groups: (string | null)[] = [line.slice(start, end)];
        for (let index = 1; matcher && index <= groupCount; index++) groups.push(matcher.group(index + group));
        return { start, end, groups };
      }),
    groupCount,
    groupNames,
  };
}

/** Whether a pattern holds a capital letter, escapes (`\W`, `\p{Lu}`) aside. */
function hasCapital(pattern: string, regex: boolean): boolean {
  const letters = regex ? pattern.replace(/\\p\{[^}]*\}|\\P\{[^}]*\}|\\[pP][A-Za-z]|\\./g, '') : pattern;
  return /\p{Lu}/u.test(letters);
}

function refused(message: string): LoomError {
  return new LoomError('validation_error', message);
}

/** A matching line of a file. */
export interface LineMatch {
  /** 1-based. */
  line: number;
  /** The line's text, cut to MAX_PREVIEW_CHARS around the first match. */
  preview: string;
  /** UTF-16 column (1-based) of `preview`'s first character in the line. */
  previewColumn: number;
  /** The matches, as 1-based columns in the line, end exclusive. */
  matches: { column: number; endColumn: number }[];
}

/** Characters of a matching line shown. */
export const MAX_PREVIEW_CHARS = 400;

/**
 * The matching lines of `text`, in order, until `sink` returns false, at most `maxPerFile`
 * matches, or `stop()` says the search is over (its time or its total is spent). Lines are
 * split at `\n` (a `\r` before it is not part of the line).
 *
 * @example searchLines('a\nfoo bar\n', matcher, { maxPerFile: 100, stop: () => false }, (m) => void console.log(m.line)) // 2
 */
export function searchLines(
  text: string,
  matcher: TextMatcher,
  limits: { maxPerFile: number; stop: () => boolean },
  sink: (match: LineMatch) => boolean,
): void {
  if (!matcher.mayMatch(text)) return;
  let found = 0;
  let line = 0;
  for (let start = 0; start <= text.length;) {
    line++;
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const content = text.charCodeAt(end - 1) === 13 && end > start ? text.slice(start, end - 1) : text.slice(start, end);
    if ((line & 255) === 0 && limits.stop()) return;
    const spans = matcher.matchLine(content, limits.maxPerFile - found);
    if (spans.length > 0) {
      found += spans.length;
      const first = spans[0]!.start;
      const from = Math.max(0, Math.min(first - 100, content.length - MAX_PREVIEW_CHARS));
      const match: LineMatch = {
        line,
        preview: content.slice(from, from + MAX_PREVIEW_CHARS),
        previewColumn: from + 1,
        matches: spans.map((span) => ({ column: span.start + 1, endColumn: span.end + 1 })),
      };
      if (!sink(match) || found >= limits.maxPerFile) return;
    }
    if (end >= text.length) return;
    start = end + 1;
  }
}
