import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rankFuzzy } from '../../src/matching/fuzzy.ts';
import { PathSearch } from '../../src/matching/path-search.ts';

/** Paths of every shape quick open meets: deep and shallow, cases, separators, digits, non-ASCII. */
function somePaths(): { path: string }[] {
  const words = ['widget', 'order', 'Invoice', 'user_session', 'cache-entry', 'parser.test', 'o', 'Übersicht', 'naïve'];
  return Array.from({ length: 900 }, (_, i) => ({
    path: `${['src', 'lib', 'test/unit'][i % 3]}/${['a', 'order', 'Mod'][i % 4 === 0 ? 0 : i % 3]}${i % 5}/${words[i % words.length]}${i % 13 ? i : ''}.${['ts', 'py', 'md'][i % 3]}`,
  }));
}

describe('PathSearch', () => {
  it('answers each key of a query as scoring every path would, while it narrows, skips and passes over', () => {
    const items = somePaths();
    const search = new PathSearch(items);
    const typed = ['order', 'Inv', 'us se', 'ts', 'xq', 'o t', 'c-e', 'p.t', 'über', 'naï', '/', 'w1', 'test/unit/O'];
    for (const query of typed) {
      // One key at a time, as quick open asks: each extends the one before.
      for (let end = 1; end <= query.length; end++) {
        const prefix = query.slice(0, end);
        const expected = rankFuzzy(prefix, items, (item) => item.path, 30, { path: true });
        assert.deepEqual(search.find(prefix, 30), expected, prefix);
      }
      // Backspace, and a query that does not extend the last.
      assert.deepEqual(
        search.find(query.slice(0, 1), 30),
        rankFuzzy(query.slice(0, 1), items, (item) => item.path, 30, { path: true }),
      );
    }
  });

  it('lists the first items as given for an empty query, and finds an item by its path', () => {
    const items = [{ path: 'zeta.ts' }, { path: 'alpha/beta.ts' }, { path: 'b.ts' }];
    const search = new PathSearch(items);
    assert.deepEqual(
      search.find('  ', 2).map((hit) => hit.item.path),
      ['zeta.ts', 'alpha/beta.ts'],
    );
    assert.equal(search.get('b.ts'), items[2]);
    assert.equal(search.get('c.ts'), undefined);
    assert.deepEqual(search.find('q', 10), []);
  });
});
