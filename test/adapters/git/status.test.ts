import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { GitCliWorkspace } from '../../../src/adapters/git/git.ts';
import { rejectsWith, sandbox } from './helpers.ts';

describe('GitCliWorkspace.status', () => {
  it('lists modified, staged, renamed, deleted and untracked files with odd names', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, 'old name.txt'), 'rename me\n');
    box.write(path.join(repo, 'gone.txt'), 'delete me\n');
    box.git(repo, 'add', '-A');
    box.git(repo, 'commit', '-q', '-m', 'files');
    box.git(repo, 'mv', 'old name.txt', 'new name.txt');
    fs.rmSync(path.join(repo, 'gone.txt'));
    box.write(path.join(repo, 'README.md'), 'changed\n');
    box.write(path.join(repo, 'dossier été', 'fichier ü 📄.txt'), 'new\n');
    box.write(path.join(repo, '-rf.txt'), 'dash\n');
    box.write(path.join(repo, 'staged.txt'), 'staged\n');
    box.git(repo, 'add', 'staged.txt');

    const status = await box.workspace(repo).status();
    assert.equal(status.branch, 'main');
    assert.equal(status.detached, false);
    assert.match(status.head ?? '', /^[0-9a-f]{40}$/);
    assert.equal(status.upstream, null);
    assert.equal(status.merging, false);
    assert.equal(status.clean, false);
    const byPath = Object.fromEntries(status.files.map((f) => [f.path, f]));
    assert.deepEqual(Object.keys(byPath).sort(), ['-rf.txt', 'README.md', 'dossier été/fichier ü 📄.txt', 'gone.txt', 'new name.txt', 'staged.txt']);
    assert.deepEqual(byPath['new name.txt'], {
      path: 'new name.txt',
      index: 'R',
      workingTree: ' ',
      staged: true,
      conflicted: false,
      originalPath: 'old name.txt',
    });
    assert.equal(byPath['gone.txt']?.workingTree, 'D');
    assert.equal(byPath['README.md']?.workingTree, 'M');
    assert.equal(byPath['README.md']?.staged, false);
    assert.equal(byPath['staged.txt']?.index, 'A');
    assert.equal(byPath['dossier été/fichier ü 📄.txt']?.index, '?');
  });

  it('reports a clean repository, upstream and ahead/behind', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    const other = box.clone(bare, 'other');
    box.write(path.join(other, 'x.txt'), 'x\n');
    box.git(other, 'add', 'x.txt');
    box.git(other, 'commit', '-q', '-m', 'remote work');
    box.git(other, 'push', '-q');
    box.git(repo, 'fetch', '-q');
    box.write(path.join(repo, 'y.txt'), 'y\n');
    box.git(repo, 'add', 'y.txt');
    box.git(repo, 'commit', '-q', '-m', 'local work');

    const status = await box.workspace(repo).status();
    assert.equal(status.clean, true);
    assert.deepEqual(status.files, []);
    assert.equal(status.upstream, 'origin/main');
    assert.equal(status.ahead, 1);
    assert.equal(status.behind, 1);
  });

  it('handles an empty repository and a detached HEAD', async (t) => {
    const box = sandbox(t);
    const empty = box.repo('empty', { commit: false });
    box.write(path.join(empty, 'a.txt'), 'a\n');
    const fresh = await box.workspace(empty).status();
    assert.equal(fresh.branch, 'main');
    assert.equal(fresh.head, null);
    assert.deepEqual(
      fresh.files.map((f) => f.path),
      ['a.txt'],
    );

    const repo = box.repo();
    const sha = box.git(repo, 'rev-parse', 'HEAD');
    box.git(repo, 'checkout', '-q', '--detach');
    const detached = await box.workspace(repo).status();
    assert.equal(detached.branch, null);
    assert.equal(detached.detached, true);
    assert.equal(detached.head, sha);
  });

  it('shows only the workspace when it is a subfolder of the repository, with paths relative to it', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, 'app', 'src', 'a.ts'), 'a\n');
    box.write(path.join(repo, 'other', 'b.ts'), 'b\n');
    const status = await box.workspace(path.join(repo, 'app')).status();
    assert.deepEqual(
      status.files.map((f) => f.path),
      ['src/a.ts'],
    );
  });

  it('refuses a folder that is not a repository, a missing folder and no folder', async (t) => {
    const box = sandbox(t);
    const plain = path.join(box.dir, 'plain');
    fs.mkdirSync(plain);
    // GIT_CEILING_DIRECTORIES stops git from finding a repository above the sandbox.
    const env = { ...box.env, GIT_CEILING_DIRECTORIES: box.dir };
    await rejectsWith(box.workspace(plain, { env }).status(), 'not_a_repository');
    await rejectsWith(box.workspace(plain, { env }).branches(), 'not_a_repository');
    await rejectsWith(box.workspace(plain, { env }).commit({ message: 'x' }), 'not_a_repository');
    await rejectsWith(box.workspace(path.join(box.dir, 'missing')).status(), 'no_workspace');
    await rejectsWith(box.workspace('').status(), 'no_workspace');
    const bare = path.join(box.dir, 'bare.git');
    box.git(box.dir, 'init', '-q', '--bare', bare);
    await rejectsWith(box.workspace(bare).status(), 'not_a_repository');
    const repo = box.repo();
    await rejectsWith(box.workspace(path.join(repo, '.git')).status(), 'not_a_repository');
  });

  it('says so when git is not installed', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    await rejectsWith(box.workspace(repo, { gitPath: path.join(box.dir, 'no-such-git') }).status(), 'git_unavailable', /not installed/);
  });

  it('ignores GIT_DIR and GIT_INDEX_FILE inherited from the environment', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const elsewhere = box.repo('elsewhere');
    box.write(path.join(repo, 'mine.txt'), 'x\n');
    const env = { ...box.env, GIT_DIR: path.join(elsewhere, '.git'), GIT_INDEX_FILE: path.join(box.dir, 'index') };
    const status = await box.workspace(repo, { env }).status();
    assert.deepEqual(
      status.files.map((f) => f.path),
      ['mine.txt'],
    );
  });

  it('stops git when it prints more than the cap, and when it runs past the time limit', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    for (let i = 0; i < 50; i++) box.write(path.join(repo, `file-${i}.txt`), 'x');
    await rejectsWith(box.workspace(repo, { maxOutputBytes: 200 }).status(), 'git_failed', /more than 200 bytes/);

    // A git that never answers (a script standing in for the binary): only the time limit can
    // end the call, and git_timeout says it did.
    const slow = path.join(box.dir, 'slow-git');
    fs.writeFileSync(slow, '#!/bin/sh\nsleep 30\n', { mode: 0o755 });
    await rejectsWith(new GitCliWorkspace({ root: repo, env: box.env, gitPath: slow, timeoutMs: 300 }).status(), 'git_timeout');
  });
});

describe('GitCliWorkspace.branches', () => {
  it('lists local branches with upstreams and remote branches without origin/HEAD', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    box.git(repo, 'branch', 'feature/x');
    box.git(repo, 'fetch', '-q', 'origin');
    box.git(repo, 'remote', 'set-head', 'origin', 'main');
    const sha = box.git(repo, 'rev-parse', 'HEAD');
    const branches = await box.workspace(repo).branches();
    assert.equal(branches.current, 'main');
    assert.deepEqual(branches.branches, [
      { name: 'feature/x', current: false, upstream: null, head: sha },
      { name: 'main', current: true, upstream: 'origin/main', head: sha },
    ]);
    assert.deepEqual(branches.remotes, [{ name: 'origin/main', remote: 'origin', head: sha }]);
    assert.ok(bare);
  });

  it('names the unborn branch of an empty repository and null on a detached HEAD', async (t) => {
    const box = sandbox(t);
    const empty = box.repo('empty', { commit: false });
    assert.deepEqual(await box.workspace(empty).branches(), { current: 'main', branches: [], remotes: [] });
    const repo = box.repo();
    box.git(repo, 'checkout', '-q', '--detach');
    const detached = await box.workspace(repo).branches();
    assert.equal(detached.current, null);
    assert.equal(detached.branches[0]?.current, false);
  });
});
