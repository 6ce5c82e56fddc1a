// Reading edit blocks out of a model's answer, and out of a tool call's arguments. Never
// throws: what cannot be read becomes a problem that says which block, which line and what was
// expected, and the rest of the answer is still read.
import { quoted } from '../../text/quote.ts';
import { linesText } from './lines.ts';
import { classifyLine, DIVIDER_MARKER, REPLACE_MARKER, SEARCH_MARKER, type LineKind } from './markers.ts';
import { mentionedPaths, pathFromFenceInfo, pathFromLine } from './paths.ts';
import type { EditBlock, EditProblem, EditProblemCode, ParsedEdits } from './types.ts';

export interface ParseOptions {
  /**
   * The answer was cut off (the model ran out of tokens): a last block without its
   * `>>>>>>> REPLACE` is then a problem instead of running to the end of the answer.
   */
  truncated?: boolean;
}

type Fence = Extract<LineKind, { kind: 'fence' }> & { line: number };

interface OpenBlock {
  number: number;
  /** 0-based line of its `<<<<<<< SEARCH`. */
  head: number;
  path: string | null;
  search: string[];
  replace: string[];
  /** 0-based line of its `=======`; -1 before it. */
  divider: number;
  /** A problem was reported: the block is read to its end but not returned. */
  invalid: boolean;
  /** The fence open when the block began. */
  fence: Fence | null;
}

/** The model's own text quoted back to it: a marker, a path, a line, cut when long (a line may be megabytes). */
const quote = (text: string): string => quoted(text);
/** Paths the text names, the first few of them. */
const MENTIONED_SHOWN = 5;
const quoteAll = (paths: readonly string[]): string =>
  `${paths.slice(0, MENTIONED_SHOWN).map(quote).join(', ')}${paths.length > MENTIONED_SHOWN ? ` and ${paths.length - MENTIONED_SHOWN} more` : ''}`;

/**
 * Reads the search/replace blocks of a model's answer:
 *
 *     src/app.ts
 *     ```ts
 *     <<<<<<< SEARCH
 *     const a = 1;
 *     =======
 *     const a = 2;
 *     >>>>>>> REPLACE
 *     ```
 *
 * Prose may come between blocks. The path is the line before `<<<<<<< SEARCH` (or before its
 * opening fence, or in the fence's info string: ```ts src/app.ts), alone on its line, maybe in
 * backticks, bold or a heading; a block without one takes the previous block's path, unless the
 * text between them names another file. Markers may have 5–9 characters, any case, spaces around;
 * the last block of an answer may lack its `>>>>>>> REPLACE` (unless `options.truncated`). Lines
 * inside a block are the file's, fences included. See README.md for every rule.
 *
 * @example
 * parseEditBlocks('a.ts\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n');
 * // → { blocks: [{ path: 'a.ts', search: 'x\n', replace: 'y\n', origin: { number: 1, line: 2 } }], problems: [] }
 */
export function parseEditBlocks(answer: string, options: ParseOptions = {}): ParsedEdits {
  const lines = answer.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  const blocks: EditBlock[] = [];
  const problems: EditProblem[] = [];
  let fence: Fence | null = null;
  let open: OpenBlock | null = null;
  let count = 0;
  /** 0-based line where the text before the next block starts. */
  let after = 0;
  let lastPath: string | null = null;

  const problem = (code: EditProblemCode, message: string, line: number, number?: number): void => {
    problems.push(number === undefined ? { code, message, line: line + 1 } : { code, message, number, line: line + 1 });
  };
  const label = (block: OpenBlock): string => `Block ${block.number} (line ${block.head + 1})`;
  const fail = (block: OpenBlock, code: EditProblemCode, message: string, line: number): void => {
    if (!block.invalid) problem(code, message, line, block.number);
    block.invalid = true;
  };

  const begin = (head: number, invalid: boolean): OpenBlock => {
    count++;
    const block: OpenBlock = { number: count, head, path: null, search: [], replace: [], divider: -1, invalid, fence };
    const found = resolvePath(lines, after, head, fence, lastPath);
    if ('path' in found) {
      block.path = found.path;
      lastPath = found.path;
    } else fail(block, found.code, `${label(block)} ${found.message}`, head);
    return block;
  };
  const close = (block: OpenBlock, line: number): void => {
    if (!block.invalid && block.path !== null) {
      blocks.push({
        path: block.path,
        search: linesText(block.search),
        replace: linesText(block.replace),
        origin: { number: block.number, line: block.head + 1 },
      });
    }
    open = null;
    after = line + 1;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const kind = classifyLine(line);
    const block: OpenBlock | null = open;
    if (block === null) {
      if (kind.kind === 'search') open = begin(i, false);
      else if (kind.kind === 'malformed' && kind.expected === SEARCH_MARKER) {
        // Read as the start of a block, so its other markers are not reported again.
        problem('malformed_marker', `Line ${i + 1}: ${quote(line.trim())} is not a marker; expected ${quote(SEARCH_MARKER)} alone on its line.`, i, count + 1);
        open = begin(i, true);
      } else if (kind.kind === 'replace' || kind.kind === 'malformed') {
        problem(
          'stray_marker',
          `Line ${i + 1}: ${quote(line.trim())} without a ${quote(SEARCH_MARKER)} before it. Each block starts with ${quote(SEARCH_MARKER)} on its own line, after the file's path.`,
          i,
        );
        after = i + 1;
      } else if (kind.kind === 'fence') {
        if (fence === null) fence = { ...kind, line: i };
        else if (kind.char === fence.char && kind.length >= fence.length && kind.info === '') fence = null;
      }
      continue;
    }
    const expected = block.divider < 0 ? DIVIDER_MARKER : REPLACE_MARKER;
    switch (kind.kind) {
      case 'search':
        fail(
          block,
          'unterminated',
          `${label(block)} is not closed: the next ${quote(SEARCH_MARKER)} comes at line ${i + 1}, before its ${quote(expected)}.`,
          i,
        );
        close(block, block.head);
        open = begin(i, false);
        break;
      case 'divider':
        if (block.divider < 0) block.divider = i;
        else {
          fail(
            block,
            'extra_divider',
            `${label(block)} has a second ${quote(DIVIDER_MARKER)} at line ${i + 1} (the first is at line ${block.divider + 1}); a block has exactly one, between the lines to find and the new lines.`,
            i,
          );
        }
        break;
      case 'replace':
        if (block.divider < 0) {
          fail(
            block,
            'missing_divider',
            `${label(block)}: ${quote(REPLACE_MARKER)} at line ${i + 1} comes before any ${quote(DIVIDER_MARKER)}. Expected the lines to find, then ${quote(DIVIDER_MARKER)}, then the new lines, then ${quote(REPLACE_MARKER)}.`,
            i,
          );
        }
        close(block, i);
        break;
      case 'malformed':
        fail(
          block,
          'malformed_marker',
          `${label(block)}: line ${i + 1} (${quote(line.trim())}) is not a marker; expected ${quote(expected)} alone on its line.`,
          i,
        );
        if (kind.expected === REPLACE_MARKER) close(block, i);
        break;
      default:
        (block.divider < 0 ? block.search : block.replace).push(line);
    }
  }

  const last: OpenBlock | null = open;
  if (last !== null) {
    if (last.divider < 0) {
      fail(last, 'unterminated', `${label(last)}: the answer ends before its ${quote(DIVIDER_MARKER)} and ${quote(REPLACE_MARKER)}.`, lines.length - 1);
    } else if (options.truncated) {
      fail(
        last,
        'unterminated',
        `${label(last)}: the answer was cut off before its ${quote(REPLACE_MARKER)}; send this block again, complete.`,
        lines.length - 1,
      );
    } else {
      const replace = endOfLastBlock(last, answer.endsWith('\n'));
      if (replace === null) {
        fail(
          last,
          'unterminated',
          `${label(last)}: the answer ends without its ${quote(REPLACE_MARKER)}, after blank lines: whether they belong to the new lines cannot be told. End the block with ${quote(REPLACE_MARKER)}.`,
          lines.length - 1,
        );
      } else last.replace = replace;
    }
    close(last, lines.length - 1);
  }
  return { blocks, problems };
}

/**
 * The new lines of a last block that lacks `>>>>>>> REPLACE`: up to the fence that closes the
 * one the block began in (the last such fence, since the file's own lines may hold shorter
 * ones), else to the end of the answer (its final newline ends the last line). Blank lines at
 * the end are kept when SEARCH ends with as many (they copy its context); otherwise whether
 * they are new lines or the answer's own end cannot be told: null.
 */
function endOfLastBlock(block: OpenBlock, endsWithNewline: boolean): string[] | null {
  const { replace, fence } = block;
  let end = replace.length;
  if (endsWithNewline && end > 0 && replace[end - 1] === '') end--;
  if (fence !== null) {
    for (let i = replace.length - 1; i >= 0; i--) {
      const kind = classifyLine(replace[i]!);
      if (kind.kind === 'fence' && kind.char === fence.char && kind.length >= fence.length && kind.info === '') {
        end = i;
        break;
      }
    }
  }
  const blanksAtEnd = (lines: readonly string[], to: number): number => {
    let count = 0;
    while (count < to && lines[to - 1 - count]!.trim() === '') count++;
    return count;
  };
  const blanks = blanksAtEnd(replace, end);
  if (blanks > 0 && blanks !== blanksAtEnd(block.search, block.search.length)) return null;
  return replace.slice(0, end);
}

type PathFound = { path: string } | { code: 'missing_path' | 'unclear_path'; message: string };

/**
 * The path of the block whose `<<<<<<< SEARCH` is line `head`, from the lines since the last
 * block (`after` to `head`): the nearest non-blank line (or, when that is the block's opening
 * fence, the fence's info string, then the line before the fence).
 */
function resolvePath(lines: readonly string[], after: number, head: number, fence: Fence | null, lastPath: string | null): PathFound {
  const before = (from: number): number => {
    let i = from;
    while (i >= after && lines[i]!.trim() === '') i--;
    return i;
  };
  let i = before(head - 1);
  if (i >= after && fence !== null && fence.line === i) {
    const inInfo = pathFromFenceInfo(fence.info);
    const j = before(i - 1);
    const onLine = j >= after ? pathFromLine(lines[j]!) : null;
    if (inInfo !== null && onLine !== null && inInfo !== onLine) {
      return {
        code: 'unclear_path',
        message: `names two files: ${quote(onLine)} on line ${j + 1} and ${quote(inInfo)} on its fence. Write one path alone on the line before ${quote(SEARCH_MARKER)}.`,
      };
    }
    if (inInfo !== null || onLine !== null) return { path: (inInfo ?? onLine)! };
    i = -1;
  } else if (i >= after && classifyLine(lines[i]!).kind !== 'fence') {
    const path = pathFromLine(lines[i]!);
    if (path !== null) return { path };
  }
  const mentioned = mentionedPaths(lines.slice(after, head).join('\n')).filter((path) => path !== lastPath);
  const fix = `Write the file's path alone on the line before ${quote(SEARCH_MARKER)} (or before the opening fence).`;
  if (lastPath === null) {
    const named = mentioned.length ? ` The text before it names ${quoteAll(mentioned)}, but not on a line of its own.` : '';
    return { code: 'missing_path', message: `has no file path.${named} ${fix}` };
  }
  if (mentioned.length) {
    return {
      code: 'unclear_path',
      message: `has no path line, and the text before it names ${quoteAll(mentioned)}, so it may not be for ${quote(lastPath)} like the block before. ${fix}`,
    };
  }
  return { path: lastPath };
}

/**
 * An edit from a tool call's arguments, `{path, search, replace}` (strings; `search` empty
 * to create a file). The strings are the file's lines as they are: no markers, no escaping, so
 * this form also edits files whose lines look like markers.
 *
 * @example
 * editFromArguments({ path: 'src/a.ts', search: 'x\n', replace: 'y\n' });
 * // → { block: { path: 'src/a.ts', search: 'x\n', replace: 'y\n' } }
 */
export function editFromArguments(args: unknown): { block: EditBlock } | { problem: EditProblem } {
  const invalid = (message: string): { problem: EditProblem } => ({ problem: { code: 'invalid_arguments', message } });
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return invalid('The arguments must be an object {path, search, replace}.');
  const { path, search, replace } = args as Record<string, unknown>;
  for (const [name, value] of [
    ['path', path],
    ['search', search],
    ['replace', replace],
  ] as const) {
    if (typeof value !== 'string')
      return invalid(
        `"${name}" must be a string${name === 'search' ? ' (empty to create a new file)' : name === 'replace' ? ' (empty to delete the lines)' : ''}.`,
      );
  }
  const cleanPath = (path as string).trim().replace(/^\.\//, '');
  if (cleanPath === '') return invalid('"path" is empty: give the path of the file to edit.');
  if (cleanPath.length > 1024 || /[\u0000-\u001f\u007f]/.test(cleanPath)) {
    return { problem: { code: 'invalid_path', message: '"path" must be a file path: at most 1024 characters, no control characters.' } };
  }
  const firstLine = (search as string).split('\n').find((line) => line.trim() !== '');
  if (firstLine !== undefined && classifyLine(firstLine).kind === 'search') {
    return invalid(`"search" starts with ${quote(SEARCH_MARKER)}: pass the file's old lines in "search" and the new lines in "replace", without markers.`);
  }
  return { block: { path: cleanPath, search: search as string, replace: replace as string } };
}
