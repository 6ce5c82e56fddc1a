// The one stretch two texts differ by: the smallest, never splitting a surrogate pair or CRLF,
// and always rebuilding the new text (checked on random pairs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changedRange } from '../../../src/core/text/changed-range.ts';
import { seeded } from '../../support/random.ts';

describe('changedRange', () => {
  it('finds the stretch between the common start and end', () => {
    assert.equal(changedRange('same', 'same'), undefined);
    assert.deepEqual(changedRange('let a = 1;\n', 'let b = 1;\n'), { start: 4, end: 5, text: 'b' });
    assert.deepEqual(changedRange('abc', 'abXbc'), { start: 2, end: 2, text: 'Xb' });
    assert.deepEqual(changedRange('', 'x'), { start: 0, end: 0, text: 'x' });
  });

  it('never splits a surrogate pair or a CRLF', () => {
    assert.deepEqual(changedRange('a😀', 'a😃'), { start: 1, end: 3, text: '😃' });
    assert.deepEqual(changedRange('a\r\nb', 'a\rXb'), { start: 1, end: 3, text: '\rX' });
  });

  it('rebuilds the new text from the old on 5,000 random pairs', () => {
    const random = seeded(3);
    const alphabet = ['a', 'b', '\r', '\n', '😀'];
    const text = () => Array.from({ length: Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    for (let i = 0; i < 5000; i++) {
      const before = text();
      const after = text();
      const range = changedRange(before, after);
      const rebuilt = range ? before.slice(0, range.start) + range.text + before.slice(range.end) : before;
      assert.equal(rebuilt, after, JSON.stringify({ before, after, range }));
    }
  });
});
