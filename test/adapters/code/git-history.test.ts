import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseLog, readGitHistory } from '../../../src/adapters/code/git-history.ts';
import { sandbox } from '../git/helpers.ts';

describe('readGitHistory', () => {
  it('reads the last commits newest first, merges left out, paths relative to the workspace', async (t) => {
    const box = sandbox(t);
    const root = box.repo();
    box.write(path.join(root, 'app/src/a.ts'), 'a\n');
    box.write(path.join(root, 'app/src/b.ts'), 'b\n');
    box.git(root, 'add', '.');
    box.git(root, 'commit', '-q', '-m', 'a and b');
    box.write(path.join(root, 'app/src/a.ts'), 'a2\n');
    box.write(path.join(root, 'other.txt'), 'o\n');
    box.git(root, 'add', '.');
    box.git(root, 'commit', '-q', '-m', 'a again');
    box.git(root, 'checkout', '-q', '-b', 'side');
    box.write(path.join(root, 'app/src/c with space.ts'), 'c\n');
    box.git(root, 'add', '.');
    box.git(root, 'commit', '-q', '-m', 'c');
    box.git(root, 'checkout', '-q', 'main');
    box.git(root, 'merge', '-q', '--no-ff', '-m', 'merge side', 'side');

    // Commits made within one second have no order by date: compared as a set, the first last.
    const history = await readGitHistory(root, { env: box.env });
    const lists = history.commits.map((commit) => [...commit.files].sort().join(','));
    assert.deepEqual([...lists].sort(), ['README.md', 'app/src/a.ts,app/src/b.ts', 'app/src/a.ts,other.txt', 'app/src/c with space.ts']);
    assert.equal(lists.at(-1), 'README.md');
    assert.ok(history.commits.every((commit) => Number.isInteger(commit.time) && commit.time > 0));

    const inner = await readGitHistory(path.join(root, 'app'), { env: box.env });
    assert.deepEqual(inner.commits.map((commit) => [...commit.files].sort().join(',')).sort(), ['src/a.ts', 'src/a.ts,src/b.ts', 'src/c with space.ts']);
    const capped = await readGitHistory(root, { env: box.env, maxCommits: 2 });
    assert.equal(capped.commits.length, 2);
  });

  it('is empty without git history: a plain folder, a repository without commits', async (t) => {
    const box = sandbox(t);
    const plain = path.join(box.dir, 'plain');
    fs.mkdirSync(plain);
    assert.deepEqual(await readGitHistory(plain, { env: { ...box.env, GIT_CEILING_DIRECTORIES: box.dir } }), { commits: [] });
    const empty = box.repo('empty', { commit: false });
    assert.deepEqual(await readGitHistory(empty, { env: box.env }), { commits: [] });
    assert.deepEqual(await readGitHistory(empty, { env: box.env, gitPath: path.join(box.dir, 'no-such-git') }), { commits: [] });
  });

  it('keeps what it read when the output cap stops git, dropping the partial commit', async (t) => {
    const box = sandbox(t);
    const root = box.repo('big', { commit: false });
    // 300 commits of 10 files with long names (about 200 KB of log), made in one fast-import.
    const blob = 'blob\nmark :1\ndata 2\nx\n';
    const commits = Array.from({ length: 300 }, (_, i) => {
      const files = Array.from({ length: 10 }, (_, j) => `M 100644 :1 folder-${i}/a-rather-long-file-name-to-fill-the-log-${j}.txt\n`).join('');
      return `commit refs/heads/main\ncommitter T <t@example.com> ${1_700_000_000 + i} +0000\ndata 2\nc\n${files}`;
    });
    execFileSync('git', ['fast-import', '--quiet'], { cwd: root, input: blob + commits.join(''), env: box.env });
    const history = await readGitHistory(root, { env: box.env, maxOutputBytes: 100_000 });
    assert.ok(history.commits.length > 0 && history.commits.length < 300, String(history.commits.length));
    assert.equal(history.commits[0]!.files.length, 10);
    assert.ok(history.commits.every((commit) => commit.files.length === 10));
    assert.ok(history.commits[0]!.files[0]!.startsWith('folder-299/'));
  });
});

describe('parseLog', () => {
  it('reads records of a time and NUL-ended names', () => {
    assert.deepEqual(parseLog('\x1e100\0\na.ts\0b c.ts\0\x1e90\0\nd.ts\0'), [
      { files: ['a.ts', 'b c.ts'], time: 100 },
      { files: ['d.ts'], time: 90 },
    ]);
    assert.deepEqual(parseLog('\x1e100\0\na.ts\0\x1e90\0\nd.t', false), [{ files: ['a.ts'], time: 100 }]);
    assert.deepEqual(parseLog(''), []);
  });
});
