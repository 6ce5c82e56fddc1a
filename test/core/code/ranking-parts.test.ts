// The pieces locate is made of: terms, BM25F, personalised PageRank, the file graph, file roles,
// history statistics and the token estimate.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Bm25Index } from '../../../src/core/code/bm25.ts';
import { fileGraph, nameWeight } from '../../../src/core/code/file-graph.ts';
import { isGeneratedPath, isTestPath } from '../../../src/core/code/file-roles.ts';
import { changeStats, coChanges, SWEEPING_COMMIT_FILES } from '../../../src/core/code/history.ts';
import { personalizedPageRank } from '../../../src/core/code/pagerank.ts';
import { namedIdentifiers, splitTerms, stemmedTerms, stemTerm } from '../../../src/core/code/terms.ts';
import { estimateTokens } from '../../../src/core/code/token-count.ts';

describe('splitTerms', () => {
  it('splits identifiers at humps, acronyms, underscores, dashes and digits, lower-cased', () => {
    assert.deepEqual(splitTerms('parseHTTPHeader(raw_value)'), ['parse', 'http', 'header', 'raw', 'value']);
    assert.deepEqual(splitTerms('XMLHttpRequest trie-router v2beta'), ['xml', 'http', 'request', 'trie', 'router', 'v', '2', 'beta']);
    assert.deepEqual(splitTerms('src/adapter/aws-lambda/handler.ts'), ['src', 'adapter', 'aws', 'lambda', 'handler', 'ts']);
    assert.deepEqual(splitTerms('  ,;  '), []);
  });

  it('stems plurals, -ing, -ed and a final e, so that the words of a task meet those of the code', () => {
    assert.deepEqual(stemmedTerms('cookies Cookie'), ['cooki', 'cooki']);
    assert.equal(stemTerm('templating'), stemTerm('template'));
    assert.equal(stemTerm('loading'), 'load');
    assert.equal(stemTerm('running'), 'run');
    assert.equal(stemTerm('fixed'), 'fix');
    for (const kept of ['class', 'status', 'axis', 'url', 'ts']) assert.equal(stemTerm(kept), kept);
  });

  it('finds the identifiers a text writes, once each', () => {
    assert.deepEqual(namedIdentifiers('fix `replaceUrlParam` in client.ts; replaceUrlParam again'), ['fix', 'replaceUrlParam', 'client', 'again']);
    assert.deepEqual(namedIdentifiers('use send_file and $path'), ['use', 'send_file', 'and', '$path']);
  });
});

describe('Bm25Index', () => {
  it('ranks by BM25 with k1 1.2 and b 0.75 (one field)', () => {
    const index = new Bm25Index({ weights: { text: 1 } });
    index.add({ text: ['router', 'trie', 'node'] });
    index.add({ text: ['context', 'request'] });
    index.add({ text: ['router', 'router', 'router', 'smart', 'router', 'filler', 'filler', 'filler'] });
    const hits = index.search(['router', 'trie']);
    assert.deepEqual(
      hits.map((hit) => hit.doc),
      [0, 2],
    );
    assert.deepEqual(hits[0]!.terms, ['trie', 'router']);
    // idf(trie) = ln(1 + (3 - 1 + 0.5) / 1.5); average length 13/3.
    const idf = Math.log(1 + 2.5 / 1.5);
    assert.equal(index.idf('trie'), idf);
    const tf = 1 / (1 - 0.75 + (0.75 * 3) / (13 / 3));
    const routerIdf = Math.log(1 + 1.5 / 2.5);
    assert.ok(Math.abs(hits[0]!.score - (idf * tf) / (1.2 + tf) - (routerIdf * tf) / (1.2 + tf)) < 1e-12);
    assert.deepEqual(index.search(['absent']), []);
  });

  it('weighs fields: a term in the path counts more than in the text', () => {
    const index = new Bm25Index({ weights: { path: 3, text: 1 } });
    index.add({ path: ['src', 'cookie'], text: ['set', 'value'] });
    index.add({ path: ['src', 'utils'], text: ['cookie', 'value'] });
    assert.equal(index.search(['cookie'])[0]!.doc, 0);
  });
});

describe('personalizedPageRank', () => {
  it('sums to 1, flows along edges and restarts at the personalised nodes', () => {
    const edges = [
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 2, weight: 1 },
      { from: 3, to: 2, weight: 1 },
    ];
    const plain = personalizedPageRank(4, edges);
    assert.ok(Math.abs(plain.reduce((a, b) => a + b, 0) - 1) < 1e-9);
    assert.ok(plain[2]! > plain[1]! && plain[1]! > plain[0]!);
    const personal = personalizedPageRank(4, edges, [1, 0, 0, 0]);
    assert.equal(personal[3], 0);
    assert.ok(personal[0]! > 0 && personal[1]! > 0 && personal[2]! > 0);
    assert.deepEqual([...personalizedPageRank(0, [])], []);
  });
});

describe('fileGraph', () => {
  it('links a file to the files defining the names it uses, not to names defined everywhere', () => {
    const common = Array.from({ length: 6 }, (_, i) => ({ path: `c${i}.ts`, definitions: [{ name: 'get', line: 1 }], references: [], imports: [] }));
    const edges = fileGraph([
      { path: 'a.ts', definitions: [], references: ['parseUrl', 'parseUrl', 'get'], imports: ['c.ts'] },
      { path: 'b.ts', definitions: [{ name: 'parseUrl', line: 3 }], references: [], imports: [] },
      { path: 'c.ts', definitions: [], references: [], imports: [] },
      ...common,
    ]);
    assert.deepEqual(edges, [
      { from: 0, to: 1, weight: Math.SQRT2 * 2, name: 'parseUrl', imported: false },
      { from: 0, to: 2, weight: 1, name: undefined, imported: true },
    ]);
    assert.ok(nameWeight('replaceUrlParam') > nameWeight('render'));
    assert.ok(nameWeight('_private') < nameWeight('private'));
  });
});

describe('file roles', () => {
  it('tells tests and generated files', () => {
    for (const path of ['src/a.test.ts', 'test/x.js', 'pkg/x_test.go', 'tests/test_app.py', 'flask/testsuite/basic.py', 'src/__tests__/a.ts']) {
      assert.equal(isTestPath(path), true, path);
    }
    for (const path of ['src/testing.ts', 'src/attest.ts', 'lib/contest/x.js', 'src/helper/testing/index.ts']) assert.equal(isTestPath(path), false, path);
    assert.equal(isGeneratedPath('dist/axios.js'), true);
    assert.equal(isGeneratedPath('lib/x.min.js'), true);
    assert.equal(isGeneratedPath('deno_dist/mod.ts'), false);
    assert.equal(isGeneratedPath('lib/bundle.js', 'x'.repeat(5000)), true);
    assert.equal(isGeneratedPath('lib/a.js', 'let a = 1;\n'.repeat(500)), false);
  });
});

describe('history statistics', () => {
  it('counts changes, recency and co-changes, leaving sweeping commits out of pairs', () => {
    const sweeping = { files: Array.from({ length: SWEEPING_COMMIT_FILES + 1 }, (_, i) => `f${i}.ts`).concat('a.ts'), time: 3 };
    const history = {
      commits: [{ files: ['a.ts', 'b.ts'], time: 5 }, sweeping, { files: ['a.ts', 'b.ts', 'c.ts'], time: 1 }],
    };
    const stats = changeStats(history);
    assert.deepEqual(stats.get('a.ts'), { recentChanges: 3, recency: 1, changes: 2 });
    assert.equal(stats.get('c.ts')!.recency, Math.exp(-2 / 100));
    const pairs = coChanges(history, ['a.ts']);
    assert.deepEqual(
      [...pairs.get('a.ts')!],
      [
        ['b.ts', 2],
        ['c.ts', 1],
      ],
    );
  });
});

describe('estimateTokens', () => {
  it('counts words, humps, punctuation and indentation', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens('export function parseUrl(url: string): URL {'), 12);
    assert.equal(estimateTokens('    return x'), 3);
    assert.equal(estimateTokens('a'.repeat(80)), 10);
  });
});
