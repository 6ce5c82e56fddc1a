// The spec's composer request on `npm start` (`loom up`), as a user makes it: started the
// production way in a git repository, with no workspace registered. Without a model the request
// is 503 with a hint naming where the one model setting goes (by role: this is the hosted API);
// once settings.json names the model agents use, docs/composer.md's example runs as written — the
// request answers 201 on the workspace folder, the session completes, and `loom composer apply`
// writes its edit into the folder.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { systemClock } from '../../src/core/clock.ts';
import { createIdentity } from '../../src/core/identity/index.ts';
import { MutableServiceUrls } from '../../src/core/urls.ts';
import { openStore } from '../../src/store/index.ts';
import { installedEnv, LOCAL_READY, ROOT, startLoom, tempDir, unusedPort, type RunningLoom } from '../support/cli.ts';
import { startFakeOpenAi } from '../support/openai-fake.ts';
import { waitFor, WAIT_LIMIT_MS } from '../support/wait.ts';

const TOKEN = 'loom_up_composer_token_0123456789abcdef';
const EXAMPLE_MARK = '<!-- example: composer on npm start -->';

/** The ```sh block of docs/composer.md after EXAMPLE_MARK, and what its `# →` comments say it shows. */
function composerExample(): { script: string; shows: string[] } {
  const lines = fs.readFileSync(path.join(ROOT, 'docs', 'composer.md'), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.trim() === EXAMPLE_MARK);
  assert.ok(start >= 0, `docs/composer.md has no ${EXAMPLE_MARK}`);
  assert.equal(lines[start + 1], '```sh');
  const body = lines.slice(start + 2, lines.indexOf('```', start + 2));
  return { script: body.join('\n'), shows: body.flatMap((line) => /(?:^|\s)# → (.+)$/.exec(line)?.[1]?.trim() ?? []) };
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('composer on npm start (loom up)', () => {
  it("answers the spec's {prompt, files} on the workspace folder with the model agents use, and docs/composer.md's example runs as written", async (t) => {
    const fake = await startFakeOpenAi();
    t.after(() => fake.close());
    const home = tempDir(t, 'loom-up-composer-');
    const workspace = path.join(home, 'app');
    fs.mkdirSync(path.join(workspace, 'src'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'src', 'add.ts'), 'export function add(a: number, b: number) {\n  return a - b;\n}\n');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', ...args], { cwd: workspace, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'add');

    const settingsFile = path.join(home, 'config', 'loom', 'settings.json');
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    fs.writeFileSync(settingsFile, JSON.stringify({ apiToken: TOKEN }), { mode: 0o600 });
    // Ports of its own, handed to the CLI too, as the documentation examples run (test/cli/doc-examples.test.ts).
    const installed = installedEnv(home, { LOOM_LOG_LEVEL: 'warn' });
    let started: { loom: RunningLoom; env: NodeJS.ProcessEnv; hosted: string; local: string } | undefined;
    for (let attempt = 1; !started; attempt++) {
      const [hosted, local] = [String(await unusedPort()), String(await unusedPort())];
      const env = { ...installed, LOOM_HOSTED_PORT: hosted, LOOM_LOCAL_PORT: local };
      try {
        started = { loom: await startLoom(t, ['up', '--workspace', workspace], env), env, hosted, local };
      } catch (error) {
        // Another process may take a port between unusedPort() and the start.
        if (attempt === 3 || !/EADDRINUSE/.test((error as Error).message)) throw error;
      }
    }
    const { loom, env } = started;
    await waitFor(() => LOCAL_READY.test(loom.stdout()), WAIT_LIMIT_MS, 'the local API line');
    const localUrl = LOCAL_READY.exec(loom.stdout())![1]!;

    // A key of another user than the example's, made in the data dir the server uses.
    const store = await openStore({ dataDir: path.join(home, 'data', 'loom') });
    t.after(() => store.close());
    const identity = await createIdentity(store, { urls: new MutableServiceUrls(loom.url), providers: [], clock: systemClock });
    const probe = await identity.users.signIn({
      provider: 'test',
      subject: 'probe',
      login: 'probe',
      name: 'Probe',
      email: 'probe@example.com',
      emailVerified: true,
    });
    const { key } = await identity.apiKeys.create(probe.id, { name: 'probe', expiresInDays: 1 });
    const request = () =>
      fetch(`${loom.url}/api/v1/composer/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ prompt: 'Fix the sign in add', files: ['src/**'] }),
      });

    // No model yet: refused before anything is stored, the hint saying which key goes in which file.
    const refused = await request();
    const body = (await refused.json()) as { error: string; hint: string };
    assert.equal(refused.status, 503, JSON.stringify(body));
    assert.equal(body.error, 'model_unavailable');
    assert.match(
      body.hint,
      /openai\.baseUrl is "completion": \{"openai": \{"baseUrl": …\}\} in the desktop app's settings\.json \(applies at once\), or "openai": \{"baseUrl": …\} in the server's config file, or LOOM_OPENAI_BASE_URL/,
    );
    assert.ok(!body.hint.includes(home), `the hosted API names no folder of the server: ${body.hint}`);

    // The model agents use (settings.json's completion keys), written while Loom runs.
    fs.writeFileSync(settingsFile, JSON.stringify({ apiToken: TOKEN, completion: { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } } }), {
      mode: 0o600,
    });
    // Applied when the desktop app completes with it (both servers hear the same change).
    await waitFor(
      async () =>
        (
          await fetch(`${localUrl}/api/ai/complete`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
            body: JSON.stringify({ prompt: 'const x = ', language: 'typescript', model: 'openai' }),
          })
        ).status === 200,
      WAIT_LIMIT_MS,
      'settings.json applied',
    );

    fake.chat.queue(
      {
        kind: 'tools',
        calls: [{ id: 'call_1', name: 'edit_file', arguments: JSON.stringify({ path: 'src/add.ts', search: '  return a - b;', replace: '  return a + b;' }) }],
      },
      { kind: 'text', text: 'Fixed the sign.' },
      // The follow-up (loom composer say).
      {
        kind: 'tools',
        calls: [
          {
            id: 'call_2',
            name: 'create_file',
            arguments: JSON.stringify({ path: 'src/sub.ts', content: 'export const sub = (a: number, b: number) => a - b;\n' }),
          },
        ],
      },
      { kind: 'text', text: 'Added sub.' },
    );
    const example = composerExample();
    const ran = await bash(example.script.replaceAll(':8080', `:${started.hosted}`).replaceAll(':27432', `:${started.local}`), workspace, env);
    assert.equal(ran.code, 0, `stdout: ${ran.stdout}\nstderr: ${ran.stderr}`);
    for (const shown of example.shows) assert.ok(ran.stdout.includes(shown), `the example shows ${JSON.stringify(shown)}:\n${ran.stdout}\n${ran.stderr}`);
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'add.ts'), 'utf8'), 'export function add(a: number, b: number) {\n  return a + b;\n}\n');
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'sub.ts'), 'utf8'), 'export const sub = (a: number, b: number) => a - b;\n');
    // Nothing was registered: the folder is the default in memory only.
    assert.deepEqual(await store.composerWorkspaces.list(), []);
  });
});
