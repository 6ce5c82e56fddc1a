// The workspace's write gate: nothing Loom writes lands in a git directory or in .loom, whatever
// the path looks like (case, trailing dots, ignorable code points, short names, `..`, repeated
// slashes, symlinks, `.git` files pointing elsewhere) and whatever order files are written in.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import fc from 'fast-check';
import { LoomError } from '../../../src/core/errors.ts';
import { inHeldFolder } from '../../../src/core/files/held-folder.ts';
import { WorkspacePaths } from '../../../src/core/workspace/paths.ts';
import { isGitDirectory, protectedName } from '../../../src/core/workspace/protected.ts';

function tempDir(t: TestContext): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-protected-')));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/**
 * A workspace with every kind of protected place: a repository's `.git`, a submodule-style
 * `.git` file whose gitdir (`store/`) is an ordinary-looking folder, `.loom`, and symlinks
 * into each of them, beside ordinary files and a half-built git directory (`future/`).
 */
function buildWorkspace(root: string): void {
  write(path.join(root, '.git/config'), '[core]\n\tbare = false\n');
  write(path.join(root, '.git/HEAD'), 'ref: refs/heads/main\n');
  fs.mkdirSync(path.join(root, '.git/objects'), { recursive: true });
  fs.mkdirSync(path.join(root, '.git/refs/heads'), { recursive: true });
  write(path.join(root, '.git/hooks/pre-commit.sample'), '#!/bin/sh\n');
  write(path.join(root, 'sub/.git'), 'gitdir: ../store\n');
  write(path.join(root, 'sub/file.txt'), 'sub\n');
  write(path.join(root, 'store/HEAD'), 'ref: refs/heads/main\n');
  write(path.join(root, 'store/config'), '[core]\n\tworktree = ../sub\n');
  fs.mkdirSync(path.join(root, 'store/objects'), { recursive: true });
  fs.mkdirSync(path.join(root, 'store/refs'), { recursive: true });
  write(path.join(root, '.loom/extensions/trusted.js'), 'export {}\n');
  write(path.join(root, '.loom/settings.json'), '{}\n');
  write(path.join(root, 'src/a.ts'), 'export const a = 1;\n');
  fs.mkdirSync(path.join(root, 'future/objects'), { recursive: true });
  fs.mkdirSync(path.join(root, 'future/refs'), { recursive: true });
  fs.symlinkSync('.git', path.join(root, 'link-git'));
  fs.symlinkSync('store', path.join(root, 'link-store'));
  fs.symlinkSync('.loom', path.join(root, 'link-loom'));
  fs.symlinkSync('.git/hooks', path.join(root, 'link-hooks'));
  fs.symlinkSync('..', path.join(root, 'src/up'));
  fs.symlinkSync('../.git/hooks/post-commit', path.join(root, 'src/dangling-hook'));
}

/** Every entry under `root` (not following symlinks) with a digest of what it is. */
function snapshot(root: string): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full);
      if (entry.isSymbolicLink()) entries.set(rel, `link:${fs.readlinkSync(full)}`);
      else if (entry.isDirectory()) {
        entries.set(rel, 'dir');
        walk(full);
      } else entries.set(rel, `file:${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}`);
    }
  };
  walk(root);
  return entries;
}

/** The oracle, written independently of the gate: a name some file system takes for .git or .loom. */
function looksProtected(name: string): boolean {
  const plain = name
    .replace(/[\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\u00ad]/g, '')
    .normalize('NFKC')
    .split(':')[0]!
    .replace(/[. ]+$/, '')
    .toUpperCase();
  return plain === '.GIT' || plain === '.LOOM' || /^(GIT|LOOM)~\d+$/.test(plain);
}

/** Paths of protected places: under a protected name, or under a folder git reads as a git directory. */
function protectedEntries(entries: Map<string, string>, root: string): string[] {
  return [...entries.keys()].filter((rel) => {
    const parts = rel.split(path.sep);
    if (parts.some(looksProtected)) return true;
    for (let i = 1; i <= parts.length; i++) {
      const folder = path.join(root, ...parts.slice(0, i));
      const has = (name: string) => fs.existsSync(path.join(folder, name));
      if (fs.lstatSync(folder).isDirectory() && has('HEAD') && ((has('objects') && has('refs')) || has('commondir'))) return true;
    }
    return false;
  });
}

/** Names that are, or that some file system takes for, .git and .loom. */
const protectedNameArb = fc.oneof(
  fc.constantFrom('.git', '.loom'),
  fc
    .tuple(
      fc.constantFrom('.git', '.loom', 'git~1', 'loom~1', 'GIT~2'),
      fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      fc.constantFrom('', '.', ' ', '. .', '::$INDEX_ALLOCATION', ':stream'),
      fc.constantFrom('', '\u200c', '\u200d', '\u200e', '\u202e', '\u206a', '\ufeff'),
      fc.nat(5),
    )
    .map(([name, upper, tail, ignorable, at]) => {
      const cased = [...name].map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c)).join('');
      return cased.slice(0, at) + ignorable + cased.slice(at) + tail;
    }),
);

const segmentArb = fc.oneof(
  { weight: 3, arbitrary: protectedNameArb },
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      '.',
      '..',
      'src',
      'sub',
      'store',
      'future',
      'link-git',
      'link-store',
      'link-loom',
      'link-hooks',
      'up',
      'dangling-hook',
      'config',
      'HEAD',
      'head',
      'objects',
      'refs',
      'commondir',
      'hooks',
      'extensions',
      'pre-commit',
      'a.ts',
      'new.txt',
      '.github',
      '.gitignore',
    ),
  },
);

/** A path as a client might write it: segments joined by one or more slashes, maybe with `./` in front. */
const pathArb = fc
  .tuple(fc.array(fc.tuple(segmentArb, fc.constantFrom('/', '//', '/./')), { minLength: 1, maxLength: 6 }), fc.boolean())
  .map(([parts, dotSlash]) => (dotSlash ? './' : '') + parts.map(([segment, sep], i) => (i === 0 ? segment : sep + segment)).join(''));

type Operation = { kind: 'write'; target: string } | { kind: 'rename'; from: string; target: string } | { kind: 'remove'; target: string };

const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  pathArb.map((target) => ({ kind: 'write' as const, target })),
  fc.tuple(fc.constantFrom('scratch/file.txt', 'scratch/folder', 'scratch'), pathArb).map(([from, target]) => ({ kind: 'rename' as const, from, target })),
  pathArb.map((target) => ({ kind: 'remove' as const, target })),
);

function apply(paths: WorkspacePaths, operation: Operation): void {
  if (operation.kind === 'write') paths.writeFile(operation.target, 'written by a request\n');
  else if (operation.kind === 'rename') paths.rename(operation.from, operation.target);
  else paths.remove(operation.target);
}

describe('protected names', () => {
  const protectedOnes: [string, string][] = [
    ['.git', '.git'],
    ['.GIT', '.git'],
    ['.Git', '.git'],
    ['.git.', '.git'],
    ['.git . .', '.git'],
    ['.git ', '.git'],
    ['.git::$INDEX_ALLOCATION', '.git'],
    ['git~1', '.git'],
    ['GIT~1', '.git'],
    ['git~3', '.git'],
    ['.g\u200cit', '.git'],
    ['\ufeff.git', '.git'],
    ['.gi\u200et', '.git'],
    ['．ｇｉｔ', '.git'],
    ['.gıt', '.git'],
    ['.loom', '.loom'],
    ['.LOOM', '.loom'],
    ['.loom..', '.loom'],
    ['LOOM~1', '.loom'],
    ['.lo\u206aom', '.loom'],
  ];
  for (const [name, expected] of protectedOnes) {
    it(`takes ${JSON.stringify(name)} for ${expected}`, () => assert.equal(protectedName(name), expected));
  }
  for (const name of [
    '.github',
    '.gitignore',
    '.gitattributes',
    '.gitmodules',
    'git',
    'x.git',
    '.gitx',
    '.git-hooks',
    '.loomrc',
    'loom',
    'git~',
    'git~a',
    '.',
    '..',
    'HEAD',
  ]) {
    it(`does not take ${JSON.stringify(name)} for a protected name`, () => assert.equal(protectedName(name), undefined));
  }
});

describe('WorkspacePaths write gate', () => {
  it('never writes into a git directory or .loom, whatever the path (property)', (t) => {
    const parent = tempDir(t);
    let run = 0;
    fc.assert(
      fc.property(fc.array(operationArb, { minLength: 1, maxLength: 8 }), (operations) => {
        const root = path.join(parent, `ws-${run++}`);
        buildWorkspace(root);
        write(path.join(root, 'scratch/file.txt'), 'scratch\n');
        write(path.join(root, 'scratch/folder/inner.txt'), 'inner\n');
        const paths = new WorkspacePaths(root);
        const before = snapshot(root);
        const guarded = protectedEntries(before, root);
        for (const operation of operations) {
          try {
            apply(paths, operation);
          } catch (error) {
            assert.ok(error instanceof LoomError, `${operation.kind} ${operation.target}: ${String(error)}`);
          }
        }
        const after = snapshot(root);
        for (const rel of guarded) assert.equal(after.get(rel), before.get(rel), `${rel} changed by ${JSON.stringify(operations)}`);
        for (const rel of protectedEntries(after, root)) assert.ok(before.has(rel), `${rel} was created by ${JSON.stringify(operations)}`);
        // Nothing escaped the workspace either.
        assert.deepEqual(
          fs.readdirSync(parent).filter((name) => !name.startsWith('ws-')),
          [],
        );
        fs.rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: 100 },
    );
  });

  it('refuses each kind of protected path with 403 protected_path, and writes ordinary ones', (t) => {
    const root = tempDir(t);
    buildWorkspace(root);
    const paths = new WorkspacePaths(root);
    for (const target of [
      '.git/config',
      '.GIT/config',
      '.git./hooks/pre-commit',
      'git~1/config',
      'src/../.git/config',
      'link-git/config',
      'link-hooks/pre-commit',
      'src/up/.git/config',
      'src/dangling-hook',
      'store/config',
      'link-store/hooks/pre-commit',
      'sub/.git',
      'new/.git',
      'new/.Git/config',
      '.loom/settings.json',
      '.loom/extensions/evil.js',
      'link-loom/extensions/evil.js',
      'deep/er/.loom',
      'future/HEAD',
      'future/head',
    ]) {
      assert.throws(
        () => paths.writeFile(target, 'x'),
        (error: LoomError) => error.code === 'protected_path',
        target,
      );
    }
    for (const target of ['.', 'src/up', 'src/..']) {
      assert.throws(
        () => paths.writeFile(target, 'x'),
        (error: LoomError) => error.code === 'not_a_file',
        target,
      );
    }
    assert.deepEqual(
      fs.readdirSync(path.dirname(root)).filter((name) => name.endsWith('.tmp')),
      [],
      'no temporary file beside the workspace',
    );
    assert.equal(paths.writeFile('src/b.ts', 'b\n'), path.join(root, 'src/b.ts'));
    assert.equal(paths.writeFile('new folder/c.ts', 'c\n'), path.join(root, 'new folder/c.ts'));
    assert.equal(fs.readFileSync(path.join(root, 'new folder/c.ts'), 'utf8'), 'c\n');
    // A symlink inside the workspace is followed: the file it points to is written, the link stays.
    fs.symlinkSync('src/a.ts', path.join(root, 'alias.ts'));
    assert.equal(paths.writeFile('alias.ts', 'through the link\n'), path.join(root, 'src/a.ts'));
    assert.equal(fs.lstatSync(path.join(root, 'alias.ts')).isSymbolicLink(), true);
  });

  it('replaces a hard link to a protected file instead of writing through it', (t) => {
    const root = tempDir(t);
    buildWorkspace(root);
    const config = fs.readFileSync(path.join(root, '.git/config'), 'utf8');
    fs.linkSync(path.join(root, '.git/config'), path.join(root, 'innocent.txt'));
    new WorkspacePaths(root).writeFile('innocent.txt', '[core]\n\tfsmonitor = /bin/evil\n');
    assert.equal(fs.readFileSync(path.join(root, '.git/config'), 'utf8'), config);
    assert.equal(fs.statSync(path.join(root, '.git/config')).nlink, 1);
  });

  it('refuses the write that would complete a git directory, in whatever order it is built', (t) => {
    const parent = tempDir(t);
    let run = 0;
    const pieces = ['HEAD', 'objects/pack/x', 'refs/heads/main', 'config'];
    fc.assert(
      fc.property(fc.shuffledSubarray(pieces, { minLength: 4, maxLength: 4 }), (order) => {
        const root = path.join(parent, `ws-${run++}`);
        fs.mkdirSync(root);
        const paths = new WorkspacePaths(root);
        const refused: string[] = [];
        for (const piece of order) {
          try {
            paths.writeFile(`evil/${piece}`, 'x\n');
          } catch (error) {
            assert.equal((error as LoomError).code, 'protected_path');
            refused.push(piece);
          }
        }
        assert.equal(isGitDirectory(path.join(root, 'evil')), false, `built by ${order.join(', ')}`);
        assert.ok(refused.length > 0);
      }),
      { numRuns: 24 },
    );
  });

  it('refuses the workspace root being made a bare repository', (t) => {
    const root = tempDir(t);
    const paths = new WorkspacePaths(root);
    paths.writeFile('objects/info/packs', '\n');
    paths.writeFile('refs/heads/main', '0000000000000000000000000000000000000000\n');
    paths.writeFile('config', '[core]\n\tbare = false\n\tworktree = .\n');
    assert.throws(
      () => paths.writeFile('HEAD', 'ref: refs/heads/main\n'),
      (error: LoomError) => error.code === 'protected_path' && /workspace folder/.test(error.message),
    );
    assert.equal(fs.existsSync(path.join(root, 'HEAD')), false);
  });

  it('makes a workspace opened inside a git directory read-only', (t) => {
    const root = tempDir(t);
    buildWorkspace(root);
    for (const inside of ['.git/hooks', 'store']) {
      const paths = new WorkspacePaths(path.join(root, inside));
      assert.throws(
        () => paths.writeFile('post-commit', 'x'),
        (error: LoomError) => error.code === 'protected_path',
        inside,
      );
      assert.equal(paths.isWritable(path.join(paths.root, 'post-commit')), false);
    }
  });

  it('renames and removes ordinary entries, but never a protected one, one holding one, or onto one', (t) => {
    const root = tempDir(t);
    buildWorkspace(root);
    write(path.join(root, 'repo-copy/.git/HEAD'), 'ref: refs/heads/main\n');
    const paths = new WorkspacePaths(root);
    const refuses = (work: () => void, code = 'protected_path') => assert.throws(work, (error: LoomError) => error.code === code);
    refuses(() => paths.rename('.git', 'not-git'));
    refuses(() => paths.rename('store', 'plain'));
    refuses(() => paths.rename('repo-copy', 'elsewhere'));
    refuses(() => paths.rename('src/a.ts', '.git/hooks/pre-commit'));
    refuses(() => paths.rename('src/a.ts', 'future/HEAD'));
    refuses(() => paths.remove('.git/config'));
    refuses(() => paths.remove('.loom/settings.json'));
    refuses(() => paths.rename('src/a.ts', 'sub/file.txt'), 'already_exists');
    refuses(() => paths.remove('src'), 'folder_not_empty');

    paths.rename('src/a.ts', 'lib/a.ts');
    assert.equal(fs.readFileSync(path.join(root, 'lib/a.ts'), 'utf8'), 'export const a = 1;\n');
    // A symlink is the entry itself: renaming or removing it leaves what it points to alone.
    paths.rename('link-git', 'renamed-link');
    assert.equal(fs.readlinkSync(path.join(root, 'renamed-link')), '.git');
    paths.remove('renamed-link');
    assert.ok(fs.existsSync(path.join(root, '.git/config')));
    paths.remove('lib/a.ts');
    paths.remove('lib');
    assert.equal(fs.existsSync(path.join(root, 'lib')), false);
  });
});

describe("Loom's own folders inside a workspace", () => {
  it('are refused for reading and writing, by any path, and never moved; those outside the workspace change nothing', (t) => {
    const root = tempDir(t);
    write(path.join(root, 'Library/Preferences/Loom/settings.json'), '{"apiToken": "x"}\n');
    write(path.join(root, 'Library/Application Support/Loom/loom.db'), 'db');
    write(path.join(root, 'src/a.ts'), 'a\n');
    fs.symlinkSync('Library/Preferences', path.join(root, 'prefs'));
    const paths = new WorkspacePaths(root, {
      loomFolders: [
        { path: path.join(root, 'Library/Preferences/Loom'), what: "Loom's config folder" },
        { path: path.join(root, 'Library/Application Support/Loom'), what: "Loom's data folder" },
        { path: path.join(os.tmpdir(), 'elsewhere', 'models'), what: "Loom's models folder" },
      ],
    });
    assert.deepEqual(
      paths.loomFolders.map((folder) => paths.relative(folder.path)),
      ['Library/Preferences/Loom', 'Library/Application Support/Loom'],
    );
    const refuses = (work: () => unknown) =>
      assert.throws(work, (error: LoomError) => error.code === 'protected_path' && /Loom's (config|data) folder/.test(error.message));
    for (const file of [
      'Library/Preferences/Loom/settings.json',
      'prefs/Loom/settings.json',
      'Library/Preferences/Loom',
      'Library/Application Support/Loom/loom.db',
    ]) {
      refuses(() => paths.resolve(file));
      refuses(() => paths.resolveForWrite(file));
      refuses(() => paths.writeFile(file, '{}'));
      refuses(() => paths.remove(file));
    }
    refuses(() => paths.writeFile('Library/Preferences/Loom/new.json', '{}'));
    refuses(() => paths.rename('src/a.ts', 'prefs/Loom/settings.json'));
    refuses(() => paths.rename('Library/Preferences/Loom/settings.json', 'src/settings.json'));
    refuses(() => paths.rename('Library', 'Moved'));
    // Letter case folded, as a case-insensitive file system would.
    assert.ok(paths.loomFolderOf(path.join(root, 'library/preferences/loom/settings.json')));
    assert.equal(paths.isWritable(path.join(root, 'Library/Preferences/Loom/settings.json')), false);
    assert.equal(fs.readFileSync(path.join(root, 'Library/Preferences/Loom/settings.json'), 'utf8'), '{"apiToken": "x"}\n');
    // Beside them, everything is as before.
    assert.equal(paths.resolve('Library/Preferences'), path.join(root, 'Library/Preferences'));
    paths.writeFile('Library/notes.md', 'notes\n');
    paths.rename('src/a.ts', 'Library/a.ts');
  });
});

describe('held folders', () => {
  it(
    'writes into the folder that was checked even when its path is swapped for a symlink meanwhile',
    { skip: process.platform !== 'linux' && 'needs /proc/self/fd' },
    (t) => {
      const root = tempDir(t);
      fs.mkdirSync(path.join(root, 'src'));
      fs.mkdirSync(path.join(root, '.git'));
      inHeldFolder(path.join(root, 'src'), 'src/a.ts', (base) => {
        // Another process swaps the folder for a symlink into .git between the check and the write.
        fs.renameSync(path.join(root, 'src'), path.join(root, 'moved'));
        fs.symlinkSync('.git', path.join(root, 'src'));
        fs.writeFileSync(path.join(base, 'a.ts'), 'x');
      });
      assert.deepEqual(fs.readdirSync(path.join(root, '.git')), []);
      assert.deepEqual(fs.readdirSync(path.join(root, 'moved')), ['a.ts']);
    },
  );

  it('refuses a folder whose path no longer leads to it', (t) => {
    const root = tempDir(t);
    fs.mkdirSync(path.join(root, '.git'));
    fs.symlinkSync('.git', path.join(root, 'src'));
    assert.throws(
      () => inHeldFolder(path.join(root, 'src'), 'src/a.ts', () => assert.fail('must not run')),
      (error: LoomError) => error.code === 'file_system_busy',
    );
  });
});
