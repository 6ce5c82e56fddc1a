import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TypeAheadCache } from '../../../src/core/completion/type-ahead.ts';

describe('type-ahead cache', () => {
  const shown = { model: 'm', prefix: 'const value = comp', suffix: '\n', completion: 'uteTotal(items);', tokens: 4 };

  it('gives the rest of the suggestion to a user typing its characters', () => {
    const cache = new TypeAheadCache();
    cache.remember('doc', shown);
    assert.deepEqual(cache.lookup('doc', 'm', 'const value = compute', '\n'), { completion: 'Total(items);', tokens: 3 });
    assert.deepEqual(cache.lookup('doc', 'm', 'const value = comp', '\n')?.completion, 'uteTotal(items);');
  });

  it('misses when the typed text leaves the suggestion, the suffix changed, or another model is asked', () => {
    const cache = new TypeAheadCache();
    cache.remember('doc', shown);
    assert.equal(cache.lookup('doc', 'm', 'const value = compx', '\n'), undefined);
    assert.equal(cache.lookup('doc', 'm', 'const value = compute', ')\n'), undefined);
    assert.equal(cache.lookup('doc', 'other', 'const value = compute', '\n'), undefined);
    assert.equal(cache.lookup('other-doc', 'm', 'const value = compute', '\n'), undefined);
    assert.equal(cache.lookup('doc', 'm', 'const value = computeTotal(items);', '\n'), undefined, 'all typed: nothing left');
  });

  it('misses when the text before the cursor changed at the same length', () => {
    const cache = new TypeAheadCache();
    cache.remember('doc', shown);
    assert.equal(cache.lookup('doc', 'm', 'const other = compute', '\n'), undefined);
  });

  it('forgets a document when its newest suggestion is empty, and the least recently used beyond capacity', () => {
    const cache = new TypeAheadCache(2);
    cache.remember('a', shown);
    cache.remember('a', { ...shown, completion: '' });
    assert.equal(cache.lookup('a', 'm', 'const value = compute', '\n'), undefined);
    cache.remember('a', shown);
    cache.remember('b', shown);
    cache.remember('c', shown);
    assert.equal(cache.lookup('a', 'm', 'const value = compute', '\n'), undefined);
    assert.ok(cache.lookup('c', 'm', 'const value = compute', '\n'));
  });
});
