// A seeded property-based fuzz of every route the local server registers, generated from the
// routes' own schemas: valid and invalid input, paths that point at awkward things (folders,
// symlink loops, FIFOs, names too long, outside the workspace, .git), odd methods, spellings,
// headers and bodies, the wrong or no token, foreign Hosts and Origins. Every answer must be a
// 2xx or an error in the local envelope whose code has that status in the error table, never a
// 5xx; a refused request must leave the workspace's files, git's HEAD and index, and the open
// documents as they were. Replay a failure with LOOM_FUZZ_SEED=<seed> (printed on failure).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { localRoutes } from '../../src/contracts/local-routes.ts';
import { DEFAULT_LOCAL_LIMITS, type LocalLimits } from '../../src/local/rate-limit.ts';
import { ResponseChecker } from '../support/fuzz/check.ts';
import type { Identity } from '../support/fuzz/requests.ts';
import { fuzz, type Snapshot } from '../support/fuzz/run.ts';
import { indexEntries } from '../support/git-index.ts';
import { awkwardText } from '../support/fuzz/schema.ts';
import { targetsFromOpenApi } from '../support/fuzz/targets.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';

const TOKEN = 'loom_fuzz_token_0123456789abcdefghijklmnop';
/** Distinct limits, so that an answer shows which budget it was counted against. */
const LIMITS: LocalLimits = { aiComplete: 50_000, default: 100_000 };
const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_SYSTEM: '/dev/null',
  GIT_AUTHOR_NAME: 'T',
  GIT_AUTHOR_EMAIL: 't@x',
  GIT_COMMITTER_NAME: 'T',
  GIT_COMMITTER_EMAIL: 't@x',
};

/**
 * A sandbox holding the workspace (a git repository with a few files, a folder, a symlink loop,
 * a symlink out of the workspace, a FIFO, a .loom folder) and, beside it, what must stay
 * unreachable through it.
 */
function makeSandbox(): { sandbox: string; workspace: string } {
  const sandbox = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-fuzz-')));
  const workspace = path.join(sandbox, 'ws');
  const files: Record<string, string> = {
    'README.md': '# Fuzz\n',
    'src/a.ts': 'export const a = 1;\nexport function add(x: number, y: number) {\n  return x + y;\n}\n',
    'src/b.py': 'def b():\n    return 2\n',
    'docs/ünïcödé.md': 'Ünïcödé 🧵\n',
    '.loom/extension.js': 'module.exports = {};\n',
  };
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  fs.mkdirSync(path.join(sandbox, 'outside'));
  fs.writeFileSync(path.join(sandbox, 'outside', 'secret.txt'), 'not for the workspace\n');
  fs.mkdirSync(path.join(workspace, 'empty-dir'));
  fs.symlinkSync('loop', path.join(workspace, 'loop'));
  fs.symlinkSync(path.join(sandbox, 'outside'), path.join(workspace, 'outside'));
  execFileSync('mkfifo', [path.join(workspace, 'pipe')]);
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: workspace, env: GIT_ENV });
  execFileSync('git', ['add', 'README.md', 'src', 'docs'], { cwd: workspace, env: GIT_ENV });
  execFileSync('git', ['commit', '-q', '-m', 'first'], { cwd: workspace, env: GIT_ENV });
  return { sandbox, workspace };
}

/** Paths that mean something in the sandbox's workspace, or try to leave it. */
const PATHS = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'README.md',
      'src/a.ts',
      'src/b.py',
      'src/new.ts',
      'docs/ünïcödé.md',
      'docs/new file.md',
      'empty-dir',
      'empty-dir/',
      'loop',
      'loop/x',
      'outside',
      'outside/secret.txt',
      'outside/new.txt',
      'pipe',
      '.git/config',
      '.git/hooks/pre-commit',
      '.GIT/HEAD',
      'src/.git/config',
      '.loom/extension.js',
      '.Loom/new.js',
      '../outside/secret.txt',
      '../escape.txt',
      '/etc/passwd',
      'src/../README.md',
      'src/a.ts/',
      'src/a.ts/x',
      './README.md',
      'src\\a.ts',
      ' README.md',
      'x'.repeat(300),
      `${'d/'.repeat(2100)}f`,
      'README.md\u0000.png',
    ),
  },
  { weight: 1, arbitrary: awkwardText.filter((text) => text.length > 0) },
);

const REFS = fc.constantFrom(
  'origin',
  'main',
  'HEAD',
  'refs/heads/main',
  '-rf',
  '--upload-pack=touch /tmp/pwned',
  'a..b',
  'x y',
  '@{-1}',
  'ext::sh -c touch% /tmp/pwned',
  'ü',
  'main.lock',
  'a/',
  '.hidden',
);

describe('local API fuzz', () => {
  let local: TestLocal;
  let sandbox: string;
  let workspace: string;

  before(async () => {
    ({ sandbox, workspace } = makeSandbox());
    local = await startTestLocal({ workspace, settings: { apiToken: TOKEN, rateLimits: LIMITS } });
  });
  after(async () => {
    await local?.close();
    if (sandbox) fs.rmSync(sandbox, { recursive: true, force: true });
  });

  /** Files of the sandbox (by content), git's HEAD, index and config, the open documents. */
  async function snapshot(): Promise<Snapshot> {
    const parts: Snapshot = {};
    const walk = (dir: string) => {
      for (const name of fs.readdirSync(dir).sort()) {
        const full = path.join(dir, name);
        const relative = path.relative(sandbox, full);
        if (relative === path.join('ws', '.git')) continue;
        const stat = fs.lstatSync(full);
        if (stat.isSymbolicLink()) parts[relative] = `symlink ${fs.readlinkSync(full)}`;
        else if (stat.isDirectory()) {
          parts[relative] = 'folder';
          walk(full);
        } else if (stat.isFile()) parts[relative] = `file ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')} ${stat.mode.toString(8)}`;
        else parts[relative] = 'special';
      }
    };
    walk(sandbox);
    const git = path.join(workspace, '.git');
    const read = (file: string) =>
      fs.existsSync(path.join(git, file))
        ? createHash('sha256')
            .update(fs.readFileSync(path.join(git, file)))
            .digest('hex')
        : 'none';
    // Only the line's end: trim() would also take a name's own invisible characters (a byte-order mark).
    const head = fs.readFileSync(path.join(git, 'HEAD'), 'utf8').replace(/\n$/, '');
    const ref = /^ref: (.+)$/.exec(head)?.[1];
    parts['git HEAD'] =
      `${head} ${ref && fs.existsSync(path.join(git, ref)) ? fs.readFileSync(path.join(git, ref), 'utf8').trim() : ''} ${read('packed-refs')}`;
    parts['git index'] = indexEntries(path.join(git, 'index'));
    parts['git config'] = read('config');
    parts['open documents'] = (await local.request('GET', '/api/editor/documents')).text;
    parts['active document'] = (await local.request('GET', '/api/editor/file')).text;
    return parts;
  }

  async function fuzzLocal(options: { malformed: boolean; runs: number }) {
    const host = `127.0.0.1:${local.port}`;
    const identities: Identity[] = [
      { label: 'the token', headers: [] },
      { label: 'the token, lower-case bearer', headers: [['Authorization', `bearer ${TOKEN}`]] },
      { label: 'Host localhost', headers: [['Host', `localhost:${local.port}`]] },
      { label: 'Host [::1]', headers: [['Host', `[::1]:${local.port}`]] },
      { label: "the editor's Origin", headers: [['Origin', `http://127.0.0.1:${local.port}`]] },
      { label: 'no token', headers: [], omits: ['Authorization'] },
      { label: 'a wrong token', headers: [['Authorization', `Bearer ${TOKEN.slice(0, -1)}X`]] },
      { label: 'the token twice', headers: [['Authorization', `Bearer ${TOKEN} ${TOKEN}`]] },
      { label: 'a foreign Origin', headers: [['Origin', 'https://evil.example']] },
      { label: 'Origin null', headers: [['Origin', 'null']] },
      { label: 'another Host', headers: [['Host', 'evil.example']] },
      { label: 'our Host on another port', headers: [['Host', `127.0.0.1:${local.port + 1}`]] },
      { label: 'an empty Host', headers: [['Host', '']] },
    ];
    // Every route of the table, as the server's own OpenAPI document describes it.
    const targets = targetsFromOpenApi((await local.request('GET', '/api/openapi.json')).json);
    assert.deepEqual(targets.map((target) => target.id).sort(), localRoutes.map((route) => route.id).sort());
    const result = await fuzz({
      name: options.malformed ? 'local (malformed HTTP)' : 'local',
      port: local.port,
      targets,
      server: {
        baseHeaders: [
          ['Host', host],
          ['Authorization', `Bearer ${TOKEN}`],
        ],
        prefixes: [''],
        identities,
        bodyLimit: 20 * 1024 * 1024,
        hints: {
          path: PATHS,
          filePath: PATHS,
          files: PATHS,
          remote: REFS,
          branch: REFS,
          language: fc.constantFrom('typescript', 'python', 'c#', 'objective-c++', 'plaintext'),
          model: fc.constantFrom('builtin', 'gguf', 'openai', 'gpt-9'),
        },
      },
      checker: new ResponseChecker({
        api: 'local',
        rateLimitOf: (route) => LIMITS[(route.limit ?? 'default') as keyof LocalLimits] ?? DEFAULT_LOCAL_LIMITS.default,
        // Language servers are off in the sandbox (tsserver and pyright for each of 400 requests on a
        // shared machine): hover, diagnostics and rename answer that, documented, whatever they are
        // sent. test/local/code-language-routes.test.ts sends them hostile input with real servers.
        unavailable: new Set(['LANGUAGE_SERVER_UNAVAILABLE']),
      }),
      snapshot,
      runs: options.runs,
      malformed: options.malformed,
    });
    assert.equal((await local.request('GET', '/api/health')).status, 200, 'still serving');
    return result;
  }

  it('answers every request with a 2xx or an error in the envelope, and a refusal changes nothing', async (t) => {
    const result = await fuzzLocal({ malformed: false, runs: 400 });
    t.diagnostic(`seed ${result.seed}, ${result.runs} requests, answers ${JSON.stringify(Object.fromEntries(result.statuses))}`);
    assert.ok(result.statuses.size > 3, 'a spread of answers');
  });

  it('answers malformed HTTP in the envelope too, and changes nothing', async (t) => {
    const result = await fuzzLocal({ malformed: true, runs: 60 });
    t.diagnostic(`seed ${result.seed}, ${result.runs} requests, answers ${JSON.stringify(Object.fromEntries(result.statuses))}`);
  });
});
