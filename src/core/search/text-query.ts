// What a search looks for, from a query as a person or a model writes it: a plain text, or a
// regular expression (linear-regex.ts: RE2, linear time). The query's length is bounded before
// anything is compiled, and a refusal never quotes the query whole.
import { LoomError } from '../errors.ts';
import { LinearRegex } from './linear-regex.ts';

/** The longest query searched for. */
export const MAX_QUERY_CHARS = 1000;

/**
 * A line is matched against a regular expression only while its length × the pattern's program
 * size stays within this. RE2 matches in linear time, but when its DFA cannot help (a pattern
 * built for that) a character costs up to the program's size in steps, and one line's match
 * cannot be interrupted: this keeps a line to tens of milliseconds (bench/search/linear-regex.ts).
 * Patterns of up to 50 instructions, which is what people and models write, search lines of
 * 4,000 characters.
 */
const LINE_WORK = 200_000;

export interface TextQueryInput {
  query: string;
  /** Read the query as a regular expression (RE2 syntax); plain text by default. */
  regex?: boolean;
  /** True by default. */
  caseSensitive?: boolean;
  /** Lines longer than this are not searched (data, minified code). */
  maxLineChars: number;
}

export interface TextQuery {
  /** Whether a line holds what the query looks for. */
  test(line: string): boolean;
  /** Lines longer than this are not searched: the caller's bound, or less for a large regular expression. */
  maxLineChars: number;
}

/**
 * Compiles a query into a test of one line; throws LoomError validation_error for an empty
 * query, one longer than MAX_QUERY_CHARS, or a regular expression RE2 refuses (with its reason).
 *
 * @example
 * const query = compileTextQuery({ query: 'TODO|FIXME', regex: true, maxLineChars: 4000 });
 * query.test('// TODO: remove');                                                       // true
 * compileTextQuery({ query: 'Add(', caseSensitive: false, maxLineChars: 4000 }).test('add(1, 2)'); // true
 */
export function compileTextQuery(input: TextQueryInput): TextQuery {
  const { query, maxLineChars } = input;
  if (typeof query !== 'string' || query === '') throw new LoomError('validation_error', 'The query is empty: give the text to search for.');
  if (query.length > MAX_QUERY_CHARS) {
    throw new LoomError(
      'validation_error',
      `The query is ${query.length} characters long; at most ${MAX_QUERY_CHARS} are searched for. Search for a shorter, distinctive part of it.`,
    );
  }
  const ignoreCase = input.caseSensitive === false;
  if (input.regex) {
    const regex = LinearRegex.compile(query, { ignoreCase });
    return { test: (line) => regex.test(line), maxLineChars: Math.min(maxLineChars, Math.floor(LINE_WORK / regex.programSize)) };
  }
  if (!ignoreCase) return { test: (line) => line.includes(query), maxLineChars };
  const lower = query.toLowerCase();
  return { test: (line) => line.toLowerCase().includes(lower), maxLineChars };
}
