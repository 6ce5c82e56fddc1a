import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { GitConflictError } from '../../../src/core/git/index.ts';
import { rejectsWith, sandbox } from './helpers.ts';

describe('GitCliWorkspace.commit', () => {
  it('commits every change, untracked files included, with a fallback identity', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, 'README.md'), 'changed\n');
    box.write(path.join(repo, 'new file ü.txt'), 'new\n');
    box.write(path.join(repo, '-rf.txt'), 'not an option\n');
    box.write(path.join(repo, '--amend'), 'not an option either\n');

    const result = await box.workspace(repo).commit({ message: '\nAdd files\n\nWith a body.\n' });
    assert.match(result.commit, /^[0-9a-f]{40}$/);
    assert.equal(result.commit, box.git(repo, 'rev-parse', 'HEAD'));
    assert.equal(result.branch, 'main');
    assert.equal(result.summary, 'Add files');
    assert.equal(result.merge, false);
    assert.deepEqual(result.files.sort(), ['--amend', '-rf.txt', 'README.md', 'new file ü.txt']);
    assert.equal(box.git(repo, 'log', '-1', '--format=%an <%ae>|%cn <%ce>'), 'Loom <loom@localhost>|Loom <loom@localhost>');
    assert.equal(box.git(repo, 'log', '-1', '--format=%B'), 'Add files\n\nWith a body.');
    assert.equal(box.git(repo, 'status', '--porcelain'), '');
    // The fallback is passed per command, never written to the repository's configuration.
    assert.throws(() => box.git(repo, 'config', 'user.name'));
  });

  it('uses the configured identity when there is one', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.git(repo, 'config', 'user.name', 'Ada Lovelace');
    box.git(repo, 'config', 'user.email', 'ada@example.com');
    box.write(path.join(repo, 'a.txt'), 'a\n');
    await box.workspace(repo).commit({ message: 'mine' });
    assert.equal(box.git(repo, 'log', '-1', '--format=%an <%ae>'), 'Ada Lovelace <ada@example.com>');
  });

  it('commits only the listed files, leaving other staged and unstaged changes alone', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, 'tracked.txt'), 'v1\n');
    box.write(path.join(repo, 'doomed.txt'), 'bye\n');
    box.git(repo, 'add', '-A');
    box.git(repo, 'commit', '-q', '-m', 'base');
    box.write(path.join(repo, 'tracked.txt'), 'v2\n');
    fs.rmSync(path.join(repo, 'doomed.txt'));
    box.write(path.join(repo, 'new dir', '-rf.txt'), 'dash\n');
    box.write(path.join(repo, '*'), 'a star, not a glob\n');
    box.write(path.join(repo, 'staged-elsewhere.txt'), 'staged\n');
    box.git(repo, 'add', 'staged-elsewhere.txt');
    box.write(path.join(repo, 'README.md'), 'unstaged edit\n');

    const result = await box
      .workspace(repo)
      .commit({ message: 'Some', files: ['tracked.txt', 'doomed.txt', 'new dir/-rf.txt', '*', path.join(repo, 'tracked.txt')] });
    assert.deepEqual(result.files.sort(), ['*', 'doomed.txt', 'new dir/-rf.txt', 'tracked.txt']);
    assert.equal(box.git(repo, 'show', 'HEAD:new dir/-rf.txt'), 'dash');
    // Still staged but not committed; the unstaged edit untouched.
    const left = box.git(repo, 'status', '--porcelain');
    assert.match(left, /^A  staged-elsewhere\.txt$/m);
    assert.match(left, /^ M README\.md$/m);
  });

  it('commits a folder as everything under it', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, 'src', 'a.ts'), 'a\n');
    box.write(path.join(repo, 'src', 'deep', 'b.ts'), 'b\n');
    box.write(path.join(repo, 'other.ts'), 'o\n');
    const result = await box.workspace(repo).commit({ message: 'src', files: ['src'] });
    assert.deepEqual(result.files.sort(), ['src/a.ts', 'src/deep/b.ts']);
    assert.match(box.git(repo, 'status', '--porcelain'), /^\?\? other\.ts$/m);
  });

  it('makes the first commit of an empty repository', async (t) => {
    const box = sandbox(t);
    const repo = box.repo('empty', { commit: false });
    box.write(path.join(repo, 'a.txt'), 'a\n');
    const result = await box.workspace(repo).commit({ message: 'first' });
    assert.deepEqual(result.files, ['a.txt']);
    assert.equal(result.branch, 'main');
    const repo2 = box.repo('empty2', { commit: false });
    box.write(path.join(repo2, 'b.txt'), 'b\n');
    box.write(path.join(repo2, 'c.txt'), 'c\n');
    const partial = await box.workspace(repo2).commit({ message: 'first', files: ['b.txt'] });
    assert.deepEqual(partial.files, ['b.txt']);
  });

  it('commits on a detached HEAD, with branch null', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.git(repo, 'checkout', '-q', '--detach');
    box.write(path.join(repo, 'a.txt'), 'a\n');
    const result = await box.workspace(repo).commit({ message: 'detached' });
    assert.equal(result.branch, null);
    assert.equal(result.commit, box.git(repo, 'rev-parse', 'HEAD'));
  });

  it('commits only the workspace when it is a subfolder of the repository', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, 'app', 'a.ts'), 'a\n');
    box.write(path.join(repo, 'outside.ts'), 'o\n');
    box.write(path.join(repo, 'staged-outside.ts'), 's\n');
    box.git(repo, 'add', 'staged-outside.ts');
    const result = await box.workspace(path.join(repo, 'app')).commit({ message: 'app only' });
    assert.deepEqual(result.files, ['a.ts']);
    assert.equal(box.git(repo, 'show', '--name-only', '--format=', 'HEAD'), 'app/a.ts');
    assert.match(box.git(repo, 'status', '--porcelain'), /^A  staged-outside\.ts$/m);
  });

  it('refuses nothing to commit, an empty or too long message', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const git = box.workspace(repo);
    await rejectsWith(git.commit({ message: 'nothing' }), 'nothing_to_commit');
    await rejectsWith(git.commit({ message: 'nothing', files: ['README.md'] }), 'nothing_to_commit');
    box.write(path.join(repo, 'a.txt'), 'a\n');
    await rejectsWith(git.commit({ message: '' }), 'validation_error', /empty/);
    await rejectsWith(git.commit({ message: '   \n ' }), 'validation_error', /empty/);
    await rejectsWith(git.commit({ message: 'x'.repeat(10_001) }), 'validation_error', /10000/);
    await rejectsWith(git.commit({ message: 'x', files: [] }), 'validation_error');
    await rejectsWith(git.commit({ message: 'x', files: ['missing.txt'] }), 'validation_error', /missing\.txt matches no file/);
    // Nothing was staged by the refused attempts.
    assert.match(box.git(repo, 'status', '--porcelain'), /^\?\? a\.txt$/m);
  });

  it('refuses paths outside the workspace, through symlinks, and inside .git', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const outside = path.join(box.dir, 'outside');
    box.write(path.join(outside, 'secret.txt'), 'secret\n');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(repo, 'link-out'));
    fs.symlinkSync(outside, path.join(repo, 'dir-out'));
    fs.symlinkSync(path.join(outside, 'does-not-exist'), path.join(repo, 'dangling-out'));
    box.write(path.join(repo, 'a.txt'), 'a\n');
    const git = box.workspace(repo);
    for (const file of [
      '../outside/secret.txt',
      '../outside',
      path.join(outside, 'secret.txt'),
      '/etc/passwd',
      'link-out',
      'dir-out/secret.txt',
      'dir-out',
      'dangling-out',
      'a.txt/../../outside',
    ]) {
      await rejectsWith(git.commit({ message: 'x', files: [file] }), 'forbidden_path');
    }
    await rejectsWith(git.commit({ message: 'x', files: ['.git/config'] }), 'forbidden_path', /\.git/);
    for (const alias of ['.GIT/config', '.git./config', 'git~1/config'])
      await rejectsWith(git.commit({ message: 'x', files: [alias] }), 'forbidden_path', /\.git/);
    await rejectsWith(git.commit({ message: 'x', files: ['a.txt', '../x'] }), 'forbidden_path');
    assert.equal(box.git(repo, 'rev-list', '--count', 'HEAD'), '1');
    // A symlink that stays inside is committed as a symlink.
    fs.symlinkSync('a.txt', path.join(repo, 'link-in'));
    const result = await git.commit({ message: 'links', files: ['a.txt', 'link-in'] });
    assert.deepEqual(result.files.sort(), ['a.txt', 'link-in']);
  });

  it('refuses an explicitly named ignored file', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, '.gitignore'), '*.log\n');
    box.write(path.join(repo, 'debug.log'), 'x\n');
    await rejectsWith(box.workspace(repo).commit({ message: 'x', files: ['debug.log'] }), 'validation_error', /ignored/);
  });

  it('reports a hook that refuses the commit, and a lock held by another git', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const hook = path.join(repo, '.git', 'hooks', 'pre-commit');
    fs.writeFileSync(hook, '#!/bin/sh\necho "lint: 3 problems" >&2\nexit 1\n', { mode: 0o755 });
    box.write(path.join(repo, 'a.txt'), 'a\n');
    await rejectsWith(box.workspace(repo).commit({ message: 'x' }), 'commit_rejected', /lint: 3 problems/);
    fs.rmSync(hook);
    fs.writeFileSync(path.join(repo, '.git', 'index.lock'), '');
    await rejectsWith(box.workspace(repo).commit({ message: 'x' }), 'repository_busy');
    fs.rmSync(path.join(repo, '.git', 'index.lock'));
    await box.workspace(repo).commit({ message: 'x' });
  });

  it('stops a hook that runs past the time limit, with everything it started', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const started = path.join(box.dir, 'hook-started');
    const finished = path.join(box.dir, 'hook-finished');
    // The hook blocks reading a FIFO that no one writes to: it never ends on its own, so the
    // commit can only end at the time limit, and the hook only by being killed.
    const fifo = path.join(box.dir, 'hook-waits-here');
    execFileSync('mkfifo', [fifo]);
    fs.writeFileSync(path.join(repo, '.git', 'hooks', 'pre-commit'), `#!/bin/sh\ntouch '${started}'\nread line < '${fifo}'\ntouch '${finished}'\n`, {
      mode: 0o755,
    });
    box.write(path.join(repo, 'a.txt'), 'a\n');
    // Long enough for git to reach the hook on a loaded machine.
    await rejectsWith(box.workspace(repo, { longTimeoutMs: 5000 }).commit({ message: 'x' }), 'git_timeout');
    assert.ok(fs.existsSync(started), 'the hook ran');
    // A live hook would still be reading the FIFO; opening it for writing without a reader fails.
    assert.throws(() => fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK), { code: 'ENXIO' }, 'the hook was killed with git');
    assert.equal(fs.existsSync(finished), false);
  });

  it('runs one commit at a time', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, 'a.txt'), 'a\n');
    box.write(path.join(repo, 'b.txt'), 'b\n');
    const git = box.workspace(repo);
    const [a, b] = await Promise.all([git.commit({ message: 'a', files: ['a.txt'] }), git.commit({ message: 'b', files: ['b.txt'] })]);
    assert.deepEqual([a.files, b.files], [['a.txt'], ['b.txt']]);
    assert.equal(box.git(repo, 'rev-list', '--count', 'HEAD'), '3');
  });

  it('refuses to commit files that still hold conflict markers', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, 'c.txt'), 'base\n');
    box.git(repo, 'add', 'c.txt');
    box.git(repo, 'commit', '-q', '-m', 'base');
    box.git(repo, 'checkout', '-q', '-b', 'other');
    box.write(path.join(repo, 'c.txt'), 'theirs\n');
    box.git(repo, 'commit', '-q', '-am', 'theirs');
    box.git(repo, 'checkout', '-q', 'main');
    box.write(path.join(repo, 'c.txt'), 'ours\n');
    box.git(repo, 'commit', '-q', '-am', 'ours');
    assert.throws(() => box.git(repo, 'merge', 'other'));

    const git = box.workspace(repo);
    assert.equal((await git.status()).merging, true);
    const error = await rejectsWith(git.commit({ message: 'merge' }), 'git_conflict', /c\.txt/);
    assert.ok(error instanceof GitConflictError);
    assert.deepEqual(error.files, ['c.txt']);
    await rejectsWith(git.commit({ message: 'merge', files: ['c.txt'] }), 'merge_in_progress');
    // Resolved in the editor: the commit stages it and concludes the merge.
    box.write(path.join(repo, 'c.txt'), 'both\n');
    const merge = await git.commit({ message: 'Merge other' });
    assert.equal(merge.merge, true);
    assert.deepEqual(merge.files, ['c.txt']);
    assert.equal((await git.status()).merging, false);
  });
});
