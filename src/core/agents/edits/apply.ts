// Applying one block to one file's content: find the one place SEARCH means, replace it, keep
// everything else byte for byte. Pure: content in, content (or a refusal) out.
import { fitIndentation } from './indentation.ts';
import { isBlank, splitFile, textLines, type FileLines } from './lines.ts';
import { locate } from './locate.ts';
import { nearestAnchor } from './nearest.ts';
import type { EditRefused, EditResult, LineRange, NumberedLine, Tolerance } from './types.ts';

/** Lines of context shown around the nearest lines in a refusal, and at most this many lines in all. */
const CONTEXT_LINES = 2;
const MAX_SHOWN_LINES = 40;
const MAX_SHOWN_CHARS = 200;
const MAX_PLACES = 20;
/** Above this many cells the middle of REPLACE is not aligned with SEARCH's (see `contextOf`). */
const MAX_ALIGNMENT_CELLS = 250_000;

/**
 * Applies one edit to a file's content, or says why not.
 *
 * `content` is the file as it is now, `null` when it does not exist. An empty `search` creates
 * the file (or fills an empty one); otherwise SEARCH must match exactly one place of the file
 * with each line compared without the whitespace at its ends and SEARCH's blank lines at its
 * ends optional. That place is then related to SEARCH from the least to the most risky
 * tolerance (identical; trailing whitespace; a blank line more at SEARCH's ends; indentation
 * shifted as a whole; tabs for spaces) and REPLACE's new lines are written in the file's
 * whitespace. Lines REPLACE copies from SEARCH keep the file's own text; the file's line
 * endings and final newline (or its absence) are kept.
 *
 * @example
 * applyEdit('a\n  b\nc\n', { search: 'b\n', replace: 'b\nb2\n' });
 * // → { ok: true, content: 'a\n  b\n  b2\nc\n', tolerances: ['indentation'], lines: {start: 2, end: 3}, … }
 * applyEdit('x\nx\n', { search: 'x\n', replace: 'y\n' });
 * // → { ok: false, reason: 'ambiguous', count: 2, message: 'SEARCH matches 2 places …' }
 */
export function applyEdit(content: string | null, edit: { search: string; replace: string }): EditResult {
  const search = textLines(edit.search);
  const replace = textLines(edit.replace);
  if (search.length === 0) return create(content, replace);
  if (content === null) {
    return refuse('no_file', 'The file does not exist. Check its path; to create a new file, leave SEARCH empty and put its whole content in REPLACE.');
  }
  let lead = 0;
  while (lead < search.length && isBlank(search[lead]!)) lead++;
  if (lead === search.length)
    return refuse('blank_search', 'SEARCH has only blank lines, which could be anywhere in the file. Include the lines with text next to the place you mean.');
  let trail = 0;
  while (isBlank(search[search.length - 1 - trail]!)) trail++;
  const core = search.slice(lead, search.length - trail);

  const file = splitFile(content);
  const located = locate(file.texts, core);
  if (located.starts.length === 0) return notFound(file, core, lead, located);
  if (located.starts.length > 1) return ambiguous(file, core, located.starts);
  const start = located.starts[0]!;

  // SEARCH's blank lines at its ends count where the file has them too, and are dropped where
  // it does not (from REPLACE as well, where REPLACE repeats them).
  let above = 0;
  while (above < lead && start - above - 1 >= 0 && isBlank(file.texts[start - above - 1]!)) above++;
  let below = 0;
  while (below < trail && start + core.length + below < file.texts.length && isBlank(file.texts[start + core.length + below]!)) below++;
  const searchUsed = search.slice(lead - above, search.length - (trail - below));
  const replaceUsed = dropBlankEnds(replace, lead - above, trail - below);
  const from = start - above;
  const to = start + core.length + below;
  const region = file.texts.slice(from, to);

  const fit = fitIndentation(searchUsed, region, lead - above + 1, from + 1);
  if (!fit.ok) return refuse('indentation', fit.message, numbered(file.texts, from, to));

  // SEARCH identical to the file: REPLACE says exactly what the lines become, so only identical
  // lines count as copies (which keeps their line endings).
  const context = contextOf(searchUsed, replaceUsed, fit.kind === 'exact');
  const lines: string[] = [];
  const ends: (string | null)[] = [];
  for (let r = 0; r < replaceUsed.length; r++) {
    const s = context[r]!;
    if (s >= 0) {
      lines.push(region[s]!);
      ends.push(file.ends[from + s]!);
      continue;
    }
    const written = fit.reindent(replaceUsed[r]!);
    if (typeof written !== 'string') {
      return refuse(
        'indentation',
        `SEARCH matches lines ${from + 1}–${to} of the file ${fit.describe}, but line ${r + 1} of REPLACE ${written.problem}, so where it belongs cannot be told. Copy the lines with the file's exact indentation.`,
        numbered(file.texts, from, to),
      );
    }
    lines.push(fit.noisyTrailing ? written.trimEnd() : written);
    ends.push(null);
  }

  const tolerances: Tolerance[] = [];
  if (lineEndingsDiffer(edit.search + edit.replace, file.eol)) tolerances.push('line_endings');
  if (fit.trailing) tolerances.push('trailing_whitespace');
  if (above < lead || below < trail) tolerances.push('blank_lines');
  if (fit.kind === 'shift') tolerances.push('indentation');
  if (fit.kind === 'tabs') tolerances.push('tabs');
  const next = splice(content, file, from, to, lines, ends);
  return {
    ok: true,
    content: next,
    changed: next !== content,
    created: false,
    tolerances,
    replaced: { start: from + 1, end: to },
    lines: { start: from + 1, end: from + lines.length },
  };
}

function create(content: string | null, replace: string[]): EditResult {
  // A file of only whitespace has nothing SEARCH could anchor on: it counts as empty.
  if (content !== null && content.trim() !== '') {
    return refuse(
      'file_not_empty',
      'SEARCH is empty, which creates a new file, but this file already exists and has content. To change it, put the lines to replace in SEARCH (a few lines around the place are enough).',
    );
  }
  const next = replace.length === 0 ? '' : replace.join('\n') + '\n';
  return {
    ok: true,
    content: next,
    changed: next !== content,
    created: content === null,
    tolerances: [],
    replaced: { start: 1, end: content === null || content === '' ? 0 : splitFile(content).texts.length },
    lines: { start: 1, end: replace.length },
  };
}

function refuse(reason: EditRefused['reason'], message: string, nearest?: NumberedLine[]): EditRefused {
  return nearest ? { ok: false, reason, message, nearest } : { ok: false, reason, message };
}

/** Drops up to `start` blank lines from the start of `lines` and up to `end` from the end. */
function dropBlankEnds(lines: readonly string[], start: number, end: number): string[] {
  let from = 0;
  while (from < start && from < lines.length && isBlank(lines[from]!)) from++;
  let to = lines.length;
  while (lines.length - to < end && to > from && isBlank(lines[to - 1]!)) to--;
  return lines.slice(from, to);
}

/**
 * For each REPLACE line, the SEARCH line it copies (-1: a new line), so that copied lines keep
 * the file's own text rather than the model's copy of it. The lines REPLACE keeps unchanged at
 * its start and end, then an alignment of the rest (when small enough) that counts an
 * identical line twice and one equal but for trailing whitespace once (unless `identicalOnly`).
 * (A new line equal to a copied neighbour but for trailing whitespace is a tie: either may get
 * the file's.)
 */
function contextOf(search: readonly string[], replace: readonly string[], identicalOnly: boolean): Int32Array {
  const context = new Int32Array(replace.length).fill(-1);
  let head = 0;
  while (head < search.length && head < replace.length && search[head] === replace[head]) {
    context[head] = head;
    head++;
  }
  let tail = 0;
  while (tail < search.length - head && tail < replace.length - head && search[search.length - 1 - tail] === replace[replace.length - 1 - tail]) {
    context[replace.length - 1 - tail] = search.length - 1 - tail;
    tail++;
  }
  const rows = search.length - head - tail;
  const cols = replace.length - head - tail;
  if (rows === 0 || cols === 0 || rows * cols > MAX_ALIGNMENT_CELLS) return context;
  const weight = (i: number, j: number): number => {
    const s = search[head + i]!;
    const r = replace[head + j]!;
    return s === r ? 2 : !identicalOnly && s.trimEnd() === r.trimEnd() ? 1 : 0;
  };
  // best[i][j]: the best alignment of search[head+i..] with replace[head+j..].
  const best = new Int32Array((rows + 1) * (cols + 1));
  const at = (i: number, j: number): number => i * (cols + 1) + j;
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = cols - 1; j >= 0; j--) {
      const w = weight(i, j);
      best[at(i, j)] = Math.max(best[at(i + 1, j)]!, best[at(i, j + 1)]!, w > 0 ? w + best[at(i + 1, j + 1)]! : 0);
    }
  }
  for (let i = 0, j = 0; i < rows && j < cols;) {
    const w = weight(i, j);
    if (w > 0 && w + best[at(i + 1, j + 1)]! === best[at(i, j)]) {
      context[head + j] = head + i;
      i++;
      j++;
    } else if (best[at(i + 1, j)]! >= best[at(i, j + 1)]!) i++;
    else j++;
  }
  return context;
}

/**
 * The new content: lines `from` to `to` (0-based, exclusive) replaced by `lines`, whose endings
 * are the file's own for copied lines (`ends[i]`) and the file's usual one for new lines (null).
 * Only the replaced stretch is rebuilt; the rest is sliced from the content as it was. The
 * content keeps ending with a newline, or without one, as it did.
 */
function splice(content: string, file: FileLines, from: number, to: number, lines: readonly string[], ends: readonly (string | null)[]): string {
  const lineCount = file.texts.length - (to - from) + lines.length;
  const finalNewline = content.endsWith('\n');
  let before = content.slice(0, file.starts[from]);
  let middle = '';
  for (let i = 0; i < lines.length; i++) {
    const last = from + i === lineCount - 1;
    let end = ends[i] ?? file.eol;
    if (last) end = finalNewline ? end || file.eol : '';
    else if (end === '') end = file.eol;
    middle += lines[i]! + end;
  }
  // Deleting the last lines of a file without a final newline: the new last line loses its ending.
  if (lines.length === 0 && to === file.texts.length && from > 0 && !finalNewline) before = before.slice(0, before.length - file.ends[from - 1]!.length);
  return before + middle + content.slice(file.starts[to]);
}

function lineEndingsDiffer(text: string, eol: '\n' | '\r\n'): boolean {
  if (!text.includes('\n')) return false;
  return text.includes('\r\n') !== (eol === '\r\n');
}

function numbered(texts: readonly string[], from: number, to: number): NumberedLine[] {
  const shown: NumberedLine[] = [];
  for (let i = Math.max(0, from); i < Math.min(texts.length, to, from + MAX_SHOWN_LINES); i++) {
    const text = texts[i]!;
    shown.push({ line: i + 1, text: text.length > MAX_SHOWN_CHARS ? text.slice(0, MAX_SHOWN_CHARS) + '…' : text });
  }
  return shown;
}

function listing(lines: readonly NumberedLine[]): string {
  const width = String(lines[lines.length - 1]?.line ?? 0).length;
  return lines.map(({ line, text }) => `${String(line).padStart(width)}| ${text}`).join('\n');
}

const quote = (text: string): string => JSON.stringify(text.length > MAX_SHOWN_CHARS ? text.slice(0, MAX_SHOWN_CHARS) + '…' : text);

/** A line standing for lines left out ("...", "// ... existing code ..."): SEARCH cannot skip lines. */
const ELISION = /^\s*(?:\/\/|#|\/\*|<!--|--|;)?\s*(?:\.\.\.|…)|\b(?:existing|rest of( the)?|unchanged) code\b/i;

function notFound(file: FileLines, core: readonly string[], lead: number, located: ReturnType<typeof locate>): EditRefused {
  const elided = core.some((line) => ELISION.test(line))
    ? 'SEARCH cannot skip lines: a line like "..." or "// existing code" is looked for as it is written. Copy every line of the stretch you replace.'
    : '';
  if (file.texts.length === 0 || file.texts.every(isBlank)) {
    return refuse('not_found', 'The file is empty, so SEARCH cannot match. To give it content, leave SEARCH empty and put the content in REPLACE.');
  }
  const anchor = nearestAnchor(file.texts, core, located);
  const advice = 'Copy the lines exactly as they are in the file now (read it again if it may have changed) and send the block again.';
  if (!anchor) {
    return refuse(
      'not_found',
      ['SEARCH does not match the file, and no line of the file resembles its lines: is this the right file?', elided, advice].filter(Boolean).join(' '),
    );
  }
  const start = anchor.fileLine - anchor.searchLine;
  const shown = numbered(file.texts, start - CONTEXT_LINES, start + core.length + CONTEXT_LINES);
  // The first SEARCH line that differs from the file where the two are side by side.
  let difference = '';
  for (let i = 0; i < core.length; i++) {
    const at = start + i;
    const fileLine = at >= 0 && at < file.texts.length ? file.texts[at]! : null;
    if (fileLine !== null && fileLine.trim() === core[i]!.trim()) continue;
    difference =
      fileLine === null
        ? `There, SEARCH line ${lead + i + 1} (${quote(core[i]!)}) would be ${at < 0 ? 'before the first line' : 'past the end'} of the file.`
        : `There, SEARCH line ${lead + i + 1} is ${quote(core[i]!)} but line ${at + 1} of the file is ${quote(fileLine)}.`;
    break;
  }
  const message = [
    `SEARCH does not match the file, even ignoring indentation, trailing whitespace and blank lines at its ends. The most similar lines are ${shown[0]!.line}–${shown[shown.length - 1]!.line}:`,
    listing(shown),
    [difference, elided, advice].filter(Boolean).join(' '),
  ].join('\n');
  return refuse('not_found', message, shown);
}

function ambiguous(file: FileLines, core: readonly string[], starts: readonly number[]): EditRefused {
  const places: LineRange[] = starts.slice(0, MAX_PLACES).map((start) => ({ start: start + 1, end: start + core.length }));
  const named = places.slice(0, 5).map(({ start, end }) => (start === end ? `${start}` : `${start}–${end}`));
  const where =
    starts.length > named.length
      ? `${named.join(', ')} and ${starts.length - named.length} more`
      : `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`;
  const first = starts[0]!;
  return {
    ok: false,
    reason: 'ambiguous',
    message:
      `SEARCH matches ${starts.length} places in the file (lines ${where}); indentation and blank lines do not tell places apart. ` +
      'Add lines of context above or below, taken from the file, that occur only at the place you mean.',
    nearest: numbered(file.texts, first, first + core.length),
    places,
    count: starts.length,
  };
}
