// `loom code locate` and `loom code map`, run as a user runs them: without a server, on a small
// repository with history made here, the index built in the data dir on the spot.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { estimateTokens } from '../../src/core/code/token-count.ts';
import { cleanEnv, hasStackTrace, runLoom, tempDir } from '../support/cli.ts';

const FILES: Record<string, string> = {
  'src/router/trie-router/node.ts':
    "import { splitPath } from '../../utils/url'\nexport class Node {\n  insert(method: string, path: string) {\n    return splitPath(path)\n  }\n  search(method: string, path: string) {\n    return []\n  }\n}\n",
  'src/router/reg-exp-router/router.ts':
    "import { splitPath } from '../../utils/url'\nexport class RegExpRouter {\n  match(method: string, path: string) {\n    return splitPath(path)\n  }\n}\n",
  'src/utils/url.ts':
    "export const splitPath = (path: string) => path.split('/')\nexport const getQueryParam = (url: string, key: string) => new URL(url).searchParams.get(key)\n",
  'src/context.ts':
    "import { getQueryParam } from './utils/url'\nexport class Context {\n  header(name: string, value: string) {}\n  json(object: unknown) { return JSON.stringify(object) }\n  query(key: string) { return getQueryParam('', key) }\n}\n",
  'src/router/trie-router/node.test.ts': "import { Node } from './node'\ntest('trie router node', () => new Node().insert('GET', '/files/:name'))\n",
  'src/middleware/cookie/index.ts':
    "export const getCookie = (header: string, name: string) => header.split(';').find((part) => part.startsWith(name))\nexport const setCookie = (name: string, value: string) => `${name}=${value}`\n",
  'README.md': '# demo\n',
};

function write(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

/** A repository with a few commits: the cookie middleware and the context change together. */
function repository(t: TestContext, options: { git?: boolean; modules?: number } = {}): { dir: string; args: string[]; env: NodeJS.ProcessEnv } {
  const home = tempDir(t);
  const dir = path.join(home, 'project');
  write(dir, FILES);
  // More files, for maps that have more to show than their budget.
  for (let i = 0; i < (options.modules ?? 0); i++) {
    const functions = [0, 1, 2].map((j) => `export function handle${i}Step${j}(request: Request): Response {\n  return new Response(String(${j}))\n}\n`);
    write(dir, { [`src/lib/module${i}.ts`]: functions.join('') });
  }
  const env = cleanEnv(home, { GIT_CONFIG_NOSYSTEM: '1', HOME: home, GIT_CEILING_DIRECTORIES: home });
  if (options.git !== false) {
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { env, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    for (let i = 0; i < 3; i++) {
      fs.appendFileSync(path.join(dir, 'src/middleware/cookie/index.ts'), `// change ${i}\n`);
      fs.appendFileSync(path.join(dir, 'src/context.ts'), `// change ${i}\n`);
      git('commit', '-q', '-am', `cookies and context ${i}`);
    }
  }
  return { dir, args: ['--workspace', dir, '--data-dir', path.join(home, 'data')], env };
}

describe('loom code locate', () => {
  it('prints {"files": [{path, score, reasons}]}, the obvious file first, without a server', async (t) => {
    const { args, env } = repository(t);
    const result = await runLoom(
      ['code', 'locate', 'fix(trie-router): support `/files/:name{.*}` when inserting a path', ...args, '--limit', '3', '--json'],
      env,
    );
    assert.equal(result.code, EXIT.ok, result.stderr);
    const answer = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(answer), ['files']);
    assert.ok(answer.files.length > 0 && answer.files.length <= 3);
    for (const file of answer.files) {
      assert.deepEqual(Object.keys(file), ['path', 'score', 'reasons']);
      assert.equal(typeof file.score, 'number');
      assert.ok(Array.isArray(file.reasons) && file.reasons.length > 0 && file.reasons.every((reason: unknown) => typeof reason === 'string'));
    }
    assert.equal(answer.files[0].path, 'src/router/trie-router/node.ts');
    assert.ok(answer.files[0].reasons.includes('path name "trie-router" in the task'), answer.files[0].reasons.join('; '));
  });

  it('reads git history: files that change together, and a workspace without git works too', async (t) => {
    const withGit = repository(t);
    const task = 'getCookie returns the wrong value when the header has spaces';
    const answer = JSON.parse((await runLoom(['code', 'locate', task, ...withGit.args, '--json'], withGit.env)).stdout);
    assert.equal(answer.files[0].path, 'src/middleware/cookie/index.ts');
    assert.ok(answer.files[0].reasons.includes('defines getCookie (named in the task)'), answer.files[0].reasons.join('; '));
    const context = answer.files.find((file: { path: string }) => file.path === 'src/context.ts');
    assert.ok(context?.reasons.includes('changed with src/middleware/cookie/index.ts in 4 commits'), JSON.stringify(answer));

    const plain = repository(t, { git: false });
    const result = await runLoom(['code', 'locate', task, ...plain.args, '--json'], plain.env);
    assert.equal(result.code, EXIT.ok, result.stderr);
    const noHistory = JSON.parse(result.stdout);
    assert.equal(noHistory.files[0].path, 'src/middleware/cookie/index.ts');
    assert.ok(noHistory.files.every((file: { reasons: string[] }) => file.reasons.every((reason) => !reason.startsWith('changed'))));

    const text = await runLoom(['code', 'locate', task, ...withGit.args, '--no-history', '--limit', '1'], withGit.env);
    assert.equal(text.code, EXIT.ok, text.stderr);
    assert.match(text.stdout, /^[\d.]+ {2}src\/middleware\/cookie\/index\.ts\n( {7}- .*\n)+$/);
    assert.match(text.stdout, /\n {7}- defines getCookie \(named in the task\)\n/);
  });

  it('refuses an empty task and a bad limit as usage errors, before indexing', async (t) => {
    const { args, env } = repository(t, { git: false });
    for (const extra of [[''], ['   '], ['task', '--limit', '0'], ['task', '--limit', 'ten'], ['task', '--limit', '1001']]) {
      const result = await runLoom(['code', 'locate', ...extra, ...args, '--json'], env);
      assert.equal(result.code, EXIT.usage, `${extra.join(' ')}: ${result.stderr}`);
      assert.equal(result.stdout, '');
      assert.ok(!hasStackTrace(result.stderr), result.stderr);
    }
  });
});

describe('loom code map', () => {
  it('keeps within its budget (±10 %), focus files first, each with its definitions', async (t) => {
    const { args, env } = repository(t, { modules: 30 });
    const result = await runLoom(['code', 'map', 'the query parameter of a request', '--focus', 'src/context.ts', '--tokens', '300', ...args, '--json'], env);
    assert.equal(result.code, EXIT.ok, result.stderr);
    const map = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(map), ['text', 'tokens', 'files']);
    assert.equal(map.tokens, estimateTokens(map.text));
    assert.ok(map.tokens <= 300 && map.tokens >= 270, String(map.tokens));
    assert.equal(map.files[0], 'src/context.ts');
    assert.match(map.text, /^src\/context\.ts\n {2}2│export class Context \{\n/);

    const everything = JSON.parse((await runLoom(['code', 'map', '--tokens', '5000', ...args, '--json'], env)).stdout);
    assert.equal(everything.files.length, 36);
    assert.ok(everything.tokens < 5000);
    const text = await runLoom(['code', 'map', '--focus', './src/utils/url.ts', '--tokens', '80', ...args], env);
    assert.equal(text.code, EXIT.ok, text.stderr);
    assert.ok(text.stdout.startsWith('src/utils/url.ts\n  1│export const splitPath'), text.stdout);
  });

  it('refuses a bad budget as a usage error', async (t) => {
    const { args, env } = repository(t, { git: false });
    for (const tokens of ['0', '-5', '1.5', 'lots', '1000001']) {
      const result = await runLoom(['code', 'map', '--tokens', tokens, ...args], env);
      assert.equal(result.code, EXIT.usage, `${tokens}: ${result.stderr}`);
      assert.ok(!hasStackTrace(result.stderr), result.stderr);
    }
  });
});
