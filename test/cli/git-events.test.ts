// `loom git` and `loom events tail` against a real `loom serve --json` on a real repository: the
// commands as a user runs them, their --json answers parsed, the commit seen on the event stream.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { it, type TestContext } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { cleanEnv, ROOT, runLoom, startLoom, tempDir } from '../support/cli.ts';
import { waitFor } from '../support/wait.ts';

const SERVE_JSON_READY = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
}

it('loom git status, stage, unstage, branch, switch, commit, push, pull and loom events tail on a running loom serve', async (t: TestContext) => {
  const home = tempDir(t);
  const workspace = path.join(home, 'workspace');
  const remote = path.join(home, 'remote.git');
  const configDir = path.join(home, 'config');
  fs.mkdirSync(workspace);
  git(home, 'init', '-q', '--bare', '--initial-branch=main', remote);
  git(workspace, 'init', '-q', '-b', 'main');
  git(workspace, 'config', 'user.name', 'Ada');
  git(workspace, 'config', 'user.email', 'ada@example.com');
  git(workspace, 'remote', 'add', 'origin', remote);
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'a\n');
  git(workspace, 'add', 'a.txt');
  git(workspace, 'commit', '-q', '-m', 'First');

  const env = cleanEnv(home);
  const server = await startLoom(t, ['serve', '--json', '--workspace', workspace, '--config-dir', configDir, '--port', '0'], env, 120_000, SERVE_JSON_READY);
  // The line with the URLs: log lines (JSON too) may come before or after it.
  const started = JSON.parse(
    server
      .stdout()
      .split('\n')
      .find((line) => line.startsWith('{"local"'))!,
  );
  assert.equal(started.local.workspace, fs.realpathSync(workspace));
  assert.match(started.local.token, /^loom_/);
  const port = new URL(server.url).port;
  const at = ['--port', port, '--config-dir', configDir];

  // The event stream, as a user leaves it running in another terminal.
  const tail = spawn(process.execPath, [path.join(ROOT, 'bin', 'loom.js'), 'events', 'tail', '--json', '--type', 'git:', ...at], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let events = '';
  let notes = '';
  tail.stdout.setEncoding('utf8').on('data', (chunk: string) => (events += chunk));
  tail.stderr.setEncoding('utf8').on('data', (chunk: string) => (notes += chunk));
  const tailEnded = new Promise<number | null>((resolve) => tail.on('close', (code) => resolve(code)));
  t.after(() => {
    if (tail.exitCode === null) tail.kill('SIGKILL');
  });
  await waitFor(() => notes.includes('following events'), 60_000, 'the event stream to open');

  fs.writeFileSync(path.join(workspace, 'b.txt'), 'b\n');
  const status = await runLoom(['git', 'status', '--json', ...at], env);
  assert.equal(status.code, 0, status.stderr);
  const files = JSON.parse(status.stdout).files as { path: string }[];
  assert.deepEqual(
    files.map((file) => file.path),
    ['b.txt'],
  );

  const staged = await runLoom(['git', 'stage', 'b.txt', ...at], env);
  assert.equal(staged.code, 0, staged.stderr);
  assert.match(staged.stdout, /Staged:\n {2}b\.txt/);
  const unstaged = await runLoom(['git', 'unstage', ...at], env);
  assert.match(unstaged.stdout, /Nothing is staged/);

  const commit = await runLoom(['git', 'commit', '-m', 'Add b', '--json', ...at], env);
  assert.equal(commit.code, 0, commit.stderr);
  const committed = JSON.parse(commit.stdout);
  assert.deepEqual(committed.files, ['b.txt']);
  assert.equal(committed.summary, 'Add b');
  assert.equal(git(workspace, 'log', '-1', '--format=%s').trim(), 'Add b');

  await waitFor(() => events.includes('git:commit'), 30_000, 'the git:commit event');
  const event = JSON.parse(events.trim().split('\n')[0]!);
  assert.equal(event.type, 'git:commit');
  assert.equal(event.data.commit, committed.commit);
  tail.kill('SIGINT');
  assert.equal(await tailEnded, 0, notes);

  const clean = await runLoom(['git', 'status', ...at], env);
  assert.match(clean.stdout, /Nothing to commit/);
  const nothing = await runLoom(['git', 'commit', '-m', 'Again', ...at], env);
  assert.equal(nothing.code, EXIT.failure);
  assert.match(nothing.stderr, /^loom: .*nothing to commit/i);

  // After `--`, an option-looking name reaches the server, which refuses it before git runs.
  const option = await runLoom(['git', 'branch', ...at, '--', '--upload-pack=touch pwned'], env);
  assert.equal(option.code, EXIT.failure);
  assert.match(option.stderr, /not a valid branch name/);
  const made = await runLoom(['git', 'branch', 'side', ...at], env);
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /^Created side and switched to it/);
  const back = await runLoom(['git', 'switch', 'main', ...at], env);
  assert.match(back.stdout, /^Switched to main/);

  const push = await runLoom(['git', 'push', '--json', ...at], env);
  assert.equal(push.code, 0, push.stderr);
  assert.equal(JSON.parse(push.stdout).updated, true);
  assert.equal(git(remote, 'rev-parse', 'main').trim(), committed.commit);
  const pull = await runLoom(['git', 'pull', ...at], env);
  assert.equal(pull.code, 0, pull.stderr);
  assert.match(pull.stdout, /up to date/i);
});

it('loom events tail says so and exits 3 when the server stops under it', async (t: TestContext) => {
  const home = tempDir(t);
  const workspace = path.join(home, 'workspace');
  const configDir = path.join(home, 'config');
  fs.mkdirSync(workspace);
  const env = cleanEnv(home);
  const server = await startLoom(t, ['serve', '--json', '--workspace', workspace, '--config-dir', configDir, '--port', '0'], env, 120_000, SERVE_JSON_READY);
  const tail = spawn(process.execPath, [path.join(ROOT, 'bin', 'loom.js'), 'events', 'tail', '--port', new URL(server.url).port, '--config-dir', configDir], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let notes = '';
  tail.stderr.setEncoding('utf8').on('data', (chunk: string) => (notes += chunk));
  const tailEnded = new Promise<number | null>((resolve) => tail.on('close', (code) => resolve(code)));
  t.after(() => {
    if (tail.exitCode === null) tail.kill('SIGKILL');
  });
  await waitFor(() => notes.includes('following events'), 60_000, 'the event stream to open');

  server.child.kill('SIGTERM');
  assert.equal(await tailEnded, EXIT.unreachable, notes);
  assert.match(notes, /^loom: the event stream at http:\/\/127\.0\.0\.1:\d+\/events ended \(1001 server shutting down\): the server stopped\./m);
});
