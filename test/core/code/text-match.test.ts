// Text search within a file: literal and RE2 regular expressions, smart case, whole words,
// refused patterns, matches bounded per file, and linear time on a pattern that makes a
// backtracking engine explode.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoomError } from '../../../src/core/errors.ts';
import { compileTextQuery, searchLines, type LineMatch, type TextQuery } from '../../../src/core/code/text-match.ts';

function search(text: string, query: TextQuery, maxPerFile = 100): LineMatch[] {
  const found: LineMatch[] = [];
  searchLines(text, compileTextQuery(query), { maxPerFile, stop: () => false }, (match) => {
    found.push(match);
    return true;
  });
  return found;
}

describe('text matching', () => {
  it('finds a literal, line by line, with 1-based lines and UTF-16 columns', () => {
    const found = search('first\n😀 needle and needle\r\nlast needle', { pattern: 'needle' });
    assert.deepEqual(
      found.map((m) => [m.line, m.matches.map((s) => [s.column, s.endColumn])]),
      [
        [
          2,
          [
            [4, 10],
            [15, 21],
          ],
        ],
        [3, [[6, 12]]],
      ],
    );
    assert.equal(found[0]!.preview, '😀 needle and needle');
  });

  it('smart case: lower case finds any case; a capital makes it exact; either can be forced', () => {
    assert.equal(search('Needle needle NEEDLE', { pattern: 'needle' })[0]!.matches.length, 3);
    assert.equal(search('Needle needle NEEDLE', { pattern: 'Needle' })[0]!.matches.length, 1);
    assert.equal(search('Needle needle NEEDLE', { pattern: 'needle', caseSensitive: true })[0]!.matches.length, 1);
    assert.equal(search('Needle needle NEEDLE', { pattern: 'Needle', caseSensitive: false })[0]!.matches.length, 3);
    // An escape's letter is no capital: \W and \S keep the search case-insensitive.
    assert.equal(search('A-B', { pattern: 'a\\Wb', regex: true }).length, 1);
  });

  it('regular expressions in RE2 syntax; whole words', () => {
    assert.deepEqual(
      search('let a1 = 1;\nlet bb22 = 2;', { pattern: '[a-z]+\\d+', regex: true }).map((m) => m.line),
      [1, 2],
    );
    const words = search('cat concat cat_x cat. (cat)', { pattern: 'cat', wholeWord: true });
    assert.deepEqual(
      words[0]!.matches.map((s) => s.column),
      [1, 18, 24],
    );
    assert.equal(search('a.b axb', { pattern: 'a.b' })[0]!.matches.length, 1);
  });

  it('refuses patterns RE2 cannot run in linear time, empty ones and line breaks, with a clear message', () => {
    for (const [query, message] of [
      [{ pattern: '(?=x)', regex: true }, /not valid RE2/],
      [{ pattern: '(a)\\1', regex: true }, /not valid RE2/],
      [{ pattern: '' }, /empty/],
      [{ pattern: 'a\\nb', regex: true }, /line break/],
      [{ pattern: 'x'.repeat(1001) }, /longer than/],
    ] as const) {
      assert.throws(
        () => compileTextQuery(query),
        (error: unknown) => error instanceof LoomError && error.code === 'validation_error' && message.test(error.message),
      );
    }
  });

  it('stops at the cap per file', () => {
    const found = search('x x x\nx x x\nx x x\n', { pattern: 'x' }, 4);
    assert.equal(
      found.reduce((sum, m) => sum + m.matches.length, 0),
      4,
    );
  });

  it('runs in linear time on a pattern that makes backtracking engines explode', () => {
    const text = `${'a'.repeat(100_000)}!`;
    const found = search(text, { pattern: '(a+)+$', regex: true });
    assert.equal(found.length, 0);
  });
});
