// The pieces of a document in a treap (a binary search tree by position, balanced by random
// priorities), each node caching the length and the line breaks of its subtree. Splitting at
// an offset, joining two trees and finding an offset or a line are walks down one path:
// O(log pieces) expected, however many edits made the pieces.
//
// Invariant the caller keeps (TextBuffer widens its edits to do so): no piece ends with "\r"
// while the next one starts with "\n". A "\r\n" therefore lies within one piece, so the
// breaks of a subtree are the plain sum of its pieces' breaks.
import { CR, LF, countAtMost, type LineStarts } from './line-index.ts';

/** A string pieces point into: the original text, or one chunk of the add buffer. */
export interface Source {
  text: string;
  /** Offsets after each line break of `text` (see line-index.ts). */
  lineStarts: LineStarts;
}

export class PieceNode {
  left: PieceNode | null = null;
  right: PieceNode | null = null;
  /** Line breaks inside this piece, read as a document of its own. */
  pieceBreaks: number;
  /** Code units of this node's subtree: left + piece + right. */
  subtreeLength: number;
  /** Line breaks of this node's subtree. */
  subtreeBreaks: number;
  readonly priority = nextPriority();

  constructor(
    readonly source: Source,
    /** The piece is `source.text` from `start` (inclusive) to `end` (exclusive). */
    public start: number,
    public end: number,
  ) {
    this.pieceBreaks = countPieceBreaks(source, start, end);
    this.subtreeLength = end - start;
    this.subtreeBreaks = this.pieceBreaks;
  }
}

export type Tree = PieceNode | null;

// Priorities from a fixed-seed xorshift: the shape of a tree is then the same on every run,
// which makes a failure found by a randomized test reproducible.
let seed = 0x2545f491;
function nextPriority(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}

export function lengthOf(tree: Tree): number {
  return tree === null ? 0 : tree.subtreeLength;
}

export function breaksOf(tree: Tree): number {
  return tree === null ? 0 : tree.subtreeBreaks;
}

function pieceLength(node: PieceNode): number {
  return node.end - node.start;
}

/**
 * Line breaks in `source.text[start, end)` read on their own. The source's index counts a
 * "\r\n" at the break's end, so a piece that stops between the "\r" and the "\n" of its
 * source would miss its "\r": in the document that "\r" is followed by something else (the
 * invariant), so it is a lone break and is added back.
 */
export function countPieceBreaks(source: Source, start: number, end: number): number {
  const { text, lineStarts } = source;
  const breaks = countAtMost(lineStarts, end) - countAtMost(lineStarts, start);
  return endsInsideCrlf(text, start, end) ? breaks + 1 : breaks;
}

function endsInsideCrlf(text: string, start: number, end: number): boolean {
  return end > start && text.charCodeAt(end - 1) === CR && text.charCodeAt(end) === LF;
}

/** Recomputes a node's subtree totals from its children (which must be up to date). */
function update(node: PieceNode): void {
  node.subtreeLength = lengthOf(node.left) + pieceLength(node) + lengthOf(node.right);
  node.subtreeBreaks = breaksOf(node.left) + node.pieceBreaks + breaksOf(node.right);
}

/** The tree of `left`'s pieces followed by `right`'s. */
export function merge(left: Tree, right: Tree): Tree {
  if (left === null) return right;
  if (right === null) return left;
  if (left.priority > right.priority) {
    left.right = merge(left.right, right);
    update(left);
    return left;
  }
  right.left = merge(left, right.left);
  update(right);
  return right;
}

/**
 * Cuts a tree into its first `offset` code units and the rest, cutting the piece that spans
 * `offset` in two. Consumes `tree`.
 */
export function split(tree: Tree, offset: number): [Tree, Tree] {
  if (tree === null) return [null, null];
  const leftLength = lengthOf(tree.left);
  if (offset < leftLength) {
    const [before, after] = split(tree.left, offset);
    tree.left = after;
    update(tree);
    return [before, tree];
  }
  if (offset === leftLength) return detachLeft(tree);
  const pieceEnd = leftLength + pieceLength(tree);
  if (offset > pieceEnd) {
    const [before, after] = split(tree.right, offset - pieceEnd);
    tree.right = before;
    update(tree);
    return [tree, after];
  }
  if (offset === pieceEnd) return detachRight(tree);
  return cutPiece(tree, tree.start + offset - leftLength);
}

function detachLeft(tree: PieceNode): [Tree, Tree] {
  const before = tree.left;
  tree.left = null;
  update(tree);
  return [before, tree];
}

function detachRight(tree: PieceNode): [Tree, Tree] {
  const after = tree.right;
  tree.right = null;
  update(tree);
  return [tree, after];
}

/**
 * Splits the root's own piece at source offset `cut`. The tail gets a fresh priority and is
 * merged with the right subtree: reusing the root's priority would let many fragments of one
 * large piece share a priority, and ties are what unbalance a treap.
 */
function cutPiece(tree: PieceNode, cut: number): [Tree, Tree] {
  const tail = new PieceNode(tree.source, cut, tree.end);
  const after = merge(tail, tree.right);
  tree.end = cut;
  tree.pieceBreaks = countPieceBreaks(tree.source, tree.start, cut);
  tree.right = null;
  update(tree);
  return [tree, after];
}

/** The last piece of a tree, or null for an empty one. */
export function lastPiece(tree: Tree): PieceNode | null {
  let node = tree;
  while (node !== null && node.right !== null) node = node.right;
  return node;
}

/**
 * Makes the last piece of `tree` end at `end` of its source (it grew in place, see
 * TextBuffer's typing path), then refreshes the totals along the right spine above it.
 */
export function extendLastPiece(tree: PieceNode, end: number): void {
  if (tree.right !== null) {
    extendLastPiece(tree.right, end);
  } else {
    tree.end = end;
    tree.pieceBreaks = countPieceBreaks(tree.source, tree.start, end);
  }
  update(tree);
}

/** Where an offset falls: the piece holding the code unit at it, and the offset inside it. */
interface Location {
  node: PieceNode;
  within: number;
  /** Line breaks in the pieces before `node`. */
  breaksBefore: number;
}

/** Finds the piece holding the code unit at `offset`; null when `offset` is the end. */
export function locate(tree: Tree, offset: number): Location | null {
  let node = tree;
  let breaksBefore = 0;
  while (node !== null) {
    const leftLength = lengthOf(node.left);
    if (offset < leftLength) {
      node = node.left;
      continue;
    }
    offset -= leftLength;
    breaksBefore += breaksOf(node.left);
    const length = pieceLength(node);
    if (offset < length) return { node, within: offset, breaksBefore };
    offset -= length;
    breaksBefore += node.pieceBreaks;
    node = node.right;
  }
  return null;
}

/** The UTF-16 code unit at `offset`, which must be below the tree's length. */
export function charCodeAt(tree: Tree, offset: number): number {
  const location = locate(tree, offset);
  if (location === null) throw new RangeError(`offset ${offset} is past the end`);
  const { node, within } = location;
  return node.source.text.charCodeAt(node.start + within);
}

/**
 * How many line breaks end at or before `offset`, which is the 0-based line that `offset`
 * is on (an offset between "\r" and "\n" is still on the line the "\r" ends).
 */
export function breaksUpTo(tree: Tree, offset: number): number {
  const location = locate(tree, offset);
  if (location === null) return breaksOf(tree);
  const { node, within, breaksBefore } = location;
  const { lineStarts } = node.source;
  return breaksBefore + countAtMost(lineStarts, node.start + within) - countAtMost(lineStarts, node.start);
}

/** The offset just after the `line`-th line break (1-based), i.e. where line `line` starts. */
export function offsetAfterBreak(tree: Tree, line: number): number {
  let node = tree;
  let base = 0;
  while (node !== null) {
    const leftBreaks = breaksOf(node.left);
    if (line <= leftBreaks) {
      node = node.left;
      continue;
    }
    line -= leftBreaks;
    base += lengthOf(node.left);
    if (line <= node.pieceBreaks) return base + breakEndInPiece(node, line);
    line -= node.pieceBreaks;
    base += pieceLength(node);
    node = node.right;
  }
  throw new RangeError(`line break ${line} is past the end`);
}

/**
 * Where the `nth` break of a piece ends, relative to the piece. Past the source's own breaks
 * it can only be the piece's closing "\r" cut off from its "\n" (see countPieceBreaks).
 */
function breakEndInPiece(node: PieceNode, nth: number): number {
  const { lineStarts } = node.source;
  const index = countAtMost(lineStarts, node.start) + nth - 1;
  if (index < lineStarts.length && lineStarts[index]! <= node.end) return lineStarts[index]! - node.start;
  return pieceLength(node);
}

/** Appends to `out` the text of `[from, to)`, skipping subtrees outside it. */
export function collectRange(tree: Tree, from: number, to: number, out: string[], base = 0): void {
  if (tree === null || to <= base || from >= base + tree.subtreeLength) return;
  collectRange(tree.left, from, to, out, base);
  const pieceStart = base + lengthOf(tree.left);
  const pieceEnd = pieceStart + pieceLength(tree);
  if (from < pieceEnd && to > pieceStart) {
    const start = tree.start + Math.max(from, pieceStart) - pieceStart;
    const end = tree.start + Math.min(to, pieceEnd) - pieceStart;
    out.push(tree.source.text.slice(start, end));
  }
  collectRange(tree.right, from, to, out, pieceEnd);
}

/** Piece count and height, for tests and the benchmark to check that the tree stays balanced. */
export function shapeOf(tree: Tree): { pieces: number; depth: number } {
  if (tree === null) return { pieces: 0, depth: 0 };
  const left = shapeOf(tree.left);
  const right = shapeOf(tree.right);
  return { pieces: left.pieces + 1 + right.pieces, depth: 1 + Math.max(left.depth, right.depth) };
}
