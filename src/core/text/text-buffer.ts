// The document buffer of the editor: a piece table. The text it was opened with stays one
// immutable string; inserted text goes to an append-only add buffer; the document is the
// sequence of pieces (slices of either) held in a balanced tree (piece-tree.ts). An edit
// costs O(length of the edit + log pieces), a line or offset lookup O(log pieces + log lines),
// never the size of the file.
//
// Everything here is 0-based, in UTF-16 code units (JavaScript string indices, as LSP counts
// columns); the HTTP layer picks the public numbering. Line breaks are "\r\n", "\n" and "\r",
// "\r\n" counting as one.
import { AddBuffer } from './add-buffer.ts';
import { CR, LF, indexLines, type Eol } from './line-index.ts';
import {
  PieceNode,
  breaksOf,
  breaksUpTo,
  charCodeAt,
  collectRange,
  extendLastPiece,
  lastPiece,
  lengthOf,
  merge,
  offsetAfterBreak,
  shapeOf,
  split,
  type Tree,
} from './piece-tree.ts';

export interface Position {
  line: number;
  /** In UTF-16 code units from the start of the line. */
  column: number;
}

export class TextBuffer {
  private root: Tree;
  private readonly added = new AddBuffer();
  /** The dominant line ending of the text the buffer was created with ("\n" if it had none). */
  readonly eol: Eol;

  constructor(text: string) {
    const { lineStarts, eol } = indexLines(text);
    this.eol = eol;
    this.root = text.length === 0 ? null : new PieceNode({ text, lineStarts }, 0, text.length);
  }

  get length(): number {
    return lengthOf(this.root);
  }

  /** Line breaks + 1: "" has one line, and "a\n" two, the last one empty, as editors show it. */
  get lineCount(): number {
    return breaksOf(this.root) + 1;
  }

  getText(): string {
    return this.getTextRange(0, this.length);
  }

  /** The text of `[start, end)`. */
  getTextRange(start: number, end: number): string {
    checkOffset('start', start, this.length);
    checkOffset('end', end, this.length);
    if (end < start) throw new RangeError(`end ${end} is before start ${start}`);
    const parts: string[] = [];
    collectRange(this.root, start, end, parts);
    return parts.join('');
  }

  /** A line's text without its line break. */
  getLine(line: number): string {
    this.checkLine(line);
    return this.getTextRange(this.lineStart(line), this.contentEnd(line));
  }

  /** A line's length in code units, without its line break. */
  lineLength(line: number): number {
    this.checkLine(line);
    return this.contentEnd(line) - this.lineStart(line);
  }

  /** The offset of a position; `column` may be the line's length (the end of the line). */
  offsetAt(line: number, column: number): number {
    this.checkLine(line);
    const start = this.lineStart(line);
    checkOffset('column', column, this.contentEnd(line) - start);
    return start + column;
  }

  /**
   * The position of an offset. An offset between the "\r" and the "\n" of a "\r\n" (a place
   * no cursor can be, but an edit can) maps to the end of its line, as a position inside a
   * line break does not exist; every other offset round-trips through offsetAt.
   */
  positionAt(offset: number): Position {
    checkOffset('offset', offset, this.length);
    const line = breaksUpTo(this.root, offset);
    const column = offset - this.lineStart(line);
    return { line, column: this.isInsideCrlf(offset) ? column - 1 : column };
  }

  insert(offset: number, text: string): void {
    this.replace(offset, 0, text);
  }

  delete(offset: number, length: number): void {
    this.replace(offset, length, '');
  }

  /**
   * Replaces `length` code units at `offset` with `text`. Out-of-range arguments throw a
   * RangeError before anything changes.
   */
  replace(offset: number, length: number, text: string): void {
    checkOffset('offset', offset, this.length);
    checkOffset('length', length, this.length - offset);
    if (length === 0 && text.length === 0) return;
    const edit = this.widenAcrossCrlf(offset, offset + length, text);
    const [before, rest] = split(this.root, edit.start);
    const [, after] = split(rest, edit.end - edit.start);
    this.root = merge(this.appendText(before, edit.text), after);
  }

  /** Piece count and tree height: for tests and benchmarks, to see the tree stays balanced. */
  shape(): { pieces: number; depth: number } {
    return shapeOf(this.root);
  }

  /**
   * Keeps the tree's invariant that no "\r\n" is split across two pieces (piece-tree.ts):
   * when the edit would leave a "\r" just before a "\n" at either of its ends, it takes that
   * character of the document into the edit and re-inserts it, so the pair lands in the new
   * piece. The document's text after the edit is the same.
   */
  private widenAcrossCrlf(start: number, end: number, text: string): { start: number; end: number; text: string } {
    const before = start > 0 ? charCodeAt(this.root, start - 1) : -1;
    const after = end < this.length ? charCodeAt(this.root, end) : -1;
    const first = text.length > 0 ? text.charCodeAt(0) : after;
    const last = text.length > 0 ? text.charCodeAt(text.length - 1) : before;
    if (before === CR && first === LF) {
      start--;
      text = '\r' + text;
    }
    if (last === CR && after === LF) {
      end++;
      text += '\n';
    }
    return { start, end, text };
  }

  /**
   * Adds `text` after the pieces of `tree`. When the last piece ends where the add buffer
   * put the text (the usual case when typing), that piece grows instead of a new one.
   */
  private appendText(tree: Tree, text: string): Tree {
    if (text.length === 0) return tree;
    const span = this.added.append(text);
    const last = lastPiece(tree);
    if (tree !== null && last !== null && last.source === span.source && last.end === span.start) {
      extendLastPiece(tree, span.end);
      return tree;
    }
    return merge(tree, new PieceNode(span.source, span.start, span.end));
  }

  private lineStart(line: number): number {
    return line === 0 ? 0 : offsetAfterBreak(this.root, line);
  }

  /** Where a line's text ends: before its line break, or at the end of the document. */
  private contentEnd(line: number): number {
    if (line === this.lineCount - 1) return this.length;
    const next = this.lineStart(line + 1);
    const crlf = next - 2 >= 0 && charCodeAt(this.root, next - 1) === LF && charCodeAt(this.root, next - 2) === CR;
    return next - (crlf ? 2 : 1);
  }

  private isInsideCrlf(offset: number): boolean {
    if (offset === 0 || offset === this.length) return false;
    return charCodeAt(this.root, offset - 1) === CR && charCodeAt(this.root, offset) === LF;
  }

  private checkLine(line: number): void {
    if (!Number.isInteger(line) || line < 0 || line >= this.lineCount) {
      throw new RangeError(`line ${line} is outside 0..${this.lineCount - 1}`);
    }
  }
}

function checkOffset(name: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`${name} ${value} is outside 0..${max}`);
  }
}
