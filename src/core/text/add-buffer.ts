// The append-only store of inserted text. Small inserts go into a shared chunk so that typing
// makes one piece that grows (TextBuffer extends it in place) instead of a piece a keystroke.
import { CR, LF, scanLineBreaks } from './line-index.ts';
import type { Source } from './piece-tree.ts';

/**
 * A chunk stops growing at this many code units. Appending makes V8 build a cons string that
 * it flattens (copies) at the next read, so the cap bounds the copy a keystroke can cost.
 */
const CHUNK_CAPACITY = 16 * 1024;
/** Inserts this large get a chunk of their own: they are stored as given, never copied. */
const OWN_CHUNK_AT = 4 * 1024;

/** Where appended text landed: `source.text[start, end)`. */
export interface Span {
  source: Source;
  start: number;
  end: number;
}

export class AddBuffer {
  private current: { text: string; lineStarts: number[] } = { text: '', lineStarts: [] };

  append(text: string): Span {
    if (text.length >= OWN_CHUNK_AT) return { source: ownChunk(text), start: 0, end: text.length };
    if (!this.fits(text)) this.current = { text: '', lineStarts: [] };
    const chunk = this.current;
    const start = chunk.text.length;
    chunk.text += text;
    scanLineBreaks(text, start, chunk.lineStarts);
    return { source: chunk, start, end: chunk.text.length };
  }

  /**
   * Whether `text` may go at the end of the current chunk. Not when that would put a "\n"
   * right after a "\r": the chunk's index already counted that "\r" as a lone break, and
   * pieces ending there rely on it.
   */
  private fits(text: string): boolean {
    const chunk = this.current.text;
    if (chunk.length + text.length > CHUNK_CAPACITY) return false;
    return !(chunk.charCodeAt(chunk.length - 1) === CR && text.charCodeAt(0) === LF);
  }
}

function ownChunk(text: string): Source {
  const lineStarts: number[] = [];
  scanLineBreaks(text, 0, lineStarts);
  return { text, lineStarts };
}
