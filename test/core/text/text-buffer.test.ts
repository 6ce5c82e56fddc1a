import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TextBuffer } from '../../../src/core/text/index.ts';

/** Every line of a buffer through getLine, to compare with an expected list. */
function linesOf(buffer: TextBuffer): string[] {
  return Array.from({ length: buffer.lineCount }, (_, line) => buffer.getLine(line));
}

describe('TextBuffer: reading', () => {
  const cases: [string, string[]][] = [
    ['', ['']],
    ['a', ['a']],
    ['a\n', ['a', '']],
    ['a\nb\n', ['a', 'b', '']],
    ['\n', ['', '']],
    ['\r\n', ['', '']],
    ['\r', ['', '']],
    ['a\r\nb\rc\nd', ['a', 'b', 'c', 'd']],
    ['\r\r\n\n\r', ['', '', '', '', '']],
    ['x\n\r', ['x', '', '']],
  ];
  for (const [text, lines] of cases) {
    it(`splits ${JSON.stringify(text)} into ${lines.length} line(s)`, () => {
      const buffer = new TextBuffer(text);
      assert.equal(buffer.length, text.length);
      assert.equal(buffer.getText(), text);
      assert.equal(buffer.lineCount, lines.length);
      assert.deepEqual(linesOf(buffer), lines);
      assert.deepEqual(
        lines.map((_, line) => buffer.lineLength(line)),
        lines.map((l) => l.length),
      );
    });
  }

  it('maps positions and offsets both ways', () => {
    const buffer = new TextBuffer('ab\r\ncd\nef\rg');
    assert.equal(buffer.offsetAt(0, 0), 0);
    assert.equal(buffer.offsetAt(0, 2), 2);
    assert.equal(buffer.offsetAt(1, 0), 4);
    assert.equal(buffer.offsetAt(1, 2), 6);
    assert.equal(buffer.offsetAt(2, 2), 9);
    assert.equal(buffer.offsetAt(3, 1), 11);
    assert.deepEqual(buffer.positionAt(0), { line: 0, column: 0 });
    assert.deepEqual(buffer.positionAt(2), { line: 0, column: 2 });
    assert.deepEqual(buffer.positionAt(4), { line: 1, column: 0 });
    assert.deepEqual(buffer.positionAt(7), { line: 2, column: 0 });
    assert.deepEqual(buffer.positionAt(10), { line: 3, column: 0 });
    assert.deepEqual(buffer.positionAt(11), { line: 3, column: 1 });
  });

  it('maps an offset between "\\r" and "\\n" to the end of its line', () => {
    const buffer = new TextBuffer('ab\r\ncd');
    assert.deepEqual(buffer.positionAt(3), { line: 0, column: 2 });
  });

  it('returns ranges, empty ones included', () => {
    const buffer = new TextBuffer('hello\nworld');
    assert.equal(buffer.getTextRange(3, 8), 'lo\nwo');
    assert.equal(buffer.getTextRange(4, 4), '');
    assert.equal(buffer.getTextRange(0, 11), 'hello\nworld');
  });

  it('detects the dominant line ending of the original text', () => {
    assert.equal(new TextBuffer('a\r\nb\r\nc\n').eol, '\r\n');
    assert.equal(new TextBuffer('a\nb\r\nc\n').eol, '\n');
    assert.equal(new TextBuffer('a\rb\r').eol, '\r');
    assert.equal(new TextBuffer('no breaks').eol, '\n');
  });
});

describe('TextBuffer: editing', () => {
  it('inserts, deletes and replaces', () => {
    const buffer = new TextBuffer('hello world');
    buffer.insert(5, ',');
    buffer.insert(12, '!');
    assert.equal(buffer.getText(), 'hello, world!');
    buffer.delete(0, 7);
    assert.equal(buffer.getText(), 'world!');
    buffer.replace(0, 5, 'there\nfriend');
    assert.equal(buffer.getText(), 'there\nfriend!');
    assert.equal(buffer.lineCount, 2);
    assert.equal(buffer.getLine(1), 'friend!');
  });

  it('grows one piece while typing forward', () => {
    const buffer = new TextBuffer('function f() {\n}\n');
    let offset = 14;
    for (const char of '\n  return 42;') buffer.insert(offset++, char);
    assert.equal(buffer.getText(), 'function f() {\n  return 42;\n}\n');
    // original head, the typed text, original tail
    assert.equal(buffer.shape().pieces, 3);
  });

  it('ignores an empty edit', () => {
    const buffer = new TextBuffer('abc');
    buffer.replace(1, 0, '');
    assert.deepEqual(buffer.shape(), { pieces: 1, depth: 1 });
  });

  it('edits an empty document and returns to empty', () => {
    const buffer = new TextBuffer('');
    assert.equal(buffer.length, 0);
    assert.equal(buffer.lineCount, 1);
    assert.equal(buffer.getLine(0), '');
    assert.equal(buffer.lineLength(0), 0);
    assert.equal(buffer.offsetAt(0, 0), 0);
    assert.deepEqual(buffer.positionAt(0), { line: 0, column: 0 });
    assert.equal(buffer.getText(), '');
    buffer.insert(0, 'a\nb');
    assert.equal(buffer.lineCount, 2);
    buffer.delete(0, 3);
    assert.equal(buffer.getText(), '');
    assert.equal(buffer.lineCount, 1);
    assert.equal(buffer.getLine(0), '');
  });

  it('counts surrogate pairs as two code units', () => {
    const buffer = new TextBuffer('a😀b\n😀');
    assert.equal(buffer.length, 7);
    assert.equal(buffer.lineLength(0), 4);
    assert.equal(buffer.lineLength(1), 2);
    assert.equal(buffer.offsetAt(0, 3), 3);
    assert.deepEqual(buffer.positionAt(3), { line: 0, column: 3 });
    assert.deepEqual(buffer.positionAt(7), { line: 1, column: 2 });
    buffer.insert(3, 'é🎉');
    assert.equal(buffer.getLine(0), 'a😀é🎉b');
    assert.equal(buffer.lineLength(0), 7);
    // Code units, not code points: an edit may split a pair, and the pair comes back whole.
    buffer.insert(2, 'x');
    assert.equal(buffer.getLine(0).length, 8);
    buffer.delete(2, 1);
    assert.equal(buffer.getLine(0), 'a😀é🎉b');
  });

  it('handles a huge single line', () => {
    const size = 5_000_000;
    const buffer = new TextBuffer('x'.repeat(size));
    assert.equal(buffer.lineCount, 1);
    buffer.insert(size / 2, 'MIDDLE');
    assert.equal(buffer.lineLength(0), size + 6);
    assert.equal(buffer.getTextRange(size / 2 - 1, size / 2 + 7), 'xMIDDLEx');
    assert.deepEqual(buffer.positionAt(size), { line: 0, column: size });
    buffer.insert(1_000_000, '\n');
    assert.equal(buffer.lineCount, 2);
    assert.equal(buffer.lineLength(0), 1_000_000);
    assert.equal(buffer.lineLength(1), size + 6 - 1_000_000);
    assert.equal(buffer.offsetAt(1, 3), 1_000_004);
    assert.deepEqual(buffer.positionAt(4_000_000), { line: 1, column: 2_999_999 });
    assert.equal(buffer.getLine(1).length, size + 6 - 1_000_000);
  });
});

describe('TextBuffer: "\\r\\n" is one line break, however the edits fall', () => {
  it('counts two breaks after inserting between "\\r" and "\\n", and one after removing it', () => {
    const buffer = new TextBuffer('a\r\nb');
    buffer.insert(2, 'X');
    assert.equal(buffer.getText(), 'a\rX\nb');
    assert.deepEqual(linesOf(buffer), ['a', 'X', 'b']);
    buffer.delete(2, 1);
    assert.equal(buffer.getText(), 'a\r\nb');
    assert.deepEqual(linesOf(buffer), ['a', 'b']);
    assert.equal(buffer.offsetAt(1, 0), 3);
  });

  it('joins a typed "\\n" to the "\\r" before it', () => {
    const buffer = new TextBuffer('a\rb');
    buffer.insert(2, '\n');
    assert.deepEqual(linesOf(buffer), ['a', 'b']);
    assert.equal(buffer.lineLength(0), 1);
  });

  it('joins a typed "\\r" to the "\\n" after it', () => {
    const buffer = new TextBuffer('a\nb');
    buffer.insert(1, '\r');
    assert.deepEqual(linesOf(buffer), ['a', 'b']);
    assert.equal(buffer.getText(), 'a\r\nb');
  });

  it('joins a "\\r" and a "\\n" that a deletion brings together', () => {
    const buffer = new TextBuffer('a\r--\nb');
    buffer.delete(2, 2);
    assert.equal(buffer.getText(), 'a\r\nb');
    assert.deepEqual(linesOf(buffer), ['a', 'b']);
  });

  it('splits a "\\r\\n" by deleting either half', () => {
    const first = new TextBuffer('a\r\nb');
    first.delete(1, 1);
    assert.deepEqual(linesOf(first), ['a', 'b']);
    const second = new TextBuffer('a\r\nb');
    second.delete(2, 1);
    assert.deepEqual(linesOf(second), ['a', 'b']);
    second.insert(2, '\n');
    assert.deepEqual(linesOf(second), ['a', 'b']);
  });

  it('makes one break of a "\\r" and a "\\n" typed in turn, and two when a "\\r" goes between', () => {
    const buffer = new TextBuffer('ab');
    buffer.insert(1, '\r');
    buffer.insert(2, '\n');
    assert.equal(buffer.getText(), 'a\r\nb');
    assert.deepEqual(linesOf(buffer), ['a', 'b']);
    buffer.insert(2, '\r');
    assert.deepEqual(linesOf(buffer), ['a', '', 'b']);
  });

  it('replaces across a "\\r\\n" boundary', () => {
    const buffer = new TextBuffer('a\r\r\nb');
    buffer.replace(2, 1, '\n\r');
    assert.equal(buffer.getText(), 'a\r\n\r\nb');
    assert.deepEqual(linesOf(buffer), ['a', '', 'b']);
  });
});

describe('TextBuffer: out-of-range arguments throw a RangeError and change nothing', () => {
  const original = 'one\r\ntwo\nthree';
  const calls: [string, (buffer: TextBuffer) => unknown][] = [
    ['insert before the start', (b) => b.insert(-1, 'x')],
    ['insert past the end', (b) => b.insert(original.length + 1, 'x')],
    ['insert at a fractional offset', (b) => b.insert(1.5, 'x')],
    ['insert at NaN', (b) => b.insert(Number.NaN, 'x')],
    ['delete past the end', (b) => b.delete(10, original.length)],
    ['delete a negative length', (b) => b.delete(2, -1)],
    ['replace past the end', (b) => b.replace(original.length, 1, 'x')],
    ['getLine(-1)', (b) => b.getLine(-1)],
    ['getLine(lineCount)', (b) => b.getLine(3)],
    ['lineLength(lineCount)', (b) => b.lineLength(3)],
    ['offsetAt past the line', (b) => b.offsetAt(0, 4)],
    ['offsetAt on the break of a "\\r\\n" line', (b) => b.offsetAt(0, 5)],
    ['offsetAt a negative column', (b) => b.offsetAt(1, -1)],
    ['offsetAt a missing line', (b) => b.offsetAt(3, 0)],
    ['positionAt(-1)', (b) => b.positionAt(-1)],
    ['positionAt past the end', (b) => b.positionAt(original.length + 1)],
    ['getTextRange with end before start', (b) => b.getTextRange(5, 4)],
    ['getTextRange past the end', (b) => b.getTextRange(0, original.length + 1)],
  ];
  for (const [label, call] of calls) {
    it(label, () => {
      const buffer = new TextBuffer(original);
      buffer.insert(4, 'X'); // some pieces, so a half-done edit would show
      buffer.delete(4, 1);
      const shape = buffer.shape();
      assert.throws(() => call(buffer), RangeError);
      assert.equal(buffer.getText(), original);
      assert.equal(buffer.lineCount, 3);
      assert.deepEqual(buffer.shape(), shape);
    });
  }
});
