// `--json` on every command, as a user runs it: `loom` found on the PATH (as `npm link` installs
// it), against a real `loom up --json` on a real git repository, with a catalog whose files a
// stand-in release host serves and an agent model scripted by a stand-in OpenAI server. Each
// command's stdout must parse as one JSON value (NDJSON for the streams), with nothing else on
// stdout and no escape codes. The table below must name every command `loom` has: a new one
// without its --json here (or in the test named for it) fails the first test.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { commandTree } from '../../src/cli/commands/completion.ts';
import { buildProgram } from '../../src/cli/main.ts';
import { calls, MATH, says } from '../core/agents/support.ts';
import { hasStackTrace, installedEnv, ROOT, runInstalled, startLoom, tempDir } from '../support/cli.ts';
import { startFakeOpenAi } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

/** Commands whose output is not an answer: a shell script, or a protocol on stdio. */
const NOT_JSON = new Set(['loom completion', 'loom help', 'loom mcp']);

/** Commands this file runs with --json otherwise than through json(): a server, a stream. */
const STARTED_HERE = new Set(['loom up', 'loom events tail']);

/** Commands whose --json another test runs, where what they need is set up: the file says which. */
const ELSEWHERE: Record<string, string> = {
  'loom hosted': 'test/cli/downloads-feedback.test.ts',
  'loom serve': 'test/cli/git-events.test.ts',
  'loom worker': 'test/cli/worker.test.ts',
  'loom login': 'test/cli/auth.test.ts',
  'loom whoami': 'test/cli/auth.test.ts',
  'loom composer start': 'test/cli/composer.test.ts',
  'loom composer status': 'test/cli/composer.test.ts',
  'loom composer cancel': 'test/cli/composer.test.ts',
  'loom composer watch': 'test/cli/composer.test.ts',
  'loom composer say': 'test/cli/composer.test.ts',
  'loom composer diff': 'test/cli/composer.test.ts',
  'loom composer apply': 'test/cli/composer.test.ts',
  'loom code index': 'test/cli/code.test.ts',
  'loom code search': 'test/cli/code.test.ts',
  'loom code symbols': 'test/cli/code.test.ts',
  'loom code files': 'test/cli/code.test.ts',
  'loom code locate': 'test/cli/code-tasks.test.ts',
  'loom code map': 'test/cli/code-tasks.test.ts',
  'loom code def': 'test/cli/code-servers.test.ts',
  'loom code refs': 'test/cli/code-servers.test.ts',
  'loom code hover': 'test/cli/code-servers.test.ts',
  'loom code diagnostics': 'test/cli/code-servers.test.ts',
  'loom code rename': 'test/cli/code-servers.test.ts',
  'loom git stage': 'test/cli/git-events.test.ts',
  'loom git unstage': 'test/cli/git-events.test.ts',
  'loom git branch': 'test/cli/git-events.test.ts',
  'loom git switch': 'test/cli/git-events.test.ts',
  'loom open': 'test/cli/serve-open.test.ts',
};

const BUILD = Buffer.from('a Loom build\n'.repeat(2000));
const MODEL = Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(4096, 1)]);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
}

/** A release host for the catalog's files: one build, one model. */
async function releaseHost(t: TestContext): Promise<string> {
  const files: Record<string, Buffer> = { '/loom-cli-linux-x64.tar.gz': BUILD, '/tiny.gguf': MODEL };
  const server = http.createServer((request, response) => {
    const bytes = files[request.url ?? ''];
    if (!bytes) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-length': bytes.length }).end(request.method === 'HEAD' ? undefined : bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('loom --json', () => {
  it('the table names every command that answers', () => {
    const leaves = commandTree(buildProgram())
      .filter((node) => node.subcommands.length === 0 && !NOT_JSON.has(node.path))
      .map((node) => node.path);
    const source = fs.readFileSync(new URL(import.meta.url), 'utf8');
    const here = leaves.filter((leaf) => !ELSEWHERE[leaf] && !STARTED_HERE.has(leaf));
    const missing = here.filter((leaf) => !source.includes(`json('${leaf.slice('loom '.length)}'`));
    assert.deepEqual(missing, [], 'commands whose --json this file never runs');
    for (const [leaf, file] of Object.entries(ELSEWHERE)) {
      assert.ok(leaves.includes(leaf), `${leaf} is no command`);
      const test = fs.readFileSync(path.join(ROOT, file), 'utf8');
      assert.ok(test.includes("'--json'"), `${file} runs ${leaf} --json`);
    }
  });

  it('every command prints JSON on stdout, run as the installed binary', async (t: TestContext) => {
    const home = tempDir(t);
    const workspace = path.join(home, 'ws');
    const remote = path.join(home, 'remote.git');
    fs.mkdirSync(path.join(workspace, 'src'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'src', 'math.ts'), MATH);
    git(home, 'init', '-q', '--bare', '--initial-branch=main', remote);
    git(workspace, 'init', '-q', '-b', 'main');
    git(workspace, 'config', 'user.name', 'Ada');
    git(workspace, 'config', 'user.email', 'ada@example.com');
    git(workspace, 'remote', 'add', 'origin', remote);
    git(workspace, 'add', '.');
    git(workspace, 'commit', '-q', '-m', 'First');

    const host = await releaseHost(t);
    const catalog = path.join(home, 'catalog.json');
    fs.writeFileSync(
      catalog,
      JSON.stringify({
        products: [
          {
            id: 'cli',
            name: 'Loom CLI',
            version: '9.9.9',
            assets: [
              { key: 'linux-x64', name: 'linux-x64', platform: 'linux', url: `${host}/loom-cli-linux-x64.tar.gz`, sha256: sha256(BUILD), size: BUILD.length },
            ],
          },
        ],
        models: [
          {
            name: 'Tiny-Coder',
            provider: 'Test',
            params: '1M',
            url: 'https://example.com/tiny',
            file: { url: `${host}/tiny.gguf`, size: MODEL.length, sha256: sha256(MODEL), quantization: 'Q8_0' },
          },
        ],
      }),
    );
    const fake = await startFakeOpenAi();
    t.after(() => fake.close());
    const configDir = path.join(home, 'config', 'loom');
    fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(
      path.join(configDir, 'settings.json'),
      JSON.stringify({ apiToken: 'loom_json_test_token_0123456789abcdef', completion: { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } } }),
      { mode: 0o600 },
    );

    const env = installedEnv(home, { LOOM_CATALOG: catalog, LOOM_HOSTED_PORT: '0', LOOM_LOCAL_PORT: '0', LOOM_WORKSPACE: workspace });
    const up = await startLoom(t, ['up', '--json'], env, 180_000, /"hosted":\{"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    const started = JSON.parse(
      up
        .stdout()
        .split('\n')
        .find((line) => line.startsWith('{"hosted"'))!,
    );
    assert.match(started.local.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    // The commands find the servers as they would on their default ports.
    env.LOOM_HOSTED_PORT = new URL(started.hosted.url).port;
    env.LOOM_LOCAL_PORT = new URL(started.local.url).port;
    env.LOOM_PUBLIC_URL = started.hosted.url;

    /** `loom COMMAND… ARGS… --json`: exit 0, and its stdout parsed (each line, for a stream). */
    async function json(command: string, ...args: string[]): Promise<any> {
      const words = command.split(' ');
      const result = await runInstalled([...words, ...args, '--json'], env);
      const what = `loom ${command} ${args.join(' ')} --json`;
      assert.equal(result.code, 0, `${what}: ${result.stderr}`);
      assert.doesNotMatch(result.stdout + result.stderr, /\x1b/, `${what}: an escape code`);
      assert.ok(!hasStackTrace(result.stderr), `${what}: ${result.stderr}`);
      try {
        return JSON.parse(result.stdout);
      } catch {
        return result.stdout
          .trimEnd()
          .split('\n')
          .map((line, i) => {
            try {
              return JSON.parse(line);
            } catch {
              assert.fail(`${what}: line ${i + 1} of stdout is not JSON: ${line}`);
            }
          });
      }
    }

    assert.match((await json('token')).token, /^loom_json_test_token/);
    assert.equal((await json('status')).local.running, true);
    assert.ok((await json('doctor')).checks.length > 5);
    assert.equal((await json('complete', `${path.join(workspace, 'src', 'math.ts')}:2:3`)).model, 'builtin');

    assert.equal((await json('models list'))[0].name, 'Tiny-Coder');
    assert.equal((await json('models pull', 'Tiny-Coder')).verified, true);
    assert.equal((await json('models rm', 'Tiny-Coder')).removed, true);
    assert.equal((await json('downloads list')).products[0].id, 'cli');
    const got = await json('downloads get', 'cli', 'linux-x64', '-o', path.join(home, 'loom-cli.tar.gz'));
    assert.deepEqual([got.verified, got.sha256], [true, sha256(BUILD)]);
    assert.equal((await json('feedback send', '--subject', 'Tab', '--message', 'Too eager', '--email', 'ada@example.com')).ok, true);

    assert.equal((await json('admin feedback list'))[0].subject, 'Tab');
    const client = await json('admin clients add', '--name', 'ci');
    assert.ok((await json('admin clients list')).some((c: { client_id: string }) => c.client_id === client.client_id));
    assert.equal((await json('admin clients remove', client.client_id)).client_id, client.client_id);
    assert.equal((await json('admin users add', 'ada')).login, 'ada');
    // Beside ada: `desktop`, the user of the window's composer sessions under loom up (docs/composer.md).
    assert.deepEqual((await json('admin users list')).map((user: { login: string }) => user.login).sort(), ['ada', 'desktop']);
    const key = await json('admin keys create', '--user', 'ada');
    assert.equal((await json('admin keys list'))[0].id, key.id);
    assert.equal((await json('admin keys revoke', key.id)).id, key.id);
    assert.equal((await json('admin workspaces add', 'app', '--repo', workspace)).name, 'app');
    assert.equal((await json('admin workspaces list'))[0].name, 'app');
    assert.equal((await json('admin workspaces rm', 'app')).removed, true);

    fake.chat.queue(calls(['edit_file', { path: 'src/math.ts', search: '  return a + b;\n', replace: '  return b + a;\n' }]), says('Swapped.'));
    const events = await json('agent run', 'Swap the operands of add', '--files', 'src/**', '--watch');
    const taskId = events[0].data.taskId;
    assert.deepEqual([events[0].type, events.at(-1).status], ['agent:start', 'completed']);
    assert.equal((await json('agent list'))[0].taskId, taskId);
    assert.equal((await json('agent status', taskId)).changes[0].file, 'src/math.ts');
    assert.ok((await json('agent steps', taskId)).length >= 2);
    assert.equal((await json('agent cancel', taskId)).status, 'completed', 'an ended task stays as it ended');
    assert.ok((await json('agent revert', taskId)).revertedAt);
    fake.chat.queue(says('Nothing more to do.'));
    const said = await json('agent say', taskId, 'Anything else?');
    assert.deepEqual([said[0].type, said.at(-1).status, said.at(-1).conversation.length], ['agent:message', 'completed', 2]);

    assert.equal((await json('extension new', 'hello-world')).command, 'helloWorld.hello');
    assert.equal((await json('extension trust', workspace)).trusted, true);
    assert.equal((await json('extension reload')).extensions[0].name, 'hello-world');
    assert.equal((await json('extension restart', 'hello-world')).state, 'active');
    assert.equal((await json('extension list')).extensions[0].state, 'active');
    assert.equal((await json('commands'))[0].name, 'helloWorld.hello');
    assert.deepEqual(await json('run-command', 'helloWorld.hello', 'Ada'), { greeted: 'Ada' });
    assert.equal((await json('extension untrust', workspace)).trusted, false);

    // The event stream, NDJSON, while a commit happens; Ctrl-C ends it with 0.
    const tail = spawn('loom', ['events', 'tail', '--json', '--type', 'git:'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const tailed = { stdout: '', stderr: '' };
    tail.stdout.setEncoding('utf8').on('data', (chunk: string) => (tailed.stdout += chunk));
    tail.stderr.setEncoding('utf8').on('data', (chunk: string) => (tailed.stderr += chunk));
    const tailExit = new Promise<number | null>((resolve) => tail.on('close', resolve));
    t.after(() => void tail.kill('SIGKILL'));
    await waitFor(() => tailed.stderr.includes('following events'), 60_000, 'loom events tail connected');

    fs.writeFileSync(path.join(workspace, 'b.txt'), 'b\n');
    assert.ok((await json('git status')).files.some((file: { path: string }) => file.path === 'b.txt'));
    const committed = await json('git commit', '-m', 'Add b', 'b.txt');
    assert.match(committed.commit, /^[0-9a-f]{40}$/);
    assert.equal((await json('git push')).upstreamSet, true);
    assert.equal((await json('git pull')).updated, false);

    await waitFor(() => tailed.stdout.includes('\n'), 60_000, 'the commit on the event stream');
    tail.kill('SIGINT');
    assert.equal(await tailExit, 0, tailed.stderr);
    const event = JSON.parse(tailed.stdout.split('\n')[0]!);
    assert.deepEqual([event.type, event.data.commit], ['git:commit', committed.commit]);

    assert.deepEqual(await json('logout'), { server: started.hosted.url, signedOut: false });
  });
});
