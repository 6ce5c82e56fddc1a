// The builtin model with the names the code index says are in scope (scope.ts): a word being
// typed that the project has no evidence for is finished as far as the names in scope that start
// so agree, and left alone where that would be a guess (a local the index does not know, a name
// being declared); without a scope the model is what it always was. Then the scope itself
// over a real code index, and the provider that reads it only when the model wants it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { CodeIndex } from '../../../../src/adapters/code/code-index.ts';
import { builtinScope } from '../../../../src/compose/code-intel.ts';
import { BuiltinModel, BuiltinProvider, type Scope, type ScopeRequest } from '../../../../src/core/completion/builtin/index.ts';
import type { ProviderRequest } from '../../../../src/core/completion/provider.ts';

/** A project that never uses the names of the file being written. */
function model(): BuiltinModel {
  const trained = new BuiltinModel();
  trained.updateFile('src/other.ts', 'export function handle(request) {\n  const body = request.body;\n  return body;\n}\n');
  trained.indexPending();
  return trained;
}

const HEADER = "import { parseRequestPath } from './url';\n\nexport function route(request) {\n";
const scope = (names: string[], members: string[] = []): Scope => ({ names, members });

describe('the builtin model with names in scope', () => {
  it('finishes the one name in scope the typed letters start, which it had no evidence for', () => {
    const input = { prefix: HEADER + '  const path = parseR', suffix: '\n}\n', filePath: 'src/app.ts' };
    const alone = model().suggest(input);
    assert.equal(alone.text, '');
    assert.equal(alone.scopeWanted, true);
    const withScope = model().suggest({ ...input, scope: scope(['parseRequestPath', 'route']) });
    assert.match(withScope.text, /^equestPath/);
    assert.equal(withScope.scopeWanted, undefined);
  });

  it('after a dot, finishes among the members', () => {
    const input = { prefix: "import * as url from './url';\n\n  const path = url.parseR", suffix: '\n', filePath: 'src/app.ts' };
    assert.equal(model().suggest({ ...input, scope: scope(['url'], []) }).text, '');
    assert.match(model().suggest({ ...input, scope: scope(['url'], ['parseRequestPath']) }).text, /^equestPath/);
  });

  it('goes as far as several names agree, and refrains when the file uses another word that starts so, or where a name is declared', () => {
    const typed = { prefix: HEADER + '  const path = parseR', suffix: '\n}\n', filePath: 'src/app.ts' };
    assert.equal(model().suggest({ ...typed, scope: scope(['parseRequestPath', 'parseRequestBody']) }).text, 'equest');
    assert.equal(model().suggest({ ...typed, scope: scope(['parseRequestPath', 'parseRaw']) }).text, '');
    // A local variable: the index does not know it, the file's text does.
    const local = { prefix: HEADER + '  const parseRaw = 1;\n  const path = parseR', suffix: '\n}\n', filePath: 'src/app.ts' };
    assert.equal(model().suggest({ ...local, scope: scope(['parseRequestPath']) }).text, '');
    const declared = { prefix: HEADER + '  const parseR', suffix: '\n}\n', filePath: 'src/app.ts' };
    const declaring = model().suggest({ ...declared, scope: scope(['parseRequestPath']) });
    assert.equal(declaring.text, '');
    assert.equal(model().suggest(declared).scopeWanted, undefined);
  });

  it('is what it was without a scope when the project has evidence', () => {
    const input = { prefix: 'export function handle(request) {\n  const body = request.b', suffix: '\n', filePath: 'src/app.ts' };
    const alone = model().suggest(input);
    assert.equal(alone.scopeWanted, undefined);
    assert.deepEqual(model().suggest({ ...input, scope: scope([], ['banana']) }), alone);
  });
});

const FILES: Record<string, string> = {
  'src/url.ts': 'export function parseRequestPath(url: string): string {\n  return url;\n}\nexport class Query {\n  getParam(name: string) {}\n}\n',
  'src/app.ts': "import { parseRequestPath, Query } from './url';\n\nexport function route(request: string) {\n  return parseRequestPath(request);\n}\n",
};

async function workspace(t: TestContext): Promise<CodeIndex> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-scope-')));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-scope-data-'));
  for (const [name, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  const index = CodeIndex.open({ root, dataDir, workers: 1 });
  t.after(async () => {
    await index.close();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  await index.refresh();
  return index;
}

describe('the names in scope from a code index', () => {
  it('are the file’s definitions and imports its text has, and after a dot what the imported files define', async (t) => {
    const index = await workspace(t);
    const text = FILES['src/app.ts']!;
    const found = await builtinScope(index).scopeOf({ prefix: text, suffix: '', filePath: path.join(index.root, 'src/app.ts') });
    assert.ok(found);
    assert.deepEqual([...found.names].sort(), ['Query', 'parseRequestPath', 'route']);
    assert.deepEqual([...found.members].sort(), ['Query', 'getParam', 'parseRequestPath']);
    // A name the text at hand no longer has (being renamed) is not in scope; nor is a file outside the workspace.
    const renamed = await builtinScope(index).scopeOf({ prefix: text.replace(/route/g, 'dispatch'), suffix: '', filePath: 'src/app.ts' });
    assert.ok(renamed && !renamed.names.includes('route'));
    assert.equal(await builtinScope(index).scopeOf({ prefix: text, suffix: '', filePath: '/elsewhere/app.ts' }), undefined);
  });
});

describe('the builtin provider with a scope source', () => {
  const request = (prefix: string): ProviderRequest => ({
    prefix,
    suffix: '\n}\n',
    language: 'typescript',
    filePath: 'src/app.ts',
    mode: 'fim',
    maxTokens: 64,
    stop: () => undefined,
    signal: new AbortController().signal,
  });

  it('reads the scope only for a word the model has no evidence for, and answers with it', async () => {
    const asked: ScopeRequest[] = [];
    const source = {
      scopeOf: async (input: ScopeRequest) => {
        asked.push(input);
        return scope(['parseRequestPath']);
      },
    };
    const provider = new BuiltinProvider(model(), source);
    const typed = await provider.complete(request(HEADER + '  const path = parseR'));
    assert.match(typed.text, /^equestPath/);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.filePath, 'src/app.ts');
    await provider.complete(request('export function handle(request) {\n  const body = request.b'));
    assert.equal(asked.length, 1);
    assert.equal((await new BuiltinProvider(model()).complete(request(HEADER + '  const path = parseR'))).text, '');
  });
});
