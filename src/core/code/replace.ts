// Replace in files, computed: each match of a text query in a file's text (the matcher of the
// text search, RE2 in linear time) becomes a text edit, with the line before and after for a
// preview. A regular expression's replacement names its groups as VS Code's does (JavaScript's
// rules): `$1`…`$99`, `$&` or `$0` for the whole match, `${name}` / `$<name>` for a named group,
// `$$` for a dollar, and `\n`, `\t`, `\\`. Applying the edits is the language service's
// (src/core/language/service.ts applyEdit): this file only computes.
import { LoomError } from '../errors.ts';
import { indexLines } from '../text/line-index.ts';
import type { TextEdit } from '../language/types.ts';
import { MAX_PREVIEW_CHARS, type TextMatcher } from './text-match.ts';

/** Longest replacement accepted (characters). */
export const MAX_REPLACEMENT_CHARS = 1000;

/** A compiled replacement: the new text for a match, from its groups. */
export type Replacement = (groups: readonly (string | null)[]) => string;

/** One match of a file and the edit that replaces it. */
export interface ReplaceMatch {
  /** 1-based. */
  line: number;
  /** 1-based UTF-16 columns in the line; `endColumn` exclusive. */
  column: number;
  endColumn: number;
  /** The text matched, and what replaces it. */
  before: string;
  after: string;
  /** The line's text, cut to MAX_PREVIEW_CHARS around the match. */
  preview: string;
  /** The column (1-based) of `preview`'s first character in the line. */
  previewColumn: number;
}

type Part = string | number;

/**
 * Compiles a replacement for `matcher`'s query. Literal text (no regex) is taken as it is;
 * for a regular expression, a group the pattern does not have is a validation error (400),
 * never an empty string in the files.
 *
 * @example compileReplacement('$2-$1', compileTextQuery({ pattern: '(\\w+)@(\\w+)', regex: true }), true)(['a@b', 'a', 'b']) // 'b-a'
 */
export function compileReplacement(template: string, matcher: TextMatcher, regex: boolean): Replacement {
  if (template.length > MAX_REPLACEMENT_CHARS) throw refused(`The replacement is longer than ${MAX_REPLACEMENT_CHARS} characters.`);
  if (!regex) return () => template;
  const parts: Part[] = [];
  let text = '';
  const group = (index: number) => {
    if (text) parts.push(text);
    text = '';
    parts.push(index);
  };
  for (let at = 0; at < template.length; at++) {
    const char = template[at]!;
    const next = template[at + 1];
    if (char === '\\' && next !== undefined && (next === 'n' || next === 't' || next === '\\')) {
      text += next === 'n' ? '\n' : next === 't' ? '\t' : '\\';
      at++;
    } else if (char !== '$' || next === undefined) {
      text += char;
    } else if (next === '$') {
      text += '$';
      at++;
    } else if (next === '&') {
      group(0);
      at++;
    } else if (next >= '0' && next <= '9') {
      // Two digits when the pattern has that many groups, else one (JavaScript's rule).
      const two = template.slice(at + 1, at + 3);
      const long = /^\d\d$/.test(two) && Number(two) >= 1 && Number(two) <= matcher.groupCount;
      const index = long ? Number(two) : Number(next);
      if (index > matcher.groupCount) throw noGroup(`$${index}`, matcher);
      group(index);
      at += long ? 2 : 1;
    } else if (next === '{' || next === '<') {
      const close = template.indexOf(next === '{' ? '}' : '>', at + 2);
      const name = close > 0 ? template.slice(at + 2, close) : '';
      if (!/^\w+$/.test(name)) {
        text += char;
        continue;
      }
      const index = /^\d+$/.test(name) ? Number(name) : matcher.groupNames[name];
      if (index === undefined || index > matcher.groupCount) throw noGroup(template.slice(at, close + 1), matcher);
      group(index);
      at = close;
    } else {
      text += char;
    }
  }
  if (text) parts.push(text);
  return (groups) => parts.map((part) => (typeof part === 'number' ? (groups[part] ?? '') : part)).join('');
}

/**
 * The matches of `matcher` in `text` (at most `max`), each with the edit that replaces it. Lines
 * break at "\n", "\r\n" and a lone "\r" as the editor's do, so the edits' positions are the
 * editor's.
 *
 * @example
 *   const matcher = compileTextQuery({ pattern: 'a' });
 *   replaceMatches('a b a\n', matcher, compileReplacement('x', matcher, false), 10).edits.length // 2
 */
export function replaceMatches(text: string, matcher: TextMatcher, replacement: Replacement, max: number): { edits: TextEdit[]; matches: ReplaceMatch[] } {
  const edits: TextEdit[] = [];
  const matches: ReplaceMatch[] = [];
  if (max <= 0 || !matcher.mayMatch(text)) return { edits, matches };
  const { lineStarts } = indexLines(text);
  for (let index = 0; index <= lineStarts.length && matches.length < max; index++) {
    const start = index === 0 ? 0 : lineStarts[index - 1]!;
    const end = index < lineStarts.length ? contentEnd(text, lineStarts[index]!) : text.length;
    const line = text.slice(start, end);
    for (const span of matcher.matchLineGroups(line, max - matches.length)) {
      const after = replacement(span.groups);
      const from = Math.max(0, Math.min(span.start - 100, line.length - MAX_PREVIEW_CHARS));
      const range = { start: { line: index + 1, column: span.start + 1 }, end: { line: index + 1, column: span.end + 1 } };
      edits.push({ range, newText: after });
      matches.push({
        line: index + 1,
        column: span.start + 1,
        endColumn: span.end + 1,
        before: span.groups[0] ?? '',
        after,
        preview: line.slice(from, from + MAX_PREVIEW_CHARS),
        previewColumn: from + 1,
      });
    }
  }
  return { edits, matches };
}

/** Where a line's content ends, given where the next line starts (before its "\n", "\r\n" or "\r"). */
function contentEnd(text: string, nextStart: number): number {
  return text.charCodeAt(nextStart - 1) === 10 && text.charCodeAt(nextStart - 2) === 13 ? nextStart - 2 : nextStart - 1;
}

function noGroup(reference: string, matcher: TextMatcher): LoomError {
  const names = Object.keys(matcher.groupNames);
  return refused(
    `The replacement names ${reference}, but the pattern has ${matcher.groupCount === 1 ? 'one group' : `${matcher.groupCount} groups`}${names.length ? ` (named ${names.join(', ')})` : ''}; write $$ for a dollar sign.`,
  );
}

function refused(message: string): LoomError {
  return new LoomError('validation_error', message);
}
