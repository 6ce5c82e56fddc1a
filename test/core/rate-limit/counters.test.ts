import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../src/core/clock.ts';
import { MemoryCounter } from '../../../src/core/rate-limit/counters.ts';

describe('MemoryCounter', () => {
  it('counts per key within a window and starts afresh once it has passed', () => {
    const clock = new ManualClock();
    const counter = new MemoryCounter(clock);
    assert.deepEqual(counter.count('a', 1000), { current: 1, ttl: 1000 });
    clock.advance(400);
    assert.deepEqual(counter.count('a', 1000), { current: 2, ttl: 600 });
    assert.deepEqual(counter.count('b', 1000), { current: 1, ttl: 1000 });
    clock.advance(600);
    assert.deepEqual(counter.count('a', 1000), { current: 1, ttl: 1000 });
    assert.deepEqual(counter.count('b', 1000), { current: 2, ttl: 400 });
  });

  it('forgets the least recently seen key when over capacity', () => {
    const counter = new MemoryCounter(new ManualClock(), 3);
    for (const key of ['a', 'b', 'c']) counter.count(key, 1000);
    counter.count('a', 1000); // a is now the most recent; b the least
    counter.count('d', 1000); // over capacity: b is forgotten
    assert.equal(counter.count('a', 1000).current, 3);
    assert.equal(counter.count('c', 1000).current, 2);
    assert.equal(counter.count('d', 1000).current, 2);
    // b starts over, which in turn forgets a (seen before c and d).
    assert.equal(counter.count('b', 1000).current, 1);
    assert.equal(counter.count('a', 1000).current, 1);
  });

  it('keeps recency right when the same key, the oldest or the newest, comes again and again', () => {
    const counter = new MemoryCounter(new ManualClock(), 2);
    for (let i = 1; i <= 5; i++) assert.equal(counter.count('x', 1000).current, i);
    counter.count('y', 1000);
    counter.count('x', 1000); // the oldest becomes the newest
    counter.count('z', 1000); // forgets y
    assert.equal(counter.count('x', 1000).current, 7);
    assert.equal(counter.count('y', 1000).current, 1); // forgets z
    assert.equal(counter.count('z', 1000).current, 1);
  });
});
