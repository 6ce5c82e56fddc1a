// The one walk of a workspace (src/core/workspace/walk.ts) and the rule it follows: a symbolic
// link is followed only when its target is inside the workspace and not protected (.git, .loom,
// Loom's own folders); a walk that starts below a link leading out is refused; loops end, deep
// trees are walked without recursion, and links that fan out stop at the folder limit.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { WorkspacePaths } from '../../../src/core/workspace/paths.ts';
import { WorkspaceWalk } from '../../../src/core/workspace/walk.ts';
import { listFolderOf } from '../../../src/core/workspace/folder-listing.ts';

/** A workspace folder and a folder beside it (outside), both removed when the test ends. */
function folders(t: TestContext): { root: string; outside: string } {
  const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-walk-rule-')));
  t.after(() => fs.rmSync(top, { recursive: true, force: true }));
  const root = path.join(top, 'ws');
  const outside = path.join(top, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
  return { root, outside };
}

function write(root: string, files: string[]): void {
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), `${file}\n`);
  }
}

async function walked(paths: WorkspacePaths, base = '', maxFolders?: number): Promise<{ files: string[]; truncated: boolean }> {
  const walk = new WorkspaceWalk(paths, base, maxFolders === undefined ? {} : { maxFolders });
  const files: string[] = [];
  for await (const file of walk) files.push(file.path);
  return { files, truncated: walk.truncated };
}

describe('walking a workspace', () => {
  it('never follows a link out of the workspace, and refuses a walk that starts below one', async (t) => {
    const { root, outside } = folders(t);
    write(root, ['a.ts']);
    fs.symlinkSync(outside, path.join(root, 'outdir'));
    fs.symlinkSync('/', path.join(root, 'rootlink'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'secret-link.txt'));
    const paths = new WorkspacePaths(root);
    assert.deepEqual((await walked(paths)).files, ['a.ts']);
    for (const base of ['outdir', 'rootlink/etc', 'rootlink']) {
      await assert.rejects(walked(paths, base), { code: 'forbidden_path' }, base);
    }
    assert.deepEqual(
      listFolderOf(paths, '').entries.map((entry) => entry.name),
      ['a.ts'],
    );
  });

  it('follows a link to a folder or a file inside the workspace, under the link’s name', async (t) => {
    const { root } = folders(t);
    write(root, ['src/a.ts', 'src/lib/b.ts', 'docs/readme.md']);
    fs.symlinkSync('src', path.join(root, 'alias'));
    fs.symlinkSync('docs/readme.md', path.join(root, 'README.md'));
    fs.symlinkSync('src/gone.ts', path.join(root, 'dangling.ts'));
    const paths = new WorkspacePaths(root);
    assert.deepEqual((await walked(paths)).files, ['README.md', 'alias/a.ts', 'alias/lib/b.ts', 'docs/readme.md', 'src/a.ts', 'src/lib/b.ts']);
    assert.deepEqual((await walked(paths, 'alias/lib')).files, ['alias/lib/b.ts']);
    const walk = new WorkspaceWalk(paths, 'alias');
    for await (const file of walk) assert.equal(file.real, path.join(root, 'src', file.path.slice('alias/'.length)));
  });

  it('does not follow a link into .git, .loom or one of Loom’s folders', async (t) => {
    const { root } = folders(t);
    write(root, ['.git/config', '.loom/settings.json', 'home/.config/loom/settings.json', 'home/notes.md']);
    fs.symlinkSync('.git', path.join(root, 'g'));
    fs.symlinkSync('.loom/settings.json', path.join(root, 'l.json'));
    fs.symlinkSync('home/.config/loom', path.join(root, 'cfg'));
    const paths = new WorkspacePaths(root, { loomFolders: [{ path: path.join(root, 'home', '.config', 'loom'), what: "Loom's config folder" }] });
    assert.deepEqual((await walked(paths)).files, ['home/notes.md']);
    await assert.rejects(walked(paths, 'cfg'), { code: 'protected_path' });
    await assert.rejects(walked(paths, 'home/.config/loom'), { code: 'protected_path' });
    assert.deepEqual(
      listFolderOf(paths, '').entries.map((entry) => entry.name),
      ['home'],
    );
    assert.deepEqual(listFolderOf(paths, 'home/.config').entries, []);
  });

  it('ends on loops of links: to a folder above, to itself, and round two folders', async (t) => {
    const { root } = folders(t);
    write(root, ['a/x.ts', 'b/y.ts']);
    fs.symlinkSync('..', path.join(root, 'a', 'up'));
    fs.symlinkSync('.', path.join(root, 'a', 'self'));
    fs.symlinkSync('../b', path.join(root, 'a', 'to-b'));
    fs.symlinkSync('../a', path.join(root, 'b', 'to-a'));
    const paths = new WorkspacePaths(root);
    const { files, truncated } = await walked(paths);
    assert.equal(truncated, false);
    // Each folder once along any one path: b through a, a through b, never round again.
    assert.deepEqual(files, ['a/to-b/y.ts', 'a/x.ts', 'b/to-a/x.ts', 'b/y.ts']);
  });

  it('walks a deep tree without recursing, and stops at its folder limit', async (t) => {
    const { root } = folders(t);
    const deep = Array.from({ length: 200 }, () => 'd').join('/');
    write(root, [`${deep}/bottom.ts`, 'e/1.ts', 'e/f/2.ts', 'e/f/g/3.ts']);
    const paths = new WorkspacePaths(root);
    assert.deepEqual(await walked(paths, ''), { files: [`${deep}/bottom.ts`, 'e/1.ts', 'e/f/2.ts', 'e/f/g/3.ts'], truncated: false });
    assert.deepEqual(await walked(paths, 'e', 2), { files: ['e/1.ts', 'e/f/2.ts'], truncated: true });
  });

  it('enters a folder through links once per walk, however the links fan out', async (t) => {
    const { root } = folders(t);
    // Twelve levels, each holding three links to the next: 3^12 paths to the last one.
    for (let level = 0; level < 12; level++) {
      fs.mkdirSync(path.join(root, `l${level}`));
      for (const link of ['a', 'b', 'c']) fs.symlinkSync(`../l${level + 1}`, path.join(root, `l${level}`, link));
    }
    write(root, ['l12/end.ts']);
    const { files, truncated } = await walked(new WorkspacePaths(root), 'l0');
    assert.equal(truncated, false);
    assert.deepEqual(files, [`l0/${Array.from({ length: 12 }, () => 'a').join('/')}/end.ts`]);
  });
});
