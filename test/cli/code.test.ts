// `loom code index|search|symbols|files`, run as a user runs them: without a server, on a
// workspace folder, the index kept in the data dir; --json everywhere (NDJSON for search).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { cleanEnv, hasStackTrace, runLoom, tempDir } from '../support/cli.ts';

function workspace(t: TestContext): { dir: string; args: string[]; env: NodeJS.ProcessEnv } {
  const home = tempDir(t);
  const dir = path.join(home, 'project');
  const files: Record<string, string> = {
    'src/config.ts': '/** Reads the config. */\nexport function parseConfigFile(path: string) {\n  return path;\n}\n',
    'src/server.ts': "import { parseConfigFile } from './config';\nexport class HttpServer {\n  start() { return parseConfigFile('a'); }\n}\n",
    'scripts/deploy.py': 'def deploy_all(hosts):\n    """Deploys."""\n    return hosts\n',
    'logo.png': '\u0000PNG',
    '.gitignore': 'build/\n',
    'build/out.js': 'function ignored() {}\n',
  };
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return { dir, args: ['--workspace', dir, '--data-dir', path.join(home, 'data')], env: cleanEnv(home) };
}

describe('loom code', () => {
  it('index builds the index, then finds it current; --json says what it did and what it left out', async (t) => {
    const { args, env } = workspace(t);
    const first = await runLoom(['code', 'index', ...args, '--json'], env);
    assert.equal(first.code, EXIT.ok, first.stderr);
    const built = JSON.parse(first.stdout);
    assert.equal(built.build.files, 5);
    // The PNG is binary: read, not parsed.
    assert.equal(built.build.parsed, 4);
    assert.equal(built.status.state, 'ready');
    assert.deepEqual(built.skipped, [{ path: 'logo.png', reason: 'binary' }]);
    const again = JSON.parse((await runLoom(['code', 'index', ...args, '--json'], env)).stdout);
    assert.deepEqual([again.build.parsed, again.build.unchanged], [0, 5]);
    const text = await runLoom(['code', 'index', ...args], env);
    assert.match(text.stdout, /^Indexed .*project: 5 files in [\d.]+ s \(0 parsed, 0 from the cache, 5 unchanged, 0 removed; 0 B read\)\./);
    assert.match(text.stdout, /logo\.png +binary/);
  });

  it('symbols, files and search answer from an index built on the spot', async (t) => {
    const { dir, args, env } = workspace(t);
    const symbols = await runLoom(['code', 'symbols', 'parsecfg', ...args, '--json'], env);
    assert.equal(symbols.code, EXIT.ok, symbols.stderr);
    const [hit] = JSON.parse(symbols.stdout);
    assert.deepEqual(
      { name: hit.name, kind: hit.kind, path: hit.path, line: hit.nameRange.start.line, doc: hit.doc },
      { name: 'parseConfigFile', kind: 'function', path: 'src/config.ts', line: 2, doc: 'Reads the config.' },
    );
    const outline = JSON.parse((await runLoom(['code', 'symbols', '--file', 'src/server.ts', ...args, '--json'], env)).stdout);
    assert.deepEqual(
      outline.map((item: { name: string }) => item.name),
      ['HttpServer', 'start'],
    );
    const methods = JSON.parse((await runLoom(['code', 'symbols', 's', '--kind', 'method', ...args, '--json'], env)).stdout);
    assert.deepEqual(
      methods.map((item: { name: string }) => item.name),
      ['start'],
    );
    const files = JSON.parse((await runLoom(['code', 'files', 'deploy', ...args, '--json'], env)).stdout);
    assert.equal(files[0].path, 'scripts/deploy.py');
    const search = await runLoom(['code', 'search', 'parseConfigFile', ...args, '--json'], env);
    const lines = search.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map((line) => (line.type === 'match' ? `${line.path}:${line.line}:${line.matches[0].column}` : line.type)),
      ['src/config.ts:2:17', 'src/server.ts:1:10', 'src/server.ts:3:20', 'end'],
    );
    const regex = await runLoom(['code', 'search', 'def \\w+_all', '--regex', '-g', '*.py', ...args], env);
    assert.equal(regex.stdout, 'scripts/deploy.py:1:1:def deploy_all(hosts):\n');
    // A change on disk is seen by the next command.
    fs.writeFileSync(path.join(dir, 'src/server.ts'), 'export class HttpsServer {}\n');
    const changed = JSON.parse((await runLoom(['code', 'symbols', 'server', ...args, '--json'], env)).stdout);
    assert.deepEqual(
      changed.map((item: { name: string }) => item.name),
      ['HttpsServer'],
    );
  });

  it('refuses a bad pattern or a missing query as a usage error, in one line, before building anything', async (t) => {
    const { args, env } = workspace(t);
    for (const argv of [
      ['code', 'search', '(?=x)', '--regex', ...args],
      ['code', 'search', 'x', '--case-sensitive', '--ignore-case', ...args],
      ['code', 'symbols', ...args],
      ['code', 'symbols', 'x', '--kind', 'gadget', ...args],
      ['code', 'files', 'x', '--limit', '0', ...args],
    ]) {
      const result = await runLoom(argv, env);
      assert.equal(result.code, EXIT.usage, `loom ${argv.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /^loom: [^\n]+\n$/);
      assert.ok(!hasStackTrace(result.stderr));
    }
    const missing = await runLoom(['code', 'index', '--workspace', path.join(tempDir(t), 'nowhere'), '--json'], env);
    assert.equal(missing.code, EXIT.usage);
    assert.match(missing.stderr, /is not a folder/);
  });
});
