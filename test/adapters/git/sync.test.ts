import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { GitConflictError } from '../../../src/core/git/index.ts';
import { rejectsWith, sandbox, type Sandbox } from './helpers.ts';

/** Commits `file` with `text` in `repo` (with the test identity). */
function commitFile(box: Sandbox, repo: string, file: string, text: string, message = `edit ${file}`): string {
  box.write(path.join(repo, file), text);
  box.git(repo, 'add', '--', file);
  box.git(repo, 'commit', '-q', '-m', message);
  return box.git(repo, 'rev-parse', 'HEAD');
}

describe('GitCliWorkspace.push', () => {
  it('pushes to the upstream, then says when there is nothing new', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    const sha = commitFile(box, repo, 'a.txt', 'a\n');
    const git = box.workspace(repo);

    const pushed = await git.push();
    assert.equal(pushed.remote, 'origin');
    assert.equal(pushed.branch, 'main');
    assert.equal(pushed.remoteBranch, 'main');
    assert.equal(pushed.head, sha);
    assert.equal(pushed.updated, true);
    assert.equal(pushed.upstreamSet, false);
    assert.match(pushed.summary, /^Pushed main to origin\/main \([0-9a-f]+\.\.[0-9a-f]+\)\.$/);
    assert.equal(box.git(bare, 'rev-parse', 'main'), sha);

    const again = await git.push({ remote: 'origin', branch: 'main' });
    assert.equal(again.updated, false);
    assert.equal(again.summary, 'origin/main is already up to date.');
  });

  it('creates the remote branch and sets the upstream of a new branch', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    box.git(repo, 'checkout', '-q', '-b', 'feature/x');
    const sha = commitFile(box, repo, 'f.txt', 'f\n');
    const pushed = await box.workspace(repo).push();
    assert.equal(pushed.upstreamSet, true);
    assert.equal(pushed.remoteBranch, 'feature/x');
    assert.match(pushed.summary, /^Created origin\/feature\/x from feature\/x \([0-9a-f]{7}\)\. feature\/x now tracks origin\/feature\/x\.$/);
    assert.equal(box.git(bare, 'rev-parse', 'feature/x'), sha);
    assert.equal(box.git(repo, 'rev-parse', '--abbrev-ref', 'feature/x@{upstream}'), 'origin/feature/x');
    assert.equal((await box.workspace(repo).status()).upstream, 'origin/feature/x');
  });

  it('reports a rejected (non-fast-forward) push as push_rejected with a hint to pull', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    const other = box.clone(bare, 'other');
    commitFile(box, other, 'theirs.txt', 'theirs\n');
    box.git(other, 'push', '-q');
    commitFile(box, repo, 'mine.txt', 'mine\n');
    const error = await rejectsWith(box.workspace(repo).push(), 'push_rejected', /origin has commits that main does not have/);
    assert.match(error.hint ?? '', /Pull/);
  });

  it('reports a branch refused by a hook on the remote', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    fs.writeFileSync(path.join(bare, 'hooks', 'pre-receive'), '#!/bin/sh\necho "main is protected" >&2\nexit 1\n', { mode: 0o755 });
    commitFile(box, repo, 'a.txt', 'a\n');
    await rejectsWith(box.workspace(repo).push(), 'push_rejected', /refused the push: pre-receive hook declined/);
  });

  it('refuses names that would be options, unknown remotes and branches, a detached HEAD, an empty branch', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.remote(repo);
    const git = box.workspace(repo);
    const marker = path.join(box.dir, 'pwned');
    await rejectsWith(git.push({ remote: `--upload-pack=touch ${marker}` }), 'invalid_ref');
    await rejectsWith(git.push({ remote: '--receive-pack=evil' }), 'invalid_ref');
    await rejectsWith(git.push({ branch: '--upload-pack=evil' }), 'invalid_ref');
    await rejectsWith(git.push({ branch: 'main:refs/heads/other' }), 'invalid_ref');
    await rejectsWith(git.push({ remote: '/tmp/elsewhere' }), 'invalid_ref');
    await rejectsWith(git.pull({ remote: '--upload-pack=evil' }), 'invalid_ref');
    await rejectsWith(git.pull({ branch: '--upload-pack=evil' }), 'invalid_ref');
    assert.equal(fs.existsSync(marker), false);

    await rejectsWith(git.push({ remote: 'nope' }), 'no_remote', /no remote named nope/);
    await rejectsWith(git.pull({ remote: 'nope' }), 'no_remote');
    await rejectsWith(git.push({ branch: 'no-such-branch' }), 'unknown_branch', /no local branch no-such-branch/);
    await rejectsWith(git.pull({ branch: 'no-such-branch' }), 'unknown_branch', /origin has no branch no-such-branch/);

    const lonely = box.repo('lonely');
    await rejectsWith(box.workspace(lonely).push(), 'no_remote', /no upstream/);

    box.git(repo, 'checkout', '-q', '--detach');
    await rejectsWith(git.push(), 'detached_head');
    await rejectsWith(git.pull(), 'detached_head');
    // Naming the branch pushes it even from a detached HEAD.
    assert.equal((await git.push({ branch: 'main' })).branch, 'main');

    const empty = box.repo('empty', { commit: false });
    const emptyBare = path.join(box.dir, 'empty.git');
    box.git(box.dir, 'init', '-q', '--bare', '-b', 'main', emptyBare);
    box.git(empty, 'remote', 'add', 'origin', emptyBare);
    await rejectsWith(box.workspace(empty).push(), 'unknown_branch', /no commit yet/);
  });

  it('reports an unreachable remote and refuses the ext:: transport', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.git(repo, 'remote', 'add', 'gone', 'file:///nonexistent/repo.git');
    const marker = path.join(box.dir, 'ext-ran');
    box.git(repo, 'remote', 'add', 'evil', `ext::sh -c touch% ${marker}`);
    // Even a user configuration that allows ext is overridden.
    box.git(repo, 'config', 'protocol.ext.allow', 'always');
    const git = box.workspace(repo);
    await rejectsWith(git.push({ remote: 'gone' }), 'remote_unavailable', /gone could not be reached/);
    await rejectsWith(git.pull({ remote: 'gone' }), 'remote_unavailable');
    await rejectsWith(git.push({ remote: 'evil' }), 'protocol_not_allowed', /ext/);
    await rejectsWith(git.pull({ remote: 'evil' }), 'protocol_not_allowed');
    assert.equal(fs.existsSync(marker), false);
  });

  it('never prompts for credentials', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    // A local HTTP server that always asks for a password.
    const http = await import('node:http');
    const server = http.createServer((_req, res) => {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    const port = (server.address() as { port: number }).port;
    box.git(repo, 'remote', 'add', 'origin', `http://127.0.0.1:${port}/repo.git`);
    // An askpass that leaves a mark and then hangs: had git run it, the mark would be there
    // (and the pull would end at the time limit, not as remote_auth_failed).
    const asked = path.join(box.dir, 'askpass-was-run');
    const env = { ...box.env, GIT_ASKPASS: path.join(box.dir, 'askpass-that-hangs'), SSH_ASKPASS: '/bin/false' };
    fs.writeFileSync(path.join(box.dir, 'askpass-that-hangs'), `#!/bin/sh\ntouch '${asked}'\nsleep 30\n`, { mode: 0o755 });
    await rejectsWith(box.workspace(repo, { env }).pull(), 'remote_auth_failed', /credentials/);
    assert.equal(fs.existsSync(asked), false, 'the askpass was never run');
  });

  it('gives up on a remote that never answers', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const net = await import('node:net');
    const sockets = new Set<import('node:net').Socket>();
    const server = net.createServer((socket) => sockets.add(socket)); // Accepts, then silence.
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      for (const socket of sockets) socket.destroy();
      server.close();
    });
    const port = (server.address() as { port: number }).port;
    box.git(repo, 'remote', 'add', 'origin', `http://127.0.0.1:${port}/repo.git`);
    // The server never answers: only the time limit can end the push.
    await rejectsWith(box.workspace(repo, { longTimeoutMs: 500 }).push(), 'remote_unavailable', /did not answer within/);
  });
});

describe('GitCliWorkspace.pull', () => {
  it('fast-forwards, then says it is up to date', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    const other = box.clone(bare, 'other');
    commitFile(box, other, 'a.txt', 'a\n');
    const sha = commitFile(box, other, 'b.txt', 'b\n');
    box.git(other, 'push', '-q');
    const before = box.git(repo, 'rev-parse', 'HEAD');
    const git = box.workspace(repo);

    const pulled = await git.pull();
    assert.deepEqual(pulled, {
      remote: 'origin',
      branch: 'main',
      head: sha,
      previousHead: before,
      updated: true,
      merged: false,
      commits: 2,
      summary: 'Fast-forwarded main to origin/main: 2 new commits.',
    });
    assert.equal(fs.readFileSync(path.join(repo, 'b.txt'), 'utf8'), 'b\n');
    const again = await git.pull({ remote: 'origin', branch: 'main' });
    assert.equal(again.updated, false);
    assert.equal(again.commits, 0);
    assert.equal(again.summary, 'main is already up to date with origin/main.');
  });

  it('merges diverged branches without conflicts, with the fallback identity', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    const other = box.clone(bare, 'other');
    commitFile(box, other, 'theirs.txt', 'theirs\n');
    box.git(other, 'push', '-q');
    commitFile(box, repo, 'mine.txt', 'mine\n');
    const pulled = await box.workspace(repo).pull();
    assert.equal(pulled.updated, true);
    assert.equal(pulled.merged, true);
    assert.equal(pulled.commits, 2);
    assert.match(pulled.summary, /^Merged origin\/main into main: 2 new commits\.$/);
    assert.equal(box.git(repo, 'log', '-1', '--format=%P').split(' ').length, 2);
    assert.equal(box.git(repo, 'log', '-1', '--format=%cn'), 'Loom');
    // And the merge can be pushed.
    assert.equal((await box.workspace(repo).push()).updated, true);
  });

  it('stops on a real conflict, leaves the merge for the user, and commit concludes it', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    const other = box.clone(bare, 'other');
    commitFile(box, other, 'README.md', 'theirs\n');
    commitFile(box, other, 'both new.txt', 'theirs\n');
    box.git(other, 'push', '-q');
    commitFile(box, repo, 'README.md', 'mine\n');
    commitFile(box, repo, 'both new.txt', 'mine\n');
    const git = box.workspace(repo);

    const error = await rejectsWith(git.pull(), 'git_conflict', /conflicts in 2 files: README\.md, both new\.txt/);
    assert.ok(error instanceof GitConflictError);
    assert.deepEqual(error.files.sort(), ['README.md', 'both new.txt']);
    const status = await git.status();
    assert.equal(status.merging, true);
    assert.deepEqual(
      status.files
        .filter((f) => f.conflicted)
        .map((f) => [f.path, f.index, f.workingTree])
        .sort(),
      [
        ['README.md', 'U', 'U'],
        ['both new.txt', 'A', 'A'],
      ],
    );

    await rejectsWith(git.pull(), 'merge_in_progress');
    await rejectsWith(git.push(), 'push_rejected');
    await rejectsWith(git.commit({ message: 'merge' }), 'git_conflict', /conflict markers/);

    box.write(path.join(repo, 'README.md'), 'mine and theirs\n');
    box.write(path.join(repo, 'both new.txt'), 'mine and theirs\n');
    const merge = await git.commit({ message: 'Merge origin/main' });
    assert.equal(merge.merge, true);
    assert.deepEqual(merge.files.sort(), ['README.md', 'both new.txt']);
    assert.equal((await git.status()).merging, false);
    assert.equal((await git.push()).updated, true);
  });

  it('can abort a conflicted merge', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    const other = box.clone(bare, 'other');
    commitFile(box, other, 'README.md', 'theirs\n');
    box.git(other, 'push', '-q');
    const mine = commitFile(box, repo, 'README.md', 'mine\n');
    const git = box.workspace(repo);
    await rejectsWith(git.pull(), 'git_conflict');
    assert.deepEqual(await git.abortMerge(), { aborted: true, head: mine });
    assert.deepEqual(await git.abortMerge(), { aborted: false, head: mine });
    const status = await git.status();
    assert.equal(status.merging, false);
    assert.equal(status.clean, true);
  });

  it('refuses to overwrite uncommitted changes', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    const other = box.clone(bare, 'other');
    commitFile(box, other, 'README.md', 'theirs\n');
    box.git(other, 'push', '-q');
    box.write(path.join(repo, 'README.md'), 'unsaved work\n');
    await rejectsWith(box.workspace(repo).pull(), 'uncommitted_changes', /README\.md/);
    assert.equal(fs.readFileSync(path.join(repo, 'README.md'), 'utf8'), 'unsaved work\n');
  });

  it('pulls a named branch from a named remote into a branch without upstream, and into an empty repository', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    const other = box.clone(bare, 'other');
    box.git(other, 'checkout', '-q', '-b', 'dev');
    const dev = commitFile(box, other, 'dev.txt', 'dev\n');
    box.git(other, 'push', '-q', 'origin', 'dev');

    box.git(repo, 'checkout', '-q', '-b', 'local');
    const pulled = await box.workspace(repo).pull({ remote: 'origin', branch: 'dev' });
    assert.equal(pulled.branch, 'dev');
    assert.equal(pulled.head, dev);

    const empty = box.repo('empty', { commit: false });
    box.git(empty, 'remote', 'add', 'origin', bare);
    const first = await box.workspace(empty).pull({ branch: 'main' });
    assert.equal(first.previousHead, null);
    assert.equal(first.updated, true);
    assert.equal(first.head, box.git(bare, 'rev-parse', 'main'));
  });

  it('reports unrelated histories', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const bare = box.remote(repo);
    const stranger = box.repo('stranger', { commit: false });
    commitFile(box, stranger, 'other.txt', 'another project\n');
    box.git(stranger, 'remote', 'add', 'origin', bare);
    await rejectsWith(box.workspace(stranger).pull(), 'unrelated_histories');
  });
});
