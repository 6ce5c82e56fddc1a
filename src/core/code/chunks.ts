// The documents of the ranked search: a file cut into chunks of lines, at the starts of its
// top-level definitions where it has some (a function and its doc are one hit), at least
// MIN_LINES and at most MAX_LINES long. Each chunk carries the terms of its text and, apart,
// the names defined in it, which rank higher.
import type { Definition } from './model.ts';
import { termsOfNames, termsOfText } from './tokens.ts';

const MIN_LINES = 20;
const MAX_LINES = 80;

/** One document of the ranked search. */
export interface Chunk {
  /** First line, 1-based. */
  startLine: number;
  /** Last line, inclusive. */
  endLine: number;
  /** Terms of the names defined in it. */
  symbols: string;
  /** Terms of its text. */
  body: string;
}

/**
 * Line ranges covering lines 1..lineCount: each piece ends before the first of `boundaries`
 * (lines where a top-level definition starts) that leaves it at least MIN_LINES long, or after
 * MAX_LINES when none does.
 *
 * @example chunkRanges(120, [30, 45, 90]) // [{start: 1, end: 29}, {start: 30, end: 89}, {start: 90, end: 120}]
 */
export function chunkRanges(lineCount: number, boundaries: readonly number[]): { start: number; end: number }[] {
  const cuts = [...new Set(boundaries)].sort((a, b) => a - b);
  const ranges: { start: number; end: number }[] = [];
  let next = 0;
  for (let start = 1; start <= lineCount;) {
    const limit = Math.min(lineCount, start + MAX_LINES - 1);
    while (next < cuts.length && cuts[next]! < start + MIN_LINES) next++;
    const cut = next < cuts.length && cuts[next]! <= limit ? cuts[next]! : undefined;
    const end = cut !== undefined ? cut - 1 : limit;
    ranges.push({ start, end });
    start = end + 1;
  }
  return ranges;
}

/**
 * The chunks of a file's text; `definitions` (may be empty: a lexical entry) place the cuts and
 * give each chunk its names.
 *
 * @example buildChunks('function a() {}\n', [aDefinition]) // [{startLine: 1, endLine: 1, symbols: 'a', body: 'function a'}]
 */
export function buildChunks(text: string, definitions: readonly Definition[]): Chunk[] {
  const lineStarts = [0];
  for (let at = text.indexOf('\n'); at >= 0 && at < text.length - 1; at = text.indexOf('\n', at + 1)) lineStarts.push(at + 1);
  const lineCount = text.length === 0 ? 0 : lineStarts.length;
  const topLevel = definitions.filter((definition) => definition.container === undefined).map((definition) => definition.range.start.line);
  const ranges = chunkRanges(lineCount, topLevel);
  const names = new Map<number, string[]>();
  for (const definition of definitions) {
    const line = definition.nameRange.start.line;
    const list = names.get(line);
    if (list) list.push(definition.name);
    else names.set(line, [definition.name]);
  }
  return ranges.map(({ start, end }) => {
    const from = lineStarts[start - 1]!;
    const to = end < lineCount ? lineStarts[end]! : text.length;
    const defined: string[] = [];
    for (let line = start; line <= end; line++) defined.push(...(names.get(line) ?? []));
    return { startLine: start, endLine: end, symbols: termsOfNames(defined), body: termsOfText(text.slice(from, to)) };
  });
}
