// The in-memory names of Ctrl+T: counted, so a name stays while any definition carries it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NameIndex } from '../../../src/core/code/name-index.ts';

describe('name index', () => {
  it('finds names fuzzily, best first, and follows additions and removals by count', () => {
    const names = new NameIndex();
    names.add(['parseConfig', 'parseConfig', 'Server', 'pacify']);
    assert.deepEqual(
      names.search('pcfg', 5).map((hit) => hit.item),
      ['parseConfig'],
    );
    names.remove(['parseConfig']);
    assert.equal(names.search('pcfg', 5).length, 1);
    names.remove(['parseConfig']);
    assert.deepEqual(names.search('pcfg', 5), []);
    assert.equal(names.size, 2);
    names.add(['parseCfg']);
    assert.deepEqual(
      names.search('pcfg', 5).map((hit) => hit.item),
      ['parseCfg'],
    );
    names.remove(['never-added']);
    assert.equal(names.size, 3);
  });
});
