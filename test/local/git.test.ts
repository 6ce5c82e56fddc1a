// Git through the local API, with real repositories and a local bare remote.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import WebSocket from 'ws';
import { captureLog } from '../support/log-lines.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_SYSTEM: '/dev/null',
  GIT_AUTHOR_NAME: 'T',
  GIT_AUTHOR_EMAIL: 't@x',
  GIT_COMMITTER_NAME: 'T',
  GIT_COMMITTER_EMAIL: 't@x',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
}

function tempDir(t: TestContext, name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `loom-git-${name}-`));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A workspace cloned from a bare remote that has one commit, served by a local server. */
async function repoWithRemote(t: TestContext): Promise<{ local: TestLocal; remote: string; other: string }> {
  const remote = tempDir(t, 'remote');
  git(remote, 'init', '--bare', '--initial-branch=main');
  const seed = tempDir(t, 'seed');
  git(seed, 'clone', remote, '.');
  fs.writeFileSync(path.join(seed, 'README.md'), 'hello\n');
  git(seed, 'add', '.');
  git(seed, 'commit', '-m', 'first');
  git(seed, 'push', 'origin', 'HEAD:main');
  const workspace = tempDir(t, 'ws');
  git(workspace, 'clone', remote, '.');
  const local = await startTestLocal({ workspace });
  t.after(() => local.close());
  return { local, remote, other: seed };
}

describe('git through the local API', () => {
  it('reports status and branches', async (t) => {
    const { local } = await repoWithRemote(t);
    local.write('new file.txt', 'x\n');
    const status = await local.request('GET', '/api/git/status');
    assert.equal(status.status, 200);
    assert.equal(status.json.branch, 'main');
    assert.equal(status.json.clean, false);
    assert.deepEqual(
      status.json.files.map((f: { path: string }) => f.path),
      ['new file.txt'],
    );
    const branches = await local.request('GET', '/api/git/branches');
    assert.equal(branches.json.current, 'main');
    assert.ok(branches.json.remotes.some((r: { name: string }) => r.name === 'origin/main'));
  });

  it('commits all changes, emits git:commit, pushes, and pulls what others pushed', async (t) => {
    const { local, remote, other } = await repoWithRemote(t);
    const socket = new WebSocket(`ws://127.0.0.1:${local.port}/events`, { headers: { authorization: `Bearer ${local.token()}` } });
    const seen: any[] = [];
    socket.on('message', (data) => seen.push(JSON.parse(String(data))));
    await new Promise((resolve) => socket.once('open', resolve));
    t.after(() => socket.close());

    local.write('-rf.txt', 'not an option\n');
    const commit = await local.request('POST', '/api/git/commit', { message: 'Add a file\n\nbody' });
    assert.equal(commit.status, 200, commit.text);
    assert.equal(commit.json.summary, 'Add a file');
    assert.deepEqual(commit.json.files, ['-rf.txt']);
    await waitFor(() => seen.some((e) => e.type === 'git:commit'));
    const event = seen.find((e) => e.type === 'git:commit');
    assert.equal(event.data.commit, commit.json.commit);

    const pushed = await local.request('POST', '/api/git/push', {});
    assert.equal(pushed.status, 200, pushed.text);
    assert.equal(git(remote, 'rev-parse', 'main'), commit.json.commit);

    git(other, 'pull', 'origin', 'main');
    fs.writeFileSync(path.join(other, 'from-other.txt'), 'hi\n');
    git(other, 'add', '.');
    git(other, 'commit', '-m', 'from the other clone');
    git(other, 'push', 'origin', 'HEAD:main');
    const pulled = await local.request('POST', '/api/git/pull', {});
    assert.equal(pulled.status, 200, pulled.text);
    assert.equal(pulled.json.updated, true);
    assert.ok(fs.existsSync(path.join(local.workspace, 'from-other.txt')));
  });

  it('reports a conflicting pull as 409 GIT_CONFLICT naming the files', async (t) => {
    const { local, other } = await repoWithRemote(t);
    fs.writeFileSync(path.join(other, 'README.md'), 'theirs\n');
    git(other, 'commit', '-am', 'theirs');
    git(other, 'push', 'origin', 'HEAD:main');
    local.write('README.md', 'ours\n');
    assert.equal((await local.request('POST', '/api/git/commit', { message: 'ours' })).status, 200);
    const pulled = await local.request('POST', '/api/git/pull', {});
    assert.equal(pulled.status, 409);
    assert.equal(pulled.json.error.code, 'GIT_CONFLICT');
    assert.deepEqual(pulled.json.error.files, ['README.md']);
  });

  it('gives clear errors: nothing to commit, a missing remote, bad input', async (t) => {
    const { local } = await repoWithRemote(t);
    const nothing = await local.request('POST', '/api/git/commit', { message: 'empty' });
    assert.equal(nothing.status, 409);
    assert.equal(nothing.json.error.code, 'NOTHING_TO_COMMIT');
    const noRemote = await local.request('POST', '/api/git/push', { remote: 'upstream' });
    assert.equal(noRemote.status, 409);
    assert.equal(noRemote.json.error.code, 'NO_REMOTE');
    const option = await local.request('POST', '/api/git/push', { remote: 'origin', branch: '--upload-pack=touch /tmp/pwned' });
    assert.equal(option.status, 400);
    assert.equal(option.json.error.code, 'INVALID_REF');
    const outside = await local.request('POST', '/api/git/commit', { message: 'x', files: ['../outside'] });
    assert.equal(outside.status, 403);
    assert.equal(outside.json.error.code, 'FORBIDDEN_PATH');
    const noMessage = await local.request('POST', '/api/git/commit', { message: '' });
    assert.equal(noMessage.status, 400);
    // A name git cannot write as a file (`<name>.lock` past 255 bytes) is the input's fault, not git's.
    const branches = async () => (await local.request('GET', '/api/git/branches')).json;
    const before = await branches();
    const tooLong = await local.request('POST', '/api/git/branch', { name: 'x'.repeat(251) });
    assert.equal(tooLong.status, 400, tooLong.text);
    assert.equal(tooLong.json.error.code, 'INVALID_REF');
    assert.deepEqual(await branches(), before);
    const longest = await local.request('POST', '/api/git/branch', { name: 'x'.repeat(250) });
    assert.equal(longest.status, 200, longest.text);
  });

  it('refuses git in a workspace that is not a repository with 409 NOT_A_REPOSITORY', async (t) => {
    const local = await startTestLocal({ workspace: tempDir(t, 'plain') });
    t.after(() => local.close());
    for (const [method, route] of [
      ['GET', '/api/git/status'],
      ['GET', '/api/git/branches'],
      ['POST', '/api/git/pull'],
    ] as const) {
      const res = await local.request(method, route, method === 'POST' ? {} : undefined);
      assert.equal(res.status, 409, route);
      assert.equal(res.json.error.code, 'NOT_A_REPOSITORY');
    }
  });

  it('refuses to pull on a detached HEAD with 409 DETACHED_HEAD', async (t) => {
    const { local } = await repoWithRemote(t);
    git(local.workspace, 'checkout', '--detach');
    const res = await local.request('POST', '/api/git/pull', {});
    assert.equal(res.status, 409);
    assert.equal(res.json.error.code, 'DETACHED_HEAD');
  });
});

describe('a push or pull whose client goes away', () => {
  for (const action of ['push', 'pull'] as const) {
    it(`stops git when the client of a ${action} disconnects, and logs 499`, async (t) => {
      // A remote that accepts the connection and never says a word: git would wait for it
      // until its time limit.
      const silent = net.createServer();
      const connections: net.Socket[] = [];
      silent.on('connection', (socket) => connections.push(socket.resume()));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      t.after(() => {
        for (const socket of connections) socket.destroy();
        silent.close();
      });
      const workspace = tempDir(t, 'ws');
      git(workspace, 'init', '--initial-branch=main');
      fs.writeFileSync(path.join(workspace, 'README.md'), 'hello\n');
      git(workspace, 'add', '.');
      git(workspace, 'commit', '-m', 'first');
      git(workspace, 'remote', 'add', 'origin', `git://127.0.0.1:${(silent.address() as net.AddressInfo).port}/repo.git`);
      const log = captureLog();
      const local = await startTestLocal({ workspace, log });
      t.after(() => local.close());

      const request = http.request({
        host: '127.0.0.1',
        port: local.port,
        method: 'POST',
        path: `/api/git/${action}`,
        headers: { host: `127.0.0.1:${local.port}`, authorization: `Bearer ${local.token()}`, 'content-type': 'application/json' },
      });
      request.on('error', () => {});
      request.end('{}');
      await waitFor(() => connections.length === 1, undefined, 'git reaching the remote');
      request.destroy();

      await waitFor(() => connections[0]!.closed, undefined, 'git stopped');
      await waitFor(() => log.lines().some((line) => line.route === `/api/git/${action}` && line.status === 499), undefined, 'a 499 request line');
      assert.ok(!log.lines().some((line) => line.level === 50), 'no error logged');
      // The repository is free again.
      assert.equal((await local.request('GET', '/api/git/status')).status, 200);
    });
  }
});
