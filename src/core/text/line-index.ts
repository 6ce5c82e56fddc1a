// Line breaks of immutable strings: where each line starts, and which ending dominates.
// "\r\n" is ONE line break everywhere in this folder; a lone "\n" or a lone "\r" is one too.

export const CR = 13;
export const LF = 10;

/** A line ending: what `detectEol` reports and what a new line typed in the document should use. */
export type Eol = '\n' | '\r\n' | '\r';

/**
 * Offsets just after each line break of a string, ascending ("\r\n" gives the offset after
 * its "\n"). The original text's index is a Uint32Array (1.2M lines cost 4.8 MB, not the
 * ~10 MB of a boxed array); the add buffer's chunks grow, so theirs are plain arrays.
 */
export type LineStarts = Uint32Array | number[];

/** How many breaks of each kind a scan saw; the counts are what `detectEol` weighs. */
export interface EolCounts {
  lf: number;
  crlf: number;
  cr: number;
}

/**
 * Appends to `into` the offset after every line break of `text`, shifted by `base` (the
 * offset of `text` inside the buffer it is appended to), and returns the counts by kind.
 * It hops between breaks with indexOf, which V8 runs as a memchr: opening a 50 MB file
 * takes about a quarter of the time a charCodeAt loop does.
 */
export function scanLineBreaks(text: string, base: number, into: { push(offset: number): unknown }): EolCounts {
  const counts: EolCounts = { lf: 0, crlf: 0, cr: 0 };
  let lf = text.indexOf('\n');
  let cr = text.indexOf('\r');
  while (lf !== -1 || cr !== -1) {
    if (cr !== -1 && (lf === -1 || cr < lf)) {
      if (cr + 1 === lf) {
        counts.crlf++;
        into.push(base + lf + 1);
        lf = text.indexOf('\n', lf + 1);
      } else {
        counts.cr++;
        into.push(base + cr + 1);
      }
      cr = text.indexOf('\r', cr + 1);
    } else {
      counts.lf++;
      into.push(base + lf + 1);
      lf = text.indexOf('\n', lf + 1);
    }
  }
  return counts;
}

/** The line starts of a whole text in a typed array, and its dominant ending. */
export function indexLines(text: string): { lineStarts: Uint32Array; eol: Eol } {
  const starts = new Uint32Builder();
  const counts = scanLineBreaks(text, 0, starts);
  return { lineStarts: starts.finish(), eol: dominantEol(counts) };
}

/**
 * A Uint32Array that grows by doubling. Collecting a big file's line starts in a plain array
 * first would put a million boxed-size entries in the heap for the GC to move and copy.
 */
class Uint32Builder {
  private data = new Uint32Array(1024);
  private size = 0;

  push(value: number): void {
    if (this.size === this.data.length) {
      const bigger = new Uint32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.size++] = value;
  }

  /** The values pushed, in an array of exactly their number. */
  finish(): Uint32Array {
    return this.data.slice(0, this.size);
  }
}

/**
 * The line ending used most in `text`. A text without any gives "\n", which is what Loom
 * writes by default; ties go to "\n", then "\r\n" (the rarer "\r" must win outright).
 */
export function detectEol(text: string): Eol {
  return dominantEol(scanLineBreaks(text, 0, []));
}

function dominantEol({ lf, crlf, cr }: EolCounts): Eol {
  if (crlf > lf && crlf >= cr) return '\r\n';
  if (cr > lf && cr > crlf) return '\r';
  return '\n';
}

/** How many entries of the ascending `lineStarts` are <= `value` (binary search). */
export function countAtMost(lineStarts: LineStarts, value: number): number {
  let low = 0;
  let high = lineStarts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (lineStarts[middle]! <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
