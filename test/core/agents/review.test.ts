// Undoing some hunks of an agent's change (what a review rejects): lines counted as the editor
// counts them (\n, \r\n, \r; a final break leaves an empty last line), the kept hunks untouched,
// a last line without a break never glued to the next, and ranges that are not in the texts refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changeVersion, linesOf, revertHunks } from '../../../src/core/agents/files/review.ts';

const range = (start: number, count: number) => ({ start, count });

describe('agents: reverting hunks of a change', () => {
  it('counts lines as the editor does', () => {
    assert.deepEqual(linesOf(''), ['']);
    assert.deepEqual(linesOf('a\nb'), ['a\n', 'b']);
    assert.deepEqual(linesOf('a\r\nb\rc\n'), ['a\r\n', 'b\r', 'c\n', '']);
  });

  it('undoes the hunks named, keeps the others', () => {
    const before = 'a\nb\nc\nd\n';
    const after = 'a\nB\nc\nD\n';
    assert.equal(revertHunks(before, after, [{ original: range(2, 1), changed: range(2, 1) }], 'f'), 'a\nb\nc\nD\n');
    assert.equal(revertHunks(before, after, [{ original: range(4, 1), changed: range(4, 1) }], 'f'), 'a\nB\nc\nd\n');
    assert.equal(
      revertHunks(
        before,
        after,
        [
          { original: range(2, 1), changed: range(2, 1) },
          { original: range(4, 1), changed: range(4, 1) },
        ],
        'f',
      ),
      before,
    );
  });

  it('undoes insertions and deletions (empty ranges), keeping the line numbers of later hunks right', () => {
    // Inserted x after a, deleted c.
    const before = 'a\nb\nc\nd\n';
    const after = 'a\nx\nb\nd\n';
    const insertion = { original: range(2, 0), changed: range(2, 1) };
    const deletion = { original: range(3, 1), changed: range(4, 0) };
    assert.equal(revertHunks(before, after, [insertion], 'f'), 'a\nb\nd\n');
    assert.equal(revertHunks(before, after, [deletion], 'f'), 'a\nx\nb\nc\nd\n');
    assert.equal(revertHunks(before, after, [insertion, deletion], 'f'), before);
  });

  it('never glues the original last line (no break) to the next; keeps CRLF', () => {
    // The task added a line after a last line without a break, and changed the first line.
    assert.equal(revertHunks('A\nb', 'a\nb\nc\n', [{ original: range(1, 1), changed: range(1, 1) }], 'f'), 'A\nb\nc\n');
    assert.equal(revertHunks('a\nb', 'a\nb\nc\n', [{ original: range(2, 1), changed: range(2, 3) }], 'f'), 'a\nb');
    assert.equal(revertHunks('x\r\ny\r\n', 'X\r\ny\r\n', [{ original: range(1, 1), changed: range(1, 1) }], 'f'), 'x\r\ny\r\n');
  });

  it('refuses ranges outside the texts and hunks out of order', () => {
    const refuses = (hunks: Parameters<typeof revertHunks>[2]) =>
      assert.throws(
        () => revertHunks('a\nb\n', 'a\nB\n', hunks, 'f'),
        (error: any) => error.code === 'validation_error',
      );
    refuses([{ original: range(2, 1), changed: range(3, 2) }]);
    refuses([{ original: range(5, 0), changed: range(2, 1) }]);
    refuses([
      { original: range(2, 1), changed: range(2, 1) },
      { original: range(1, 1), changed: range(1, 1) },
    ]);
  });

  it('names the task’s text: another text, another version', () => {
    const entry = { path: 'a.ts', after: 'x\n' };
    assert.equal(changeVersion(entry), changeVersion({ ...entry }));
    assert.notEqual(changeVersion(entry), changeVersion({ path: 'a.ts', after: 'y\n' }));
    assert.notEqual(changeVersion({ path: 'a.ts', after: '' }), changeVersion({ path: 'a.ts', after: null }));
    assert.match(changeVersion(entry), /^[0-9a-f]{16}$/);
  });
});
