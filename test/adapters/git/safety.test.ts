// Programs named by the repository's configuration that Loom's git never runs: core.fsmonitor
// (status runs in the background), hooks from a core.hooksPath inside the workspace (Loom's
// writers can write there), and a workspace folder made to look like a bare repository.
// Each case uses a real repository whose config names a script that leaves a marker file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { rejectsWith, sandbox, type Sandbox } from './helpers.ts';

/** A script that creates `marker` when run (as a hook or an fsmonitor), and the marker's path. */
function markerScript(box: Sandbox, file: string, name: string): string {
  const marker = path.join(box.dir, `${name}.ran`);
  box.write(file, `#!/bin/sh\ntouch '${marker}'\n`);
  fs.chmodSync(file, 0o755);
  return marker;
}

describe('git settings Loom pins', () => {
  it('never runs core.fsmonitor, though plain git does', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const marker = markerScript(box, path.join(box.dir, 'fsmonitor.sh'), 'fsmonitor');
    box.git(repo, 'config', 'core.fsmonitor', path.join(box.dir, 'fsmonitor.sh'));
    box.write(path.join(repo, 'README.md'), 'changed\n');
    const git = box.workspace(repo);
    await git.status();
    await git.branches();
    await git.commit({ message: 'change' });
    assert.equal(fs.existsSync(marker), false);
    // The script does work: plain git runs it.
    box.git(repo, 'status', '--porcelain');
    assert.equal(fs.existsSync(marker), true);
  });

  it('runs the hooks of .git/hooks on commit, but not those of a core.hooksPath inside the workspace', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const own = markerScript(box, path.join(repo, '.git/hooks/pre-commit'), 'own');
    const planted = markerScript(box, path.join(repo, '.husky/pre-commit'), 'planted');
    box.git(repo, 'config', 'core.hooksPath', '.husky');
    box.write(path.join(repo, 'a.txt'), 'a\n');
    await box.workspace(repo).commit({ message: 'with hooks' });
    assert.equal(fs.existsSync(planted), false, 'the hook Loom could have written did not run');
    assert.equal(fs.existsSync(own), true, "the repository's own hook ran");
  });

  it("runs hooks from a core.hooksPath outside the workspace (the user's own)", async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const hooks = path.join(box.dir, 'home', '.githooks');
    const marker = markerScript(box, path.join(hooks, 'pre-commit'), 'global');
    box.git(repo, 'config', 'core.hooksPath', hooks);
    box.write(path.join(repo, 'a.txt'), 'a\n');
    await box.workspace(repo).commit({ message: 'with the user hook' });
    assert.equal(fs.existsSync(marker), true);
  });

  it('runs a hooksPath inside the repository but outside a subfolder workspace', async (t) => {
    const box = sandbox(t);
    const repo = box.repo();
    const marker = markerScript(box, path.join(repo, 'tools/hooks/pre-commit'), 'sibling');
    box.git(repo, 'config', 'core.hooksPath', 'tools/hooks');
    box.write(path.join(repo, 'app/a.txt'), 'a\n');
    await box.workspace(path.join(repo, 'app')).commit({ message: 'app' });
    assert.equal(fs.existsSync(marker), true);
  });

  it('refuses a workspace folder made to look like a bare repository (safe.bareRepository=explicit)', async (t) => {
    const box = sandbox(t);
    const folder = path.join(box.dir, 'plain');
    fs.mkdirSync(folder);
    box.git(box.dir, 'init', '-q', '--bare', folder);
    box.git(folder, 'config', 'core.bare', 'false');
    box.git(folder, 'config', 'core.worktree', '.');
    box.write(path.join(folder, 'file.txt'), 'x\n');
    // Plain git takes it for a repository with a working tree.
    assert.match(box.git(folder, 'status', '--porcelain'), /file\.txt/);
    await rejectsWith(box.workspace(folder).status(), 'not_a_repository', /bare repository/);
  });
});
