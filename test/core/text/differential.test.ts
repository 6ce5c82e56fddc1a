// TextBuffer against a plain string under thousands of random edits: every answer of the
// buffer must be the one a rescan of the string gives. The edits favour line breaks and the
// places around them, so "\r\n" pairs are split, joined and cut at piece boundaries often.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TextBuffer } from '../../../src/core/text/index.ts';
import { seeded as random } from '../../support/random.ts';

/** The naive model: one string, every answer by scanning it. */
class StringModel {
  constructor(public text: string) {}

  replace(offset: number, length: number, text: string): void {
    this.text = this.text.slice(0, offset) + text + this.text.slice(offset + length);
  }

  /** Offsets where each line starts: 0, then after every "\r\n", "\n" or lone "\r". */
  lineStarts(): number[] {
    const starts = [0];
    for (const match of this.text.matchAll(/\r\n|\r|\n/g)) starts.push(match.index + match[0].length);
    return starts;
  }

  lines(): string[] {
    return this.text.split(/\r\n|\r|\n/);
  }

  insideCrlf(offset: number): boolean {
    return this.text[offset - 1] === '\r' && this.text[offset] === '\n';
  }
}

const ATOMS = ['a', 'b', 'c', ' ', '\n', '\r', '\r\n', '\r\n', '😀', 'é', 'xyz'];

class Fuzzer {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = random(seed);
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  text(maxAtoms: number): string {
    let text = '';
    for (let count = this.int(maxAtoms + 1); count > 0; count--) text += ATOMS[this.int(ATOMS.length)]!;
    return text;
  }

  /** An offset, half the time right at or next to a line break character. */
  offset(model: StringModel): number {
    const length = model.text.length;
    if (this.next() < 0.5) {
      const breaks = [...model.text.matchAll(/[\r\n]/g)].map((match) => match.index);
      if (breaks.length > 0) {
        const at = breaks[this.int(breaks.length)]! + this.int(3) - 1;
        return Math.min(Math.max(at, 0), length);
      }
    }
    return this.int(length + 1);
  }
}

/** One random edit applied to both; returns the offset after it, where typing goes on. */
function randomEdit(fuzzer: Fuzzer, buffer: TextBuffer, model: StringModel, cursor: number): number {
  const roll = fuzzer.next();
  const size = model.text.length;
  if (roll < 0.25 && cursor <= size) {
    // typing: one atom right after the previous edit, the path that grows a piece in place
    const text = fuzzer.text(1) || 'k';
    buffer.insert(cursor, text);
    model.replace(cursor, 0, text);
    return cursor + text.length;
  }
  const offset = fuzzer.offset(model);
  const room = size - offset;
  const shrink = size > 3000; // keep the document small enough to check in full often
  const length = roll < 0.55 && !shrink ? 0 : Math.min(room, fuzzer.int(shrink ? 400 : 12));
  const text = roll < 0.8 || shrink ? fuzzer.text(6) : roll < 0.98 ? fuzzer.text(60) : fuzzer.text(4000);
  buffer.replace(offset, length, text);
  model.replace(offset, length, text);
  return offset + text.length;
}

/** An out-of-range call: it must throw a RangeError and leave the text as it was. */
function randomBadCall(fuzzer: Fuzzer, buffer: TextBuffer, model: StringModel): void {
  const size = model.text.length;
  const calls = [
    () => buffer.insert(size + 1 + fuzzer.int(5), 'x'),
    () => buffer.delete(fuzzer.int(size + 1), size + 1),
    () => buffer.replace(-1 - fuzzer.int(5), 0, 'x'),
    () => buffer.getLine(buffer.lineCount + fuzzer.int(3)),
    () => buffer.offsetAt(0, buffer.lineLength(0) + 1 + fuzzer.int(3)),
    () => buffer.positionAt(size + 1),
  ];
  assert.throws(calls[fuzzer.int(calls.length)]!, RangeError);
  assert.equal(buffer.getText(), model.text);
}

/** Compares every line, every offset and every position of the buffer with the model's. */
function checkFully(buffer: TextBuffer, model: StringModel): void {
  const starts = model.lineStarts();
  const lines = model.lines();
  assert.equal(buffer.lineCount, lines.length);
  for (let line = 0; line < lines.length; line++) {
    assert.equal(buffer.getLine(line), lines[line], `getLine(${line})`);
    assert.equal(buffer.lineLength(line), lines[line]!.length, `lineLength(${line})`);
    assert.equal(buffer.offsetAt(line, 0), starts[line], `offsetAt(${line}, 0)`);
    assert.equal(buffer.offsetAt(line, lines[line]!.length), starts[line]! + lines[line]!.length);
  }
  let line = 0;
  for (let offset = 0; offset <= model.text.length; offset++) {
    while (line + 1 < starts.length && starts[line + 1]! <= offset) line++;
    const column = offset - starts[line]! - (model.insideCrlf(offset) ? 1 : 0);
    assert.deepEqual(buffer.positionAt(offset), { line, column }, `positionAt(${offset})`);
    if (!model.insideCrlf(offset)) assert.equal(buffer.offsetAt(line, column), offset);
  }
}

function checkRandomRange(fuzzer: Fuzzer, buffer: TextBuffer, model: StringModel): void {
  const a = fuzzer.int(model.text.length + 1);
  const b = fuzzer.int(model.text.length + 1);
  const [start, end] = a <= b ? [a, b] : [b, a];
  assert.equal(buffer.getTextRange(start, end), model.text.slice(start, end));
}

function runFuzz(seed: number, operations: number): void {
  const fuzzer = new Fuzzer(seed);
  const initial = fuzzer.text(300);
  const buffer = new TextBuffer(initial);
  const model = new StringModel(initial);
  let cursor = 0;
  for (let step = 0; step < operations; step++) {
    const context = `seed ${seed}, step ${step}`;
    if (fuzzer.next() < 0.03) randomBadCall(fuzzer, buffer, model);
    else cursor = randomEdit(fuzzer, buffer, model, cursor);
    assert.equal(buffer.length, model.text.length, context);
    assert.equal(buffer.getText(), model.text, context);
    assert.equal(buffer.lineCount, model.lines().length, context);
    checkRandomRange(fuzzer, buffer, model);
    if (step % 25 === 0 || step === operations - 1) checkFully(buffer, model);
  }
}

describe('TextBuffer against a plain string', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`agrees through 2,500 random edits (seed ${seed})`, () => runFuzz(seed, 2_500));
  }

  it('only ever holds a "\\r\\n" as one break, whatever piece boundaries fall inside it', () => {
    // Every way to build "\r\n" pairs from single characters typed at every position.
    const fuzzer = new Fuzzer(99);
    for (let trial = 0; trial < 500; trial++) {
      const buffer = new TextBuffer('');
      const model = new StringModel('');
      for (let step = 0; step < 12; step++) {
        const offset = fuzzer.int(model.text.length + 1);
        const text = ['\r', '\n', 'x'][fuzzer.int(3)]!;
        buffer.insert(offset, text);
        model.replace(offset, 0, text);
      }
      checkFully(buffer, model);
    }
  });
});

describe('TextBuffer stays balanced', () => {
  it('keeps its tree shallow after 20,000 scattered edits', () => {
    const fuzzer = new Fuzzer(7);
    const line = 'const value = compute(alpha, beta);\r\n';
    const buffer = new TextBuffer(line.repeat(1_000));
    const model = new StringModel(line.repeat(1_000));
    for (let step = 0; step < 20_000; step++) {
      const offset = fuzzer.int(model.text.length + 1);
      const remove = step % 3 === 2 ? Math.min(2, model.text.length - offset) : 0;
      const text = remove > 0 ? '' : ['x', '\n', '\r', 'yz'][fuzzer.int(4)]!;
      buffer.replace(offset, remove, text);
      model.replace(offset, remove, text);
    }
    const { pieces, depth } = buffer.shape();
    assert.ok(pieces > 5_000, `${pieces} pieces`);
    // A treap's height stays within a small multiple of log2(pieces) (about 2.5x on average).
    assert.ok(depth <= 4 * Math.log2(pieces), `depth ${depth} for ${pieces} pieces`);
    assert.equal(buffer.getText(), model.text);
    assert.equal(buffer.lineCount, model.lines().length);
  });
});
