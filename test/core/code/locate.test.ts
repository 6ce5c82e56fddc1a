import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { locate, MAX_TASK_CHARS, type LocateFile } from '../../../src/core/code/locate.ts';
import { repositoryMap } from '../../../src/core/code/repo-map.ts';
import { estimateTokens } from '../../../src/core/code/token-count.ts';

function file(path: string, text: string, definitions: string[] = [], references: string[] = [], imports: string[] = []): LocateFile {
  const lines = text.split('\n');
  return {
    path,
    text,
    definitions: definitions.map((name) => ({ name, line: Math.max(1, lines.findIndex((line) => line.includes(name)) + 1), kind: 'function' })),
    references,
    imports,
  };
}

const FILES = [
  file('src/router/trie-router/node.ts', 'export class Node {\n  insert(path) {}\n  search(path) {}\n}\n', ['Node', 'insert', 'search'], ['splitPath']),
  file('src/router/reg-exp-router/router.ts', 'export class RegExpRouter {\n  match(method, path) {}\n}\n', ['RegExpRouter', 'match'], ['splitPath']),
  file('src/utils/url.ts', 'export const splitPath = (path) => path.split("/")\nexport const getPath = (request) => request.url\n', ['splitPath', 'getPath']),
  file('src/context.ts', 'export class Context {\n  header(name, value) {}\n  json(object) {}\n}\n', ['Context', 'header', 'json'], ['getPath']),
  file(
    'src/router/trie-router/node.test.ts',
    'import { Node } from "./node"\ndescribe("trie router node", () => { new Node().insert("/files/:name{.*}") })\n',
    [],
    ['Node', 'insert'],
  ),
  file('dist/index.js', 'class Node{insert(path){}} class RegExpRouter{} class Context{} '.repeat(200), ['Node']),
];

describe('locate', () => {
  it('ranks the file a task points at first, with reasons', () => {
    const answer = locate({ task: 'fix(trie-router): support `/files/:name{.*}` when inserting a path', files: FILES });
    assert.equal(answer[0]!.path, 'src/router/trie-router/node.ts');
    assert.ok(answer[0]!.score > answer[1]!.score);
    assert.ok(
      answer[0]!.reasons.some((reason) => reason === 'path name "trie-router" in the task'),
      answer[0]!.reasons.join('; '),
    );
    const test = answer.find((hit) => hit.path.endsWith('.test.ts'));
    assert.ok(!test || test.reasons.includes('a test (ranked lower)'));
    const bundle = answer.findIndex((hit) => hit.path === 'dist/index.js');
    assert.ok(bundle === -1 || bundle > 1);
  });

  it('matches a file name that writes the words of the task together (pagerank.ts for PageRank)', () => {
    const files = [...FILES, file('src/core/pagerank.ts', 'export function rank(edges) {}\n', ['rank'])];
    const answer = locate({ task: 'personalised PageRank over the graph', files });
    assert.equal(answer[0]!.path, 'src/core/pagerank.ts');
    assert.ok(answer[0]!.reasons.includes('path name "pagerank" in the task'), answer[0]!.reasons.join('; '));
  });

  it('finds the definition of a name the task writes, whatever the words', () => {
    const answer = locate({ task: 'RegExpRouter should not match twice', files: FILES });
    assert.equal(answer[0]!.path, 'src/router/reg-exp-router/router.ts');
    assert.ok(answer[0]!.reasons.includes('defines RegExpRouter (named in the task)'), answer[0]!.reasons.join('; '));
  });

  it('follows history: files changed together with the best match, and often-changed files', () => {
    const history = {
      commits: [
        { files: ['src/context.ts', 'src/utils/url.ts'], time: 30 },
        { files: ['src/context.ts', 'src/utils/url.ts'], time: 20 },
        { files: ['src/context.ts'], time: 10 },
      ],
    };
    const answer = locate({ task: 'json header escaping in the context', files: FILES, history });
    assert.equal(answer[0]!.path, 'src/context.ts');
    const url = answer.find((hit) => hit.path === 'src/utils/url.ts');
    assert.ok(url, JSON.stringify(answer));
    assert.ok(url.reasons.includes('changed with src/context.ts in 2 commits'), url.reasons.join('; '));
    assert.ok(answer[0]!.reasons.includes('changed in 3 of the last 3 commits'), answer[0]!.reasons.join('; '));
  });

  it('links files through the definition–reference graph', () => {
    const answer = locate({ task: 'getPath returns the wrong url for a request', files: FILES, limit: 10 });
    assert.equal(answer[0]!.path, 'src/utils/url.ts');
    const context = answer.find((hit) => hit.path === 'src/context.ts');
    assert.ok(
      context?.reasons.some((reason) => reason === 'uses getPath from src/utils/url.ts'),
      JSON.stringify(answer),
    );
  });

  it('reads the first 20,000 characters of a task, however long it is', () => {
    const filler = 'word '.repeat(MAX_TASK_CHARS / 5);
    assert.equal(locate({ task: `RegExpRouter ${filler}`, files: FILES })[0]!.path, 'src/router/reg-exp-router/router.ts');
    const late = locate({ task: `${filler} RegExpRouter ${'x'.repeat(5_000_000)}`, files: FILES });
    assert.ok(late.every((hit) => !hit.reasons.includes('defines RegExpRouter (named in the task)')));
  });

  it('answers nothing for nothing, and honours the limit', () => {
    assert.deepEqual(locate({ task: 'anything', files: [] }), []);
    assert.deepEqual(locate({ task: 'zzzz qqqq', files: FILES }), []);
    // Files changed often, but nothing in the task points at them.
    assert.deepEqual(locate({ task: 'zzzz qqqq', files: FILES, history: { commits: [{ files: ['src/context.ts'], time: 1 }] } }), []);
    assert.equal(locate({ task: 'router path node', files: FILES, limit: 2 }).length, 2);
    assert.deepEqual(locate({ task: 'router', files: FILES, limit: 0 }), []);
  });
});

describe('repositoryMap', () => {
  const many = Array.from({ length: 80 }, (_, i) =>
    file(
      `src/module${i}/service${i}.ts`,
      Array.from(
        { length: 12 },
        (_, j) => `export function handle${i}x${j}(request: Request, options: Options${j}): Response {\n  return run(request)\n}`,
      ).join('\n'),
      Array.from({ length: 12 }, (_, j) => `handle${i}x${j}`),
      i > 0 ? [`handle${i - 1}x0`] : [],
    ),
  );

  it('fills its budget to within 10 %, never over, focus files first', () => {
    for (const tokens of [256, 1024, 4096]) {
      const map = repositoryMap({ files: many, task: 'handle the request in module 7', focus: ['src/module42/service42.ts'], tokens });
      assert.equal(map.tokens, estimateTokens(map.text));
      assert.ok(map.tokens <= tokens && map.tokens >= tokens * 0.9, `${map.tokens} for ${tokens}`);
      assert.equal(map.files[0], 'src/module42/service42.ts');
      assert.ok(map.text.startsWith('src/module42/service42.ts\n'));
    }
  });

  it('shows each file as its path and its definitions’ first lines, numbered', () => {
    const map = repositoryMap({ files: FILES, task: 'trie router insert', tokens: 2000 });
    assert.ok(map.text.includes('src/router/trie-router/node.ts\n  1│export class Node {\n  2│  insert(path) {}'), map.text);
    // Everything fits: tests and bundles come last.
    assert.equal(map.files.length, FILES.length);
    assert.deepEqual(map.files.slice(-2).sort(), ['dist/index.js', 'src/router/trie-router/node.test.ts']);
  });

  it('shows control characters in names and lines as ?, so that no name fakes a line of the map', () => {
    const hostile = file('src/evil\nsrc/fake.ts', 'export function f() {}\n', ['f']);
    const map = repositoryMap({ files: [{ ...hostile, definitions: [{ name: 'f', line: 1, signature: 'function f()\u001b[2J {' }] }], tokens: 100 });
    assert.equal(map.text, 'src/evil?src/fake.ts\n  1│function f()?[2J {');
  });

  it('keeps within a budget smaller than one file, and an empty budget gives an empty map', () => {
    const map = repositoryMap({ files: many, focus: ['src/module3/service3.ts'], tokens: 40 });
    assert.ok(map.tokens <= 40 && map.tokens > 30, String(map.tokens));
    assert.deepEqual(repositoryMap({ files: many, tokens: 0 }), { text: '', tokens: 0, files: [] });
  });
});
