import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countAtMost, detectEol, indexLines, scanLineBreaks } from '../../../src/core/text/line-index.ts';

describe('line index', () => {
  it('records the offset after each break, "\\r\\n" once', () => {
    const starts: number[] = [];
    const counts = scanLineBreaks('a\r\nb\nc\rd\r', 10, starts);
    assert.deepEqual(starts, [13, 15, 17, 19]);
    assert.deepEqual(counts, { lf: 1, crlf: 1, cr: 2 });
  });

  it('indexes a text into a typed array', () => {
    const { lineStarts, eol } = indexLines('x\r\ny\r\n');
    assert.ok(lineStarts instanceof Uint32Array);
    assert.deepEqual([...lineStarts], [3, 6]);
    assert.equal(eol, '\r\n');
  });

  const eols: [string, string, string][] = [
    ['no line break', 'abc', '\n'],
    ['only "\\n"', 'a\nb\n', '\n'],
    ['mostly "\\r\\n"', 'a\r\nb\r\nc\n', '\r\n'],
    ['only "\\r"', 'a\rb\r', '\r'],
    ['a tie of "\\n" and "\\r\\n"', 'a\nb\r\n', '\n'],
    ['a tie of "\\r\\n" and "\\r"', 'a\rb\r\n', '\r\n'],
  ];
  for (const [label, text, eol] of eols) {
    it(`detects the dominant ending with ${label}`, () => assert.equal(detectEol(text), eol));
  }

  it('counts the entries at or below a value', () => {
    const starts = Uint32Array.from([2, 4, 4, 9]);
    assert.deepEqual(
      [0, 2, 3, 4, 8, 9, 100].map((value) => countAtMost(starts, value)),
      [0, 1, 1, 3, 3, 4, 4],
    );
    assert.equal(countAtMost([], 5), 0);
  });
});
