// A refused commit changes nothing: not HEAD, not the index (nothing staged on the way), not
// the working tree. Found by the local API fuzz (test/local/fuzz.test.ts): a commit naming a
// new file and a file that does not exist staged the new file, then failed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { stageFiles } from '../../../src/adapters/git/worktree.ts';
import { rejectsWith, sandbox, type Sandbox } from './helpers.ts';

/** What the index holds (mode, object, stage, path per entry) and what git says of the tree. */
function state(box: Sandbox, repo: string): { index: string; status: string; head: string } {
  return {
    index: box.git(repo, 'ls-files', '--stage'),
    status: box.git(repo, 'status', '--porcelain=v1', '--untracked-files=all'),
    head: box.git(repo, 'rev-parse', 'HEAD'),
  };
}

describe('GitCliWorkspace.commit, refused', () => {
  it('stages nothing when a named file matches nothing', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, 'new.txt'), 'new\n');
    box.write(path.join(repo, 'README.md'), '# changed\n');
    const before = state(box, repo);
    await rejectsWith(
      box.workspace(repo).commit({ message: 'x', files: ['new.txt', 'README.md', 'missing.txt'] }),
      'validation_error',
      /missing\.txt matches no file/,
    );
    assert.deepEqual(state(box, repo), before);
  });

  it('says which file matches nothing when its name holds line breaks (found by the local API fuzz: a 500)', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, 'new.txt'), 'new\n');
    const before = state(box, repo);
    for (const name of ['\r\n', 'a\nb', "it's\n"]) {
      const quoted = JSON.stringify(name).replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
      await rejectsWith(box.workspace(repo).commit({ message: 'x', files: ['new.txt', name] }), 'validation_error', new RegExp(`^${quoted} matches no file`));
      await rejectsWith(stageFiles(box.workspace(repo), { files: ['new.txt', name] }), 'validation_error', new RegExp(`^${quoted} matches no file`));
    }
    assert.deepEqual(state(box, repo), before);
  });

  it('stages nothing when a hook refuses a commit of every change', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    fs.writeFileSync(path.join(repo, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\necho "lint: 1 problem" >&2\nexit 1\n', { mode: 0o755 });
    box.write(path.join(repo, 'new.txt'), 'new\n');
    box.write(path.join(repo, 'README.md'), '# changed\n');
    box.git(repo, 'add', 'README.md'); // the user's own staging stays as it was too
    const before = state(box, repo);
    await rejectsWith(box.workspace(repo).commit({ message: 'x' }), 'commit_rejected', /lint: 1 problem/);
    assert.deepEqual(state(box, repo), before);
  });

  it('after a commit the index is the committed one, and no lock or copy is left behind', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, 'a.txt'), 'a\n');
    box.write(path.join(repo, 'b.txt'), 'b\n');
    box.write(path.join(repo, 'README.md'), '# staged by the user\n');
    box.git(repo, 'add', 'README.md');
    await box.workspace(repo).commit({ message: 'a only', files: ['a.txt'] });
    // a.txt is committed and clean; the user's staged README.md is still staged; b.txt untracked.
    assert.equal(box.git(repo, 'status', '--porcelain=v1', '--untracked-files=all'), 'M  README.md\n?? b.txt');
    await box.workspace(repo).commit({ message: 'the rest' });
    assert.equal(box.git(repo, 'status', '--porcelain=v1', '--untracked-files=all'), '');
    assert.deepEqual(
      fs.readdirSync(path.join(repo, '.git')).filter((name) => name.startsWith('index') && name !== 'index'),
      [],
    );
  });

  it('leaves a lock another git holds in place', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    box.write(path.join(repo, 'a.txt'), 'a\n');
    fs.writeFileSync(path.join(repo, '.git', 'index.lock'), '');
    await rejectsWith(box.workspace(repo).commit({ message: 'x' }), 'repository_busy');
    assert.ok(fs.existsSync(path.join(repo, '.git', 'index.lock')), 'not ours to remove');
  });
});
