import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LEVELS, OccurrenceIndex, type Occurrence } from '../../../../src/core/completion/builtin/occurrence-index.ts';

function lookup(index: OccurrenceIndex, context: number[], options: Partial<{ walk: number; enough: number; skipFrom: number; skipTo: number }> = {}): Occurrence[] {
  const out: Occurrence[] = [];
  index.occurrences(context, context.length, out, { walk: 1000, enough: 1000, ...options });
  return out;
}

describe('OccurrenceIndex', () => {
  //                 0  1  2  3  4  5  6  7  8  9 10 11
  const stream = [0, 1, 2, 3, 9, 5, 1, 2, 3, 7, 2, 3];

  it('finds every earlier occurrence of the context, each once, with its full match length', () => {
    const index = new OccurrenceIndex(4);
    index.append(stream);
    const found = lookup(index, [5, 1, 2, 3]).sort((a, b) => a.pos - b.pos);
    // "1 2 3" is followed at 4 (after "0": a match of 3) and at 9 (after "5": 4).
    assert.deepEqual(found, [
      { pos: 4, match: 3 },
      { pos: 9, match: 4 },
    ]);
    assert.deepEqual(
      lookup(index, [2, 3]).map((o) => o.pos).sort((a, b) => a - b),
      [4, 9],
    );
  });

  it('looks up shorter contexts only until enough occurrences are found', () => {
    const [short, long] = [LEVELS[0]!, LEVELS[1]!];
    const context = Array.from({ length: long }, (_, i) => 100 + i);
    // The whole context is followed by 7 once; only its last `short` tokens, by 8.
    const index = new OccurrenceIndex();
    index.append([...context, 7, 900, ...context.slice(long - short), 8]);
    assert.deepEqual(lookup(index, context, { enough: 1 }), [{ pos: long, match: long }]);
    assert.deepEqual(lookup(index, context), [
      { pos: long, match: long },
      { pos: long + short + 2, match: short },
    ]);
  });

  it('leaves out a skipped range and killed tokens', () => {
    const index = new OccurrenceIndex();
    index.append(stream);
    assert.deepEqual(lookup(index, [1, 2, 3], { skipFrom: 0, skipTo: 5 }).map((o) => o.pos), [9]);
    index.kill(5, 10);
    assert.deepEqual(lookup(index, [1, 2, 3]).map((o) => o.pos), [4]);
  });

  it('undoes appended tokens on truncate', () => {
    const index = new OccurrenceIndex();
    index.append(stream.slice(0, 6));
    const before = lookup(index, [1, 2, 3]);
    index.append(stream.slice(6));
    index.truncate(6);
    assert.equal(index.length, 6);
    assert.deepEqual(lookup(index, [1, 2, 3]), before);
    index.append(stream.slice(6));
    assert.deepEqual(lookup(index, [1, 2, 3]).length, 2);
  });

  it('grows past its first capacity', () => {
    const index = new OccurrenceIndex(8);
    const long = Array.from({ length: 10_000 }, (_, i) => i % 97);
    index.append(long);
    assert.equal(index.length, 10_000);
    const found = lookup(index, [95, 96, 0, 1], { walk: 10_000 });
    assert.equal(found.filter((o) => o.match === 4).length, 103);
  });
});
