// Fuzzy ranking sanity: what a Ctrl+P or Ctrl+T user expects comes first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fuzzyMayMatch, fuzzyPathBound, fuzzyPathScore, fuzzyQuery, fuzzyScore, rankFuzzy, TopK } from '../../src/matching/fuzzy.ts';

const PATHS = [
  'src/core/workspace/documents.ts',
  'src/core/workspace/folder-watcher.ts',
  'docs/architecture.md',
  'src/local/handlers/editor.ts',
  'test/core/workspace/documents.test.ts',
  'src/core/code/fuzzy.ts',
  'src/cli/commands/code.ts',
  'README.md',
  'src/core/agents/files/agent-files.ts',
  'src/compose/code-intel.ts',
];

function best(query: string, paths = PATHS): string[] {
  return rankFuzzy(query, paths, (path) => path, 5, { path: true }).map((hit) => hit.item);
}

describe('fuzzy matching', () => {
  it('needs every character in order, ignoring case for a lower-case query', () => {
    assert.ok(fuzzyScore(fuzzyQuery('dcmt'), 'documents'));
    assert.equal(fuzzyScore(fuzzyQuery('tmcd'), 'documents'), undefined);
    assert.ok(fuzzyScore(fuzzyQuery('readme'), 'README.md'));
    // Smart case: a capital letter makes the query case-sensitive.
    assert.equal(fuzzyScore(fuzzyQuery('Readme'), 'README.md'), undefined);
  });

  it('ranks a match in the file name above one spread over folders', () => {
    assert.equal(best('documents')[0], 'src/core/workspace/documents.ts');
    assert.equal(best('fuzzy')[0], 'src/core/code/fuzzy.ts');
    assert.equal(best('codeintel')[0], 'src/compose/code-intel.ts');
  });

  it('prefers word starts and consecutive runs', () => {
    const ranked = rankFuzzy('fw', ['src/flow.ts', 'folder-watcher.ts', 'xfxw.ts'], (p) => p, 3, { path: true }).map((hit) => hit.item);
    assert.equal(ranked[0], 'folder-watcher.ts');
    const symbols = rankFuzzy('gun', ['getUserName', 'gunzip', 'beginning', 'getUnknown'], (name) => name, 4).map((hit) => hit.item);
    assert.equal(symbols[0], 'gunzip');
    const humps = rankFuzzy('gUN', ['getUserName', 'gunzip', 'getUnknown'], (name) => name, 3).map((hit) => hit.item);
    assert.equal(humps[0], 'getUserName');
  });

  it('ties go to the shorter path, then alphabetical; terms separated by spaces all match', () => {
    assert.deepEqual(best('a.ts', ['b/a.ts', 'a.ts', 'c/a.ts']), ['a.ts', 'b/a.ts', 'c/a.ts']);
    assert.equal(best('core test', PATHS)[0], 'test/core/workspace/documents.test.ts');
    assert.ok(!best('core test', PATHS).includes('src/core/code/fuzzy.ts'));
  });

  it('gives positions of the matched characters', () => {
    const match = fuzzyScore(fuzzyQuery('fw'), 'folder-watcher.ts')!;
    assert.deepEqual(match.positions, [0, 7]);
  });

  it('stays fast on 50,000 paths (work per path is bounded by query × path length)', () => {
    const paths = Array.from({ length: 50_000 }, (_, i) => `src/module${i % 97}/sub${i % 13}/file-${i}.ts`);
    const hits = rankFuzzy('mod12file7', paths, (p) => p, 20, { path: true });
    assert.equal(hits.length, 20);
    assert.ok(hits.every((hit) => /module12/.test(hit.item) || /file-7/.test(hit.item)));
  });

  it('bounds every path score, and a picker that passes over paths that cannot enter keeps the same best', () => {
    const words = ['widget', 'order', 'Invoice', 'user_session', 'cache-entry', 'parser.test', 'o'];
    const paths = Array.from({ length: 600 }, (_, i) => `src/${['a', 'lib', 'order'][i % 3]}/m${i % 7}/${words[i % words.length]}${i % 11 ? i : ''}.ts`);
    for (const query of ['o', 'or', 'order', 'w', 'wi', 'ts', 'src', 'I', 'Inv', 'us se', 'o t', 'x', 'c-e', 'p.t', '/']) {
      const prepared = fuzzyQuery(query);
      const bound = fuzzyPathBound(prepared);
      const all = new TopK<string>(20, (path) => path);
      const bounded = new TopK<string>(20, (path) => path);
      for (const path of paths) {
        const folded = prepared.caseSensitive ? path : path.toLowerCase();
        const match = fuzzyPathScore(prepared, path, folded);
        if (match) {
          assert.ok(match.score <= bound, `${query}: ${path} scores ${match.score} over ${bound}`);
          assert.equal(fuzzyMayMatch(prepared, folded), true, `${query}: ${path}`);
          all.offer({ item: path, ...match });
        }
        if (match && bounded.wouldKeep(bound, path)) bounded.offer({ item: path, ...match });
      }
      assert.deepEqual(bounded.sorted(), all.sorted(), query);
    }
    // `o` at the start of a file name reaches the bound: the picker can pass over what follows.
    assert.equal(fuzzyPathScore(fuzzyQuery('o'), 'src/order.ts')!.score, fuzzyPathBound(fuzzyQuery('o')));
    assert.equal(fuzzyMayMatch(fuzzyQuery('ba'), 'src/ab.ts'), false);
  });
});
