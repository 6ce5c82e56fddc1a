// The code index of a workspace, end to end on real files: the build, the content-hash cache (a
// restart, a second checkout or a branch switched back parses nothing unchanged), updates of
// single paths, .gitignore, and every search: files, symbols, text, ranked, references; the
// editor's view with unsaved text.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { CodeIndex, type CodeIndexOptions } from '../../../src/adapters/code/code-index.ts';
import type { TextSearchItem, TextSearchOptions } from '../../../src/core/code/service.ts';
import { LoomError } from '../../../src/core/errors.ts';

function tempDir(t: TestContext, prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function writeFiles(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
}

function open(t: TestContext, root: string, dataDir: string, options: Partial<CodeIndexOptions> = {}): CodeIndex {
  const index = CodeIndex.open({ root, dataDir, workers: 1, ...options });
  t.after(() => index.close());
  return index;
}

async function collect(index: CodeIndex, options: TextSearchOptions): Promise<TextSearchItem[]> {
  const items: TextSearchItem[] = [];
  for await (const item of index.searchText(options)) items.push(item);
  return items;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  });
}

const PROJECT = {
  'src/config.ts': [
    '/** Reads the configuration file. */',
    'export function parseConfigFile(path: string): Config {',
    '  return JSON.parse(readText(path));',
    '}',
    'export interface Config { port: number }',
    '',
  ].join('\n'),
  'src/server.ts': [
    "import { parseConfigFile } from './config';",
    'export class HttpServer {',
    '  start() { return parseConfigFile("a.json"); }',
    '}',
    '',
  ].join('\n'),
  'tools/build.py': ['def build_all(targets):', '    """Builds every target."""', '    return [t for t in targets]', ''].join('\n'),
  'README.md': '# Project\n\nHow to parse the config file and start the server.\n',
  'dist/bundle.js': 'function ignoredByGit() {}\n',
  'node_modules/dep/index.js': 'function fromADependency() {}\n',
  '.gitignore': 'dist/\n*.log\n',
  'debug.log': 'noise\n',
};

describe('code index', () => {
  it('builds: parsed files, text files, .gitignore and dependency folders followed; status and files', async (t) => {
    const root = tempDir(t, 'loom-code-ws-');
    writeFiles(root, PROJECT);
    const index = open(t, root, tempDir(t, 'loom-code-data-'));
    assert.equal(index.status().state, 'empty');
    const build = await index.refresh();
    assert.equal(build.files, 5);
    assert.equal(build.parsed, 5);
    const status = index.status();
    assert.equal(status.state, 'ready');
    assert.deepEqual([status.files, status.parsed, status.lexical], [5, 3, 2]);
    assert.deepEqual(
      (await index.findFiles('', { limit: 10 })).map((hit) => hit.path),
      ['.gitignore', 'README.md', 'src/config.ts', 'src/server.ts', 'tools/build.py'],
    );
    const files = await index.findFiles('srvts');
    assert.equal(files[0]!.path, 'src/server.ts');
    assert.equal(files[0]!.language, 'typescript');
  });

  it('finds symbols by fuzzy name and lists a file outline in order', async (t) => {
    const root = tempDir(t, 'loom-code-ws-');
    writeFiles(root, PROJECT);
    const index = open(t, root, tempDir(t, 'loom-code-data-'));
    await index.refresh();
    const [first] = await index.findSymbols('parsecfg');
    assert.equal(first!.name, 'parseConfigFile');
    assert.equal(first!.path, 'src/config.ts');
    assert.equal(first!.kind, 'function');
    assert.equal(first!.doc, 'Reads the configuration file.');
    assert.deepEqual(first!.nameRange.start, { line: 2, column: 17 });
    assert.deepEqual(
      (await index.findSymbols('build')).map((hit) => `${hit.path} ${hit.name}`),
      ['tools/build.py build_all'],
    );
    assert.deepEqual(
      (await index.findSymbols('', { file: 'src/server.ts' })).map((hit) => `${hit.container ?? ''}.${hit.name}`),
      ['.HttpServer', 'HttpServer.start'],
    );
    assert.deepEqual(
      (await index.findSymbols('c', { kinds: ['interface'] })).map((hit) => hit.name),
      ['Config'],
    );
    const outline = await index.outline('src/server.ts');
    assert.deepEqual(
      outline!.imports.map((i) => [i.source, i.names]),
      [['./config', ['parseConfigFile']]],
    );
  });

  it('ranks chunks with BM25 on split identifiers, and finds references by name', async (t) => {
    const root = tempDir(t, 'loom-code-ws-');
    writeFiles(root, PROJECT);
    const index = open(t, root, tempDir(t, 'loom-code-data-'));
    await index.refresh();
    // "config file" finds parseConfigFile (split) first: its name weighs more than prose.
    const ranked = await index.searchRanked('config file');
    assert.equal(ranked[0]!.path, 'src/config.ts');
    assert.ok(ranked[0]!.symbols.includes('parseConfigFile'));
    assert.ok(ranked.some((hit) => hit.path === 'README.md'));
    // Whole identifiers find their split spellings and back.
    assert.equal((await index.searchRanked('parse_config_file'))[0]!.path, 'src/config.ts');
    assert.equal((await index.searchRanked('buildAll'))[0]!.path, 'tools/build.py');
    assert.deepEqual(await index.searchRanked('!!! ???'), []);
    const references = await index.references('parseConfigFile');
    assert.deepEqual(
      references.map((hit) => `${hit.path}:${hit.range.start.line}:${hit.range.start.column}`),
      ['src/server.ts:1:10', 'src/server.ts:3:20'],
    );
  });

  it('searches text: literal, regex, smart case, whole word, globs; bounded in matches; refuses bad patterns', async (t) => {
    const root = tempDir(t, 'loom-code-ws-');
    writeFiles(root, { ...PROJECT, 'src/many.ts': 'x\n'.repeat(50), 'img.bin': Buffer.from([0, 1, 2, 3]).toString('latin1') });
    const index = open(t, root, tempDir(t, 'loom-code-data-'));
    await index.refresh();
    const literal = await collect(index, { pattern: 'parseConfigFile' });
    assert.deepEqual(
      literal.filter((item) => item.type === 'match').map((item) => (item.type === 'match' ? `${item.path}:${item.line}` : '')),
      ['src/config.ts:2', 'src/server.ts:1', 'src/server.ts:3'],
    );
    const end = literal[literal.length - 1]!;
    assert.equal(end.type, 'end');
    assert.equal(end.type === 'end' && end.truncated, undefined);
    // The binary file is not searched; neither is what .gitignore leaves out.
    assert.ok(end.type === 'end' && end.skipped >= 1);
    assert.equal((await collect(index, { pattern: 'ignoredByGit' })).length, 1);
    const regex = await collect(index, { pattern: 'def \\w+\\(', regex: true });
    assert.equal(regex.filter((item) => item.type === 'match').length, 1);
    assert.equal((await collect(index, { pattern: 'httpserver' })).filter((item) => item.type === 'match').length, 1);
    assert.equal((await collect(index, { pattern: 'Httpserver' })).filter((item) => item.type === 'match').length, 0);
    // README's "config", server.ts's './config', config.ts's two `Config` (smart case), not parseConfigFile.
    assert.equal((await collect(index, { pattern: 'config', wholeWord: true })).filter((item) => item.type === 'match').length, 4);
    assert.equal((await collect(index, { pattern: 'config', wholeWord: true, caseSensitive: true })).filter((item) => item.type === 'match').length, 2);
    const onlyPython = await collect(index, { pattern: 'target', include: ['*.py'] });
    assert.ok(onlyPython.filter((item) => item.type === 'match').every((item) => item.type === 'match' && item.path.endsWith('.py')));
    const notSrc = await collect(index, { pattern: 'parseConfigFile', exclude: ['src/'] });
    assert.equal(notSrc.filter((item) => item.type === 'match').length, 0);
    const bounded = await collect(index, { pattern: 'x', maxMatches: 7 });
    assert.equal(bounded.filter((item) => item.type === 'match').length, 7);
    assert.equal((bounded.at(-1) as { truncated?: string }).truncated, 'matches');
    const controller = new AbortController();
    controller.abort();
    const aborted = await collect(index, { pattern: 'x', signal: controller.signal });
    assert.deepEqual(
      aborted.map((item) => item.type),
      ['end'],
    );
    assert.equal((aborted[0] as { truncated?: string }).truncated, 'aborted');
    assert.throws(
      () => index.searchText({ pattern: '(a)\\1', regex: true }),
      (error: unknown) => error instanceof LoomError && error.code === 'validation_error',
    );
  });

  it('a restart and a second checkout parse nothing unchanged; a branch switched back parses nothing', async (t) => {
    const dataDir = tempDir(t, 'loom-code-data-');
    const first = tempDir(t, 'loom-code-repo-');
    writeFiles(first, { 'a.ts': 'export const a = 1;\n', 'b.ts': 'export const b = 2;\n', 'c.py': 'C = 3\n' });
    git(first, 'init', '-q', '-b', 'main');
    git(first, 'add', '.');
    git(first, 'commit', '-q', '-m', 'one');
    const index = open(t, first, dataDir);
    assert.equal((await index.refresh()).parsed, 3);
    await index.close();

    // A restart: nothing is even read.
    const again = open(t, first, dataDir);
    const restart = await again.refresh();
    assert.deepEqual([restart.parsed, restart.reused, restart.unchanged], [0, 0, 3]);

    // A branch with one file changed, then back: only the changed content is parsed, once.
    git(first, 'checkout', '-q', '-b', 'feature');
    fs.writeFileSync(path.join(first, 'b.ts'), 'export const b = 20;\nexport function more() {}\n');
    git(first, 'commit', '-q', '-am', 'two');
    const onFeature = await again.refresh();
    assert.equal(onFeature.parsed, 1);
    assert.ok((await again.findSymbols('more')).some((hit) => hit.name === 'more'));
    git(first, 'checkout', '-q', 'main');
    const back = await again.refresh();
    assert.equal(back.parsed, 0);
    assert.equal(back.reused, 1);
    assert.deepEqual(await again.findSymbols('more'), []);

    // A second checkout of the same repository: every file is read, none parsed.
    const second = path.join(tempDir(t, 'loom-code-clone-'), 'clone');
    git(path.dirname(second), 'clone', '-q', first, second);
    const clone = open(t, second, dataDir);
    const cloned = await clone.refresh();
    assert.deepEqual([cloned.parsed, cloned.reused], [0, 3]);
    assert.equal((await clone.findSymbols('a'))[0]!.path, 'a.ts');
  });

  it('answers a query that extends the one before (Ctrl+P, key by key) as a fresh one would, files added meanwhile too', async (t) => {
    const root = tempDir(t, 'loom-code-ws-');
    const names = ['src/userService.ts', 'src/user/view.ts', 'src/UserStore.ts', 'lib/used service.ts', 'docs/u-s-e-r.md', 'src/other.ts'];
    writeFiles(root, Object.fromEntries(names.map((name) => [name, 'export {};\n'])));
    const index = open(t, root, tempDir(t, 'loom-code-data-'));
    await index.refresh();
    // Each prefix of each query, typed in order, against the same query asked after one that shares no start.
    const fresh = async (query: string) => {
      await index.findFiles('#');
      return index.findFiles(query, { limit: 3 });
    };
    for (const query of ['userservice', 'user s', 'UserS', 'us v', 'use.ts']) {
      for (let length = 1; length <= query.length; length++) {
        const typed = await index.findFiles(query.slice(0, length), { limit: 3 });
        assert.deepEqual(typed, await fresh(query.slice(0, length)), query.slice(0, length));
        await index.findFiles(query.slice(0, length), { limit: 3 }); // the next key extends this one
      }
    }
    // A file added between two keys is found by the second.
    assert.deepEqual(await index.findFiles('userserv'), await fresh('userserv'));
    await index.findFiles('userserv');
    writeFiles(root, { 'src/userServer.ts': 'export {};\n' });
    await index.update(['src/userServer.ts']);
    assert.ok((await index.findFiles('userserve')).some((hit) => hit.path === 'src/userServer.ts'));
    // A save between two keys changes a content, not the list: the file is still found.
    writeFiles(root, { 'src/userService.ts': 'export const saved = 1;\n' });
    await index.update(['src/userService.ts']);
    assert.deepEqual(await index.findFiles('userservi'), await fresh('userservi'));
    assert.ok((await index.findFiles('userservi')).some((hit) => hit.path === 'src/userService.ts'));
    // A file removed between two keys is not found by the second.
    await index.findFiles('userse');
    fs.rmSync(path.join(root, 'src/userServer.ts'));
    await index.update(['src/userServer.ts']);
    assert.ok(!(await index.findFiles('userser')).some((hit) => hit.path === 'src/userServer.ts'));
    assert.deepEqual(await index.findFiles('userserv'), await fresh('userserv'));
  });

  it('updates single paths: a file changed, one removed, a folder that appeared, a .gitignore that changed', async (t) => {
    const root = tempDir(t, 'loom-code-ws-');
    writeFiles(root, PROJECT);
    const index = open(t, root, tempDir(t, 'loom-code-data-'));
    await index.refresh();
    fs.writeFileSync(path.join(root, 'src/server.ts'), 'export class HttpsServer {}\n');
    await index.update(['src/server.ts']);
    assert.deepEqual(
      (await index.findSymbols('server')).map((hit) => hit.name),
      ['HttpsServer'],
    );
    fs.rmSync(path.join(root, 'tools'), { recursive: true });
    await index.update(['tools']);
    assert.deepEqual(await index.findSymbols('buildall'), []);
    writeFiles(root, { 'lib/deep/util.go': 'package deep\nfunc Helper() {}\n', 'lib/deep/skip.log': 'x\n' });
    await index.update(['lib']);
    assert.equal((await index.findSymbols('helper'))[0]!.path, 'lib/deep/util.go');
    assert.deepEqual(await index.findFiles('skip.log'), []);
    // Paths the index never takes: ignored, a dependency folder, .git.
    writeFiles(root, { 'dist/late.js': 'function late() {}\n', 'node_modules/x/y.js': 'function dep() {}\n', '.git/HEAD': 'ref\n' });
    await index.update(['dist/late.js', 'node_modules/x/y.js', '.git/HEAD']);
    assert.deepEqual(await index.findSymbols('late'), []);
    assert.deepEqual(await index.findSymbols('dep'), []);
    // A .gitignore that changes: the next walk applies it.
    fs.writeFileSync(path.join(root, '.gitignore'), '*.log\nlib/\n');
    await index.update(['.gitignore']);
    await index.refresh();
    assert.deepEqual(await index.findSymbols('helper'), []);
    assert.ok((await index.findFiles('late')).some((hit) => hit.path === 'dist/late.js'));
  });

  it("the editor's view sees unsaved text; the disk's view (agents, the CLI) does not", async (t) => {
    const root = tempDir(t, 'loom-code-ws-');
    writeFiles(root, PROJECT);
    const index = open(t, root, tempDir(t, 'loom-code-data-'));
    await index.refresh();
    let dirty = true;
    index.trackUnsaved(() => dirty);
    await index.setUnsaved('src/server.ts', 'export class HttpServer {}\nexport function unsavedHelper() {}\n');
    assert.deepEqual(
      (await index.findSymbols('unsavedhelper', { view: 'editor' })).map((hit) => hit.path),
      ['src/server.ts'],
    );
    assert.deepEqual(await index.findSymbols('unsavedhelper'), []);
    assert.equal((await index.outline('src/server.ts', { view: 'editor' }))!.definitions.length, 2);
    const editorText = await collect(index, { pattern: 'unsavedHelper', view: 'editor' });
    assert.equal(editorText.filter((item) => item.type === 'match').length, 1);
    assert.equal((await collect(index, { pattern: 'unsavedHelper' })).filter((item) => item.type === 'match').length, 0);
    // Saved (or closed without saving): the unsaved text no longer counts.
    dirty = false;
    assert.deepEqual(await index.findSymbols('unsavedhelper', { view: 'editor' }), []);
  });

  it('reports progress while it builds, and the database is private to its owner', async (t) => {
    const root = tempDir(t, 'loom-code-ws-');
    writeFiles(root, PROJECT);
    const dataDir = tempDir(t, 'loom-code-data-');
    const index = open(t, root, dataDir);
    const phases: string[] = [];
    index.onProgress((progress) => phases.push(progress.phase));
    await index.refresh();
    assert.equal(phases[0], 'walking');
    assert.equal(phases.at(-1), 'done');
    if (process.platform !== 'win32') assert.equal(fs.statSync(path.join(dataDir, 'code-index.db')).mode & 0o777, 0o600);
  });

  it('rebuilds a database file that is not one (a cache, never a failure)', async (t) => {
    const root = tempDir(t, 'loom-code-ws-');
    writeFiles(root, PROJECT);
    const dataDir = tempDir(t, 'loom-code-data-');
    fs.writeFileSync(path.join(dataDir, 'code-index.db'), 'not a database at all, just text that is long enough to be read as a header'.repeat(100));
    const index = open(t, root, dataDir);
    assert.equal((await index.refresh()).parsed, 5);
  });
});
