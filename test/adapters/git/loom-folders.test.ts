// A home folder that is a git repository (dotfiles), opened as the workspace: Loom's config
// folder (settings.json with the API token) and data folder (the store) lie inside it. Git's
// status never lists them and no commit takes them — not a commit of every change, not one of a
// folder that holds them — and a commit naming a file in them is refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { LoomFolder } from '../../../src/core/workspace/paths.ts';
import { rejectsWith, sandbox, type Sandbox } from './helpers.ts';

const TOKEN = 'loom_git_home_token_0123456789abcdef';

function home(box: Sandbox): { repo: string; loomFolders: LoomFolder[] } {
  const repo = box.repo('home');
  box.write(path.join(repo, '.config', 'loom', 'settings.json'), JSON.stringify({ apiToken: TOKEN }));
  box.write(path.join(repo, '.local', 'share', 'loom', 'loom.db'), 'SQLite format 3\0');
  box.write(path.join(repo, '.config', 'other', 'app.conf'), 'other app\n');
  box.write(path.join(repo, 'notes.txt'), 'notes\n');
  return {
    repo,
    loomFolders: [
      { path: path.join(repo, '.config', 'loom'), what: "Loom's config folder" },
      { path: path.join(repo, '.local', 'share', 'loom'), what: "Loom's data folder" },
      { path: path.join(box.dir, 'elsewhere', 'models'), what: "Loom's models folder" },
    ],
  };
}

/** Every path in HEAD's tree, and whether any object of the repository holds the token. */
function committed(box: Sandbox, repo: string): { files: string[]; token: boolean } {
  const files = box.git(repo, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n').filter(Boolean).sort();
  const objects = box.git(repo, 'rev-list', '--all', '--objects').split('\n');
  const token = objects.some((line) => box.git(repo, 'cat-file', '-p', line.split(' ')[0]!).includes(TOKEN));
  return { files, token };
}

describe("git and Loom's own folders inside the workspace", () => {
  it('lists nothing of them in status; without the folders given, git would', async (t) => {
    const box = sandbox(t);
    const { repo, loomFolders } = home(box);
    const listed = (await box.workspace(repo, { loomFolders }).status()).files.map((file) => file.path).sort();
    assert.deepEqual(listed, ['.config/other/app.conf', 'notes.txt']);
    const unguarded = (await box.workspace(repo).status()).files.map((file) => file.path);
    assert.ok(unguarded.includes('.config/loom/settings.json'), 'the test is meaningful: git itself lists settings.json');
  });

  it('leaves them out of a commit of every change, and of a commit of a folder that holds them', async (t) => {
    const box = sandbox(t);
    const { repo, loomFolders } = home(box);
    const git = box.workspace(repo, { loomFolders });
    const all = await git.commit({ message: 'Everything' });
    assert.deepEqual(all.files.sort(), ['.config/other/app.conf', 'notes.txt']);
    box.write(path.join(repo, '.config', 'other', 'app.conf'), 'changed\n');
    box.write(path.join(repo, '.config', 'loom', 'settings.json'), JSON.stringify({ apiToken: `${TOKEN}-rotated` }));
    const folder = await git.commit({ message: 'The .config folder', files: ['.config', '.'] });
    assert.deepEqual(folder.files, ['.config/other/app.conf']);
    assert.deepEqual(committed(box, repo), { files: ['.config/other/app.conf', 'README.md', 'notes.txt'], token: false });
    // Nothing of them staged on the way either.
    assert.equal(box.git(repo, 'diff', '--cached', '--name-only'), '');
    assert.match(box.git(repo, 'status', '--porcelain', '--untracked-files=all'), /^\?\? \.config\/loom\/settings\.json$/m);
  });

  it('refuses a commit naming a file in them, by any path, with 403 protected_path; nothing committed', async (t) => {
    const box = sandbox(t);
    const { repo, loomFolders } = home(box);
    const git = box.workspace(repo, { loomFolders });
    const head = box.git(repo, 'rev-parse', 'HEAD');
    fs.symlinkSync('.config/loom/settings.json', path.join(repo, 'cfg-link'));
    for (const file of [
      'cfg-link',
      '.config/loom/settings.json',
      '.CONFIG/Loom/settings.json',
      '.config/loom',
      '.local/share/loom/loom.db',
      'sub/../.config/loom/settings.json',
    ]) {
      await rejectsWith(git.commit({ message: 'Steal', files: [file] }), 'protected_path', /Loom's (config|data) folder; Loom never commits its own files/);
    }
    assert.equal(box.git(repo, 'rev-parse', 'HEAD'), head);
    assert.equal(committed(box, repo).token, false);
  });
});
