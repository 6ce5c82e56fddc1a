// How SEARCH's whitespace relates to the lines it matched, and how to write REPLACE's new lines
// in the file's whitespace. Tried from the least to the most risky: identical; trailing
// whitespace only; indentation shifted as a whole (the same prefix added or removed on every
// line); the same indentation written with tabs instead of spaces or the reverse. Anything
// else (lines re-indented each their own way) is refused: REPLACE's indentation could then
// only be guessed.
import { isBlank, leadingSpace } from './lines.ts';

export type Fit =
  | ({
      ok: true;
      kind: 'exact' | 'trailing' | 'shift' | 'tabs';
      /** Some line's trailing whitespace differs. */
      trailing: boolean;
      /** SEARCH has trailing whitespace the file does not: the model adds it, so new lines lose theirs. */
      noisyTrailing: boolean;
    } & Reindent)
  | { ok: false; message: string };

interface Reindent {
  /** A new line of REPLACE in the file's indentation, or why it cannot be written there ("is indented less than that"). */
  reindent(line: string): string | { problem: string };
  /** How SEARCH differs from the file, for refusals: "indented 2 spaces less than the file". */
  describe: string;
}

/** The whitespace at the end of a line; all of a blank line. */
const trailingLength = (line: string): number => line.length - line.trimEnd().length;

/** "4 spaces", "1 tab", "2 tabs and 1 space", "no indentation". */
export function describeIndent(indent: string): string {
  if (indent === '') return 'no indentation';
  const tabs = [...indent].filter((ch) => ch === '\t').length;
  const spaces = indent.length - tabs;
  const parts: string[] = [];
  if (tabs) parts.push(`${tabs} tab${tabs === 1 ? '' : 's'}`);
  if (spaces) parts.push(`${spaces} space${spaces === 1 ? '' : 's'}`);
  return parts.join(' and ');
}

/** The column after `indent` with tab stops every `tabWidth` columns. */
function width(indent: string, tabWidth: number): number {
  let column = 0;
  for (const ch of indent) column = ch === '\t' ? (Math.floor(column / tabWidth) + 1) * tabWidth : column + 1;
  return column;
}

/**
 * Relates SEARCH's lines to the file lines they matched (the same trimmed text, pair by pair).
 * `firstSearchLine` and `firstFileLine` (1-based) only number the lines in messages.
 */
export function fitIndentation(search: readonly string[], file: readonly string[], firstSearchLine: number, firstFileLine: number): Fit {
  const pairs: { a: string; b: string; at: number }[] = [];
  let identical = true;
  let trailing = false;
  let noisyTrailing = false;
  let sameLead = true;
  for (let i = 0; i < search.length; i++) {
    const a = search[i]!;
    const b = file[i]!;
    if (a === b) continue;
    identical = false;
    const ta = trailingLength(a);
    const tb = trailingLength(b);
    if (ta !== tb || a.slice(a.length - ta) !== b.slice(b.length - tb)) trailing = true;
    if (ta > tb) noisyTrailing = true;
    if (isBlank(a)) continue;
    if (leadingSpace(a) !== leadingSpace(b)) sameLead = false;
    pairs.push({ a: leadingSpace(a), b: leadingSpace(b), at: i });
  }
  const keep: Reindent = { reindent: (line) => line, describe: '' };
  if (identical) return { ok: true, kind: 'exact', trailing: false, noisyTrailing: false, ...keep };
  if (sameLead) return { ok: true, kind: 'trailing', trailing, noisyTrailing, ...keep };

  const shift = wholeShift(search, file);
  if (shift) return { ok: true, kind: 'shift', trailing, noisyTrailing, ...shift };

  const tabs = tabsForSpaces(search, file);
  if (tabs && 'reindent' in tabs) return { ok: true, kind: 'tabs', trailing, noisyTrailing, ...tabs };

  const first = pairs.find(({ a, b }) => a !== b)!;
  const detail = tabs
    ? tabs.problem
    : `SEARCH line ${firstSearchLine + first.at} has ${describeIndent(first.a)} where line ${firstFileLine + first.at} of the file has ${describeIndent(first.b)}, and the other lines differ by other amounts`;
  return {
    ok: false,
    message: `SEARCH matches lines ${firstFileLine}–${firstFileLine + file.length - 1} of the file except for indentation, which is not the file's shifted as a whole: ${detail}. Copy the lines with the file's exact indentation.`,
  };
}

/**
 * The same prefix added to, or removed from, every non-blank line. New lines are shifted the
 * same way, and must come out in the indentation style of the matched lines (when they have
 * one): a new line with spaces where these lines have tabs shows a second mistake (spaces for
 * tabs), and where it belongs cannot be told.
 */
function wholeShift(search: readonly string[], file: readonly string[]): Reindent | null {
  let added: string | null = null;
  let removed: string | null = null;
  let decided = false;
  for (let i = 0; i < search.length; i++) {
    if (isBlank(search[i]!)) continue;
    const a = leadingSpace(search[i]!);
    const b = leadingSpace(file[i]!);
    if (!decided) {
      decided = true;
      if (b.length > a.length && b.endsWith(a)) added = b.slice(0, b.length - a.length);
      else if (a.length > b.length && a.endsWith(b)) removed = a.slice(0, a.length - b.length);
      else return null;
    }
    if (added !== null && b !== added + a) return null;
    if (removed !== null && a !== removed + b) return null;
  }
  if (added === null && removed === null) return null;
  const style = styleOf(file);
  const inStyle = (line: string): string | { problem: string } => {
    const indent = leadingSpace(line);
    if (style === 'tabs' && indent.includes(' ')) return { problem: 'is indented with spaces where these lines of the file use tabs' };
    if (style === 'spaces' && indent.includes('\t')) return { problem: 'is indented with tabs where these lines of the file use spaces' };
    return line;
  };
  if (added !== null) {
    const prefix = added;
    return { reindent: (line) => (isBlank(line) ? line : inStyle(prefix + line)), describe: `indented ${describeIndent(prefix)} less than the file` };
  }
  const prefix = removed!;
  return {
    reindent: (line) => (isBlank(line) ? line : line.startsWith(prefix) ? inStyle(line.slice(prefix.length)) : { problem: 'is indented less than that' }),
    describe: `indented ${describeIndent(prefix)} more than the file`,
  };
}

/** How lines are indented: all with tabs only, all with spaces only, a mix, or not at all (null). */
function styleOf(lines: readonly string[]): 'tabs' | 'spaces' | 'mixed' | null {
  let style: 'tabs' | 'spaces' | null = null;
  for (const line of lines) {
    const indent = leadingSpace(line);
    if (indent === '' || isBlank(line)) continue;
    const own = /^\t+$/.test(indent) ? 'tabs' : /^ +$/.test(indent) ? 'spaces' : 'mixed';
    if (own === 'mixed' || (style !== null && own !== style)) return 'mixed';
    style = own;
  }
  return style;
}

const MIXED = 'the file mixes tabs and spaces in these lines, so new lines have no indentation style to follow';
const UNKNOWN_WIDTH = { problem: 'is at an indentation no line of SEARCH has, and how many spaces make a tab cannot be told from SEARCH' };

/**
 * The same columns written with tabs in one and spaces in the other. A tab's width is the one
 * that makes every line's column match (1–8). SEARCH must show it: with lines at two depths or
 * more, only one width (and no shift) fits; with all lines at one depth, any width fits with
 * some shift, so new lines may only take the indentation of SEARCH's lines (anything else is
 * refused). New lines are written in the file's style; a place where the file mixes tabs and
 * spaces has no style to follow.
 */
function tabsForSpaces(search: readonly string[], file: readonly string[]): Reindent | { problem: string } | null {
  const levels = new Map<string, string>();
  const indices: number[] = [];
  for (let i = 0; i < search.length; i++) {
    if (isBlank(search[i]!)) continue;
    indices.push(i);
    const a = leadingSpace(search[i]!);
    const b = leadingSpace(file[i]!);
    if ((levels.get(a) ?? b) !== b) return null;
    levels.set(a, b);
  }
  const widths: number[] = [];
  for (let tabWidth = 1; tabWidth <= 8; tabWidth++) {
    if (indices.every((i) => width(leadingSpace(search[i]!), tabWidth) === width(leadingSpace(file[i]!), tabWidth))) widths.push(tabWidth);
  }
  if (widths.length === 0) return null;
  const style = styleOf(file);
  if (style === 'mixed') return { problem: MIXED };
  if (style === null) return null;
  const describe = style === 'tabs' ? 'indented with spaces where the file uses tabs' : 'indented with tabs where the file uses spaces';
  if (levels.size === 1) {
    const [modelIndent, fileIndent] = [...levels][0]!;
    return {
      describe,
      reindent: (line) => (isBlank(line) ? line : leadingSpace(line) === modelIndent ? fileIndent + line.slice(modelIndent.length) : UNKNOWN_WIDTH),
    };
  }
  const render = (column: number, tabWidth: number): string =>
    style === 'tabs' ? '\t'.repeat(Math.floor(column / tabWidth)) + ' '.repeat(column % tabWidth) : ' '.repeat(column);
  return {
    describe,
    reindent: (line) => {
      if (isBlank(line)) return line;
      const indent = leadingSpace(line);
      const written = new Set(widths.map((tabWidth) => render(width(indent, tabWidth), tabWidth)));
      return written.size === 1 ? [...written][0]! + line.slice(indent.length) : UNKNOWN_WIDTH;
    },
  };
}
