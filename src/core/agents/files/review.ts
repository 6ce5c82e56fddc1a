// Reviewing a task's change to a file: the version its lines are counted on, and undoing some of
// its hunks only (what a review rejects), the rest of the change kept. A hunk names a range of
// lines in the task's text and the range of the original it replaces; lines are counted the way
// an editor (CodeMirror) counts them, so that what the window shows is what the server undoes.
import { createHash } from 'node:crypto';
import { LoomError } from '../../errors.ts';
import type { ChangeEntry } from './change-log.ts';

/** A range of lines: 1-based `start`; `count` 0 is the empty range just before line `start`. */
export interface LineRange {
  start: number;
  count: number;
}

/** A change to undo: the task's lines `changed` go back to the original's lines `original`. */
export interface RevertHunk {
  original: LineRange;
  changed: LineRange;
}

/** A file to revert: whole, or only some hunks (counted on `version`). */
export interface RevertFileRequest {
  file: string;
  version?: string;
  hunks?: readonly RevertHunk[];
}

/** Both sides of a file's change, in full: what a review shows. */
export interface ChangeTexts {
  file: string;
  action: 'created' | 'modified' | 'deleted' | 'renamed';
  from?: string;
  /** Before the task; null: it created the file. */
  original: string | null;
  /** As the task left it; null: it deleted the file. */
  current: string | null;
  version: string;
  /** The file is no longer as the task left it: a revert of it would be refused. */
  changedSince: boolean;
}

/**
 * What names the task's text of a file now: hunks are counted on it, so a revert of hunks
 * counted on another text (a follow-up changed the file since) is refused rather than applied
 * to the wrong lines.
 *
 * @example
 *   changeVersion({ id: 1, path: 'a.ts', origin: 'a.ts', before: 'x\n', after: 'y\n' }) // '3f0a…' (16 hex digits)
 */
export function changeVersion(entry: Pick<ChangeEntry, 'path' | 'after'>): string {
  const side = entry.after === null ? 'deleted' : `text:${entry.after}`;
  return createHash('sha256').update(`${entry.path}\u0000${side}`).digest('hex').slice(0, 16);
}

/**
 * A text's lines, each with the line break that ends it (the last has none): `\n`, `\r\n` and
 * a lone `\r` each end a line, as in the editor. A text ending in a break has an empty last line,
 * and the empty text is one empty line, so that joining the lines gives the text back.
 */
export function linesOf(text: string): string[] {
  const lines: string[] = [];
  const breaks = /\r\n|\r|\n/g;
  let from = 0;
  for (let match = breaks.exec(text); match; match = breaks.exec(text)) {
    lines.push(text.slice(from, match.index + match[0].length));
    from = match.index + match[0].length;
  }
  lines.push(text.slice(from));
  return lines;
}

/**
 * `after` with the given hunks undone: each one's `changed` lines replaced by the `original`
 * lines of `before`. The hunks must be in order and must not overlap on either side; ranges out
 * of the texts are refused (LoomError validation_error), nothing applied.
 *
 * @example
 *   revertHunks('a\nb\nc\n', 'a\nB\nc\nD\n', [{ original: { start: 2, count: 1 }, changed: { start: 2, count: 1 } }])
 *   // 'a\nb\nc\nD\n': the first change undone, the second kept
 */
export function revertHunks(before: string, after: string, hunks: readonly RevertHunk[], file: string): string {
  const original = linesOf(before);
  const changed = linesOf(after);
  const inside = (range: LineRange, lines: string[], side: string, index: number) => {
    if (range.start + range.count - 1 > lines.length || range.start > lines.length + 1) {
      throw new LoomError(
        'validation_error',
        `Hunk ${index + 1} of ${file} reaches past the ${side} text (lines ${range.start}–${range.start + range.count - 1} of ${lines.length}).`,
        'Count the hunks on the texts GET /api/agent/change/:taskId answers.',
      );
    }
  };
  hunks.forEach((hunk, index) => {
    inside(hunk.original, original, 'original', index);
    inside(hunk.changed, changed, "task's", index);
    const previous = hunks[index - 1];
    if (
      previous &&
      (hunk.changed.start < previous.changed.start + previous.changed.count || hunk.original.start < previous.original.start + previous.original.count)
    ) {
      throw new LoomError(
        'validation_error',
        `Hunk ${index + 1} of ${file} overlaps the one before it, or comes before it.`,
        'List the hunks in order, each once.',
      );
    }
  });
  // From the last hunk back, so that each one's line numbers still hold when it is applied.
  for (const hunk of [...hunks].reverse()) {
    const lines = original.slice(hunk.original.start - 1, hunk.original.start - 1 + hunk.original.count);
    changed.splice(hunk.changed.start - 1, hunk.changed.count, ...lines);
  }
  return joinLines(changed, [linesOf(after), original]);
}

/**
 * The joined lines. A line taken from the middle of the original ends in its break; one that
 * was the original's last (no break) but is no longer last gets the break the texts use, so
 * that undoing a hunk never glues two lines together.
 */
function joinLines(lines: string[], texts: string[][]): string {
  const ending = /(?:\r\n|\r|\n)$/;
  const lineBreak =
    texts
      .flat()
      .find((line) => ending.test(line))
      ?.match(ending)?.[0] ?? '\n';
  return lines.map((line, index) => (index < lines.length - 1 && !ending.test(line) ? line + lineBreak : line)).join('');
}
