import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LEVELS, OccurrenceIndex, type Occurrence } from '../../../../src/core/completion/builtin/occurrence-index.ts';

function lookup(
  index: OccurrenceIndex,
  context: number[],
  options: Partial<{ walk: number; enough: number; skipFrom: number; skipTo: number; contextKeys: number[]; loose: number[] }> = {},
): Occurrence[] {
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
      { pos: 4, match: 3, misses: 0 },
      { pos: 9, match: 4, misses: 0 },
    ]);
    assert.deepEqual(
      lookup(index, [2, 3])
        .map((o) => o.pos)
        .sort((a, b) => a - b),
      [4, 9],
    );
  });

  it('looks up shorter contexts only until enough occurrences are found', () => {
    const [short, long] = [LEVELS[0]!, LEVELS[1]!];
    const context = Array.from({ length: long }, (_, i) => 100 + i);
    // The whole context is followed by 7 once; only its last `short` tokens, by 8.
    const index = new OccurrenceIndex();
    index.append([...context, 7, 900, ...context.slice(long - short), 8]);
    assert.deepEqual(lookup(index, context, { enough: 1 }), [{ pos: long, match: long, misses: 0 }]);
    assert.deepEqual(lookup(index, context), [
      { pos: long, match: long, misses: 0 },
      { pos: long + short + 2, match: short, misses: 0 },
    ]);
  });

  it('matches a loose context token as any token of its key, counting those that differ', () => {
    // 50 and 51 are both of key 5 (two string literals, say).
    const keyOf = (id: number) => (id >= 50 && id < 60 ? 5 : id);
    const index = new OccurrenceIndex(4, keyOf);
    index.append([0, 1, 50, 2, 3, 8, 1, 51, 2, 3, 9]);
    const context = [1, 52, 2, 3];
    const found = lookup(index, context, { contextKeys: context.map(keyOf), loose: [0, 1, 0, 0] }).sort((a, b) => a.pos - b.pos);
    assert.deepEqual(found, [
      { pos: 5, match: 4, misses: 1 },
      { pos: 10, match: 4, misses: 1 },
    ]);
    // Not loose: only the same token matches.
    assert.deepEqual(
      lookup(index, [1, 51, 2, 3], { contextKeys: [1, 5, 2, 3] })
        .map((o) => [o.pos, o.match])
        .sort(),
      [
        [10, 4],
        [5, 2],
      ].sort(),
    );
    assert.deepEqual(
      lookup(index, context, { contextKeys: context.map(keyOf) }).map((o) => o.match),
      [2, 2],
    );
  });

  it('leaves out a skipped range and killed tokens', () => {
    const index = new OccurrenceIndex();
    index.append(stream);
    assert.deepEqual(
      lookup(index, [1, 2, 3], { skipFrom: 0, skipTo: 5 }).map((o) => o.pos),
      [9],
    );
    index.kill(5, 10);
    assert.deepEqual(
      lookup(index, [1, 2, 3]).map((o) => o.pos),
      [4],
    );
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
