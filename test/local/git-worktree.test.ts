// Git's working-tree routes through the local API, with real repositories and a bare remote on
// disk: a file's diff against HEAD, staging, making and switching branches, push and pull with
// their progress on the event stream, and their failures in words. Hostile input is a 4xx
// that never reaches git.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import WebSocket from 'ws';
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
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `loom-gitwt-${name}-`));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A workspace cloned from a bare remote with one commit (README.md, notes.txt), and a second clone that pushes too. */
async function repoWithRemote(t: TestContext): Promise<{ local: TestLocal; workspace: string; remote: string; other: string }> {
  const remote = tempDir(t, 'remote');
  git(remote, 'init', '--bare', '--initial-branch=main');
  const other = tempDir(t, 'other');
  git(other, 'clone', remote, '.');
  fs.writeFileSync(path.join(other, 'README.md'), 'hello\nworld\n');
  fs.writeFileSync(path.join(other, 'notes.txt'), 'one\n');
  git(other, 'add', '.');
  git(other, 'commit', '-m', 'first');
  git(other, 'push', 'origin', 'HEAD:main');
  const workspace = tempDir(t, 'ws');
  git(workspace, 'clone', remote, '.');
  const local = await startTestLocal({ workspace });
  t.after(() => local.close());
  return { local, workspace, remote, other };
}

/** The event stream's messages of one type, as they come. */
async function watch(t: TestContext, local: TestLocal, type: string): Promise<any[]> {
  const socket = new WebSocket(`ws://127.0.0.1:${local.port}/events`, { headers: { authorization: `Bearer ${local.token()}` } });
  const seen: any[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    if (message.type === type) seen.push(message.data);
  });
  await new Promise((resolve) => socket.once('open', resolve));
  t.after(() => socket.close());
  return seen;
}

describe('git diff against HEAD', () => {
  it('answers both sides of a changed, an added, a deleted and a binary file', async (t) => {
    const { local, workspace } = await repoWithRemote(t);
    local.write('README.md', 'hello\nthere\n');
    local.write('added.ts', 'export {};\n');
    fs.rmSync(path.join(workspace, 'notes.txt'));
    fs.writeFileSync(path.join(workspace, 'image.bin'), Buffer.from([1, 0, 2, 3]));

    const changed = await local.request('GET', '/api/git/diff?path=README.md');
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.json.head.text, 'hello\nworld\n');
    assert.equal(changed.json.workingTree.text, 'hello\nthere\n');
    assert.equal(changed.json.originalPath, null);

    const added = await local.request('GET', '/api/git/diff?path=added.ts');
    assert.equal(added.json.head.exists, false);
    assert.equal(added.json.workingTree.text, 'export {};\n');

    const deleted = await local.request('GET', '/api/git/diff?path=notes.txt');
    assert.equal(deleted.json.head.text, 'one\n');
    assert.equal(deleted.json.workingTree.exists, false);

    const binary = await local.request('GET', '/api/git/diff?path=image.bin');
    assert.deepEqual(binary.json.workingTree, { exists: true, binary: true, tooLarge: false, size: 4, text: null });
  });

  it('says a side larger than 1 MiB is too large, and shows a staged rename from where HEAD has it', async (t) => {
    const { local, workspace } = await repoWithRemote(t);
    local.write('big.txt', 'x'.repeat(1024 * 1024 + 1));
    const big = await local.request('GET', '/api/git/diff?path=big.txt');
    assert.equal(big.json.workingTree.tooLarge, true);
    assert.equal(big.json.workingTree.text, null);

    git(workspace, 'mv', 'notes.txt', 'renamed.txt');
    const renamed = await local.request('GET', '/api/git/diff?path=renamed.txt');
    assert.equal(renamed.json.originalPath, 'notes.txt');
    assert.equal(renamed.json.head.text, 'one\n');
    assert.equal(renamed.json.workingTree.text, 'one\n');
  });

  it('refuses paths outside the workspace or in .git, and a missing path, with a 4xx', async (t) => {
    const { local } = await repoWithRemote(t);
    for (const bad of ['../outside', '/etc/passwd', '.git/config', '.GIT/HEAD']) {
      const answer = await local.request('GET', `/api/git/diff?path=${encodeURIComponent(bad)}`);
      assert.equal(answer.status, 403, `${bad}: ${answer.text}`);
      assert.equal(answer.json.error.code, 'FORBIDDEN_PATH');
    }
    assert.equal((await local.request('GET', '/api/git/diff')).status, 400);
    const root = await local.request('GET', '/api/git/diff?path=.');
    assert.ok(root.status >= 400 && root.status < 500, root.text);
  });
});

describe('staging', () => {
  it('stages and unstages one file, then all of them', async (t) => {
    const { local, workspace } = await repoWithRemote(t);
    local.write('README.md', 'changed\n');
    local.write('--upload-pack=touch x', 'a file named like an option\n');

    const staged = await local.request('POST', '/api/git/stage', { files: ['README.md'] });
    assert.equal(staged.status, 200, staged.text);
    const state = (json: any, file: string) => json.files.find((f: { path: string }) => f.path === file);
    assert.equal(state(staged.json, 'README.md').staged, true);
    assert.equal(state(staged.json, '--upload-pack=touch x').staged, false);

    const all = await local.request('POST', '/api/git/stage');
    assert.equal(all.status, 200, all.text);
    assert.equal(state(all.json, '--upload-pack=touch x').index, 'A');

    const one = await local.request('POST', '/api/git/unstage', { files: ['README.md'] });
    assert.equal(state(one.json, 'README.md').staged, false);
    assert.equal(state(one.json, 'README.md').workingTree, 'M');
    assert.equal(state(one.json, '--upload-pack=touch x').staged, true);

    const none = await local.request('POST', '/api/git/unstage', {});
    assert.ok(none.json.files.every((f: { staged: boolean }) => !f.staged));
    assert.equal(fs.existsSync(path.join(workspace, 'x')), false);
  });

  it('refuses to stage outside the workspace, in .git, or an empty list', async (t) => {
    const { local } = await repoWithRemote(t);
    assert.equal((await local.request('POST', '/api/git/stage', { files: ['../x'] })).status, 403);
    assert.equal((await local.request('POST', '/api/git/stage', { files: ['.git/config'] })).status, 403);
    assert.equal((await local.request('POST', '/api/git/unstage', { files: [] })).status, 400);
    assert.equal((await local.request('POST', '/api/git/stage', { files: ['nothing-here'] })).status, 400);
  });
});

describe('branches', () => {
  it('makes a branch and switches to it, switches back, and makes one without switching', async (t) => {
    const { local, workspace } = await repoWithRemote(t);
    const made = await local.request('POST', '/api/git/branch', { name: 'feature/x' });
    assert.equal(made.status, 200, made.text);
    assert.equal(made.json.current, 'feature/x');
    assert.equal(made.json.switched, true);
    assert.equal(git(workspace, 'branch', '--show-current'), 'feature/x');

    const back = await local.request('POST', '/api/git/switch', { branch: 'main' });
    assert.equal(back.status, 200, back.text);
    assert.match(back.json.summary, /^Switched to main/);
    const again = await local.request('POST', '/api/git/switch', { branch: 'main' });
    assert.equal(again.json.switched, false);

    const quiet = await local.request('POST', '/api/git/branch', { name: 'later', from: 'origin/main', switch: false });
    assert.equal(quiet.status, 200, quiet.text);
    assert.equal(quiet.json.current, 'main');
    assert.equal(git(workspace, 'rev-parse', '--abbrev-ref', 'later@{upstream}'), 'origin/main');

    const exists = await local.request('POST', '/api/git/branch', { name: 'later' });
    assert.equal(exists.status, 409);
    assert.equal(exists.json.error.code, 'BRANCH_EXISTS');
    const unknown = await local.request('POST', '/api/git/switch', { branch: 'nowhere' });
    assert.equal(unknown.status, 404);
  });

  it('refuses a switch that would overwrite local changes, in git’s words, and changes nothing', async (t) => {
    const { local, workspace } = await repoWithRemote(t);
    await local.request('POST', '/api/git/branch', { name: 'other' });
    local.write('README.md', 'on other\n');
    git(workspace, 'commit', '-am', 'other');
    await local.request('POST', '/api/git/switch', { branch: 'main' });
    local.write('README.md', 'unsaved work\n');

    const refused = await local.request('POST', '/api/git/switch', { branch: 'other' });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.json.error.code, 'UNCOMMITTED_CHANGES');
    assert.match(refused.json.error.message, /README\.md/);
    assert.match(refused.json.error.message, /would be overwritten by checkout/);
    assert.equal(git(workspace, 'branch', '--show-current'), 'main');
    assert.equal(fs.readFileSync(path.join(workspace, 'README.md'), 'utf8'), 'unsaved work\n');
  });

  it('refuses option-looking and revision-looking names before git sees them', async (t) => {
    const { local, workspace } = await repoWithRemote(t);
    const before = git(workspace, 'for-each-ref');
    for (const name of ['--upload-pack=touch pwned', '-b', 'a..b', 'x@{1}', 'HEAD', 'a b', 'x~1', 'refs/../x', '.hidden', 'x.lock']) {
      for (const [route, body] of [
        ['/api/git/branch', { name }],
        ['/api/git/branch', { name: 'fine', from: name }],
        ['/api/git/switch', { branch: name }],
      ] as const) {
        const answer = await local.request('POST', route, body);
        assert.equal(answer.status, 400, `${route} ${JSON.stringify(body)}: ${answer.text}`);
      }
    }
    assert.equal(git(workspace, 'for-each-ref'), before);
    assert.equal(fs.existsSync(path.join(workspace, 'pwned')), false);
  });
});

describe('push and pull with progress', () => {
  it('reports push progress as git:progress events, then a rejected push in words', async (t) => {
    const { local, workspace, other } = await repoWithRemote(t);
    const progress = await watch(t, local, 'git:progress');
    // Enough to pack that git reports its phases.
    for (let i = 0; i < 20; i++) local.write(`data/${i}.txt`, `${i}\n`.repeat(1000 + i));
    await local.request('POST', '/api/git/branch', { name: 'topic' });
    assert.equal((await local.request('POST', '/api/git/commit', { message: 'data' })).status, 200);
    const pushed = await local.request('POST', '/api/git/push', {});
    assert.equal(pushed.status, 200, pushed.text);
    assert.equal(pushed.json.upstreamSet, true);
    await waitFor(() => progress.some((p) => p.operation === 'push' && p.phase === 'Writing objects'), undefined, 'push progress');
    for (const p of progress) {
      assert.equal(p.operation, 'push');
      assert.equal(typeof p.text, 'string');
    }

    // Someone else pushes to topic first: ours is rejected, with what to do.
    git(other, 'fetch', 'origin');
    git(other, 'checkout', '-b', 'topic', 'origin/topic');
    fs.writeFileSync(path.join(other, 'theirs.txt'), 'theirs\n');
    git(other, 'add', '.');
    git(other, 'commit', '-m', 'theirs');
    git(other, 'push', 'origin', 'topic');
    local.write('mine.txt', 'mine\n');
    await local.request('POST', '/api/git/commit', { message: 'mine' });
    const rejected = await local.request('POST', '/api/git/push', {});
    assert.equal(rejected.status, 409, rejected.text);
    assert.equal(rejected.json.error.code, 'PUSH_REJECTED');
    assert.match(`${rejected.json.error.message} ${rejected.json.error.hint ?? ''}`, /[Pp]ull first/);

    const pulled = await local.request('POST', '/api/git/pull', {});
    assert.equal(pulled.status, 200, pulled.text);
    assert.equal(pulled.json.merged, true);
    await waitFor(() => progress.some((p) => p.operation === 'pull'), undefined, 'pull progress');
    assert.equal(git(workspace, 'status', '--porcelain'), '');
  });

  it('says what to do when a branch has no upstream to pull from', async (t) => {
    const { local } = await repoWithRemote(t);
    await local.request('POST', '/api/git/branch', { name: 'fresh' });
    const answer = await local.request('POST', '/api/git/pull', {});
    assert.equal(answer.status, 404, answer.text);
    assert.match(answer.json.error.hint ?? answer.json.error.message, /push it first/);
  });
});
