// Globs of a task's files and the walk that finds them: what matches, where a walk starts, what
// is never listed (git directories, .loom, dependencies unless named), and what is refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { compileGlob, GlobSet } from '../../../src/core/agents/scope/glob.ts';
import { walkFiles, withSizes } from '../../../src/core/agents/scope/walk.ts';
import { WorkspacePaths } from '../../../src/core/workspace/paths.ts';

describe('compileGlob', () => {
  const cases: [string, string[], string[]][] = [
    ['src/**/*.ts', ['src/a.ts', 'src/x/y/b.ts'], ['src/a.js', 'lib/a.ts', 'src.ts', 'src/a.ts/x']],
    ['src/**', ['src/a', 'src/x/y/z.md'], ['srcx/a', 'lib/src/a']],
    ['**/*.md', ['README.md', 'docs/a/b.md'], ['README.mdx']],
    ['*.{ts,tsx}', ['a.ts', 'b.tsx'], ['dir/a.ts', 'a.js']],
    ['src/?.ts', ['src/a.ts'], ['src/ab.ts', 'src//.ts']],
    ['src/[ab].ts', ['src/a.ts', 'src/b.ts'], ['src/c.ts']],
    ['src/[!ab].ts', ['src/c.ts'], ['src/a.ts', 'src//.ts']],
    ['./README.md', ['README.md'], ['docs/README.md']],
    ['a+b (1).ts', ['a+b (1).ts'], ['aab (1).ts']],
  ];
  for (const [glob, yes, no] of cases) {
    it(`${glob}`, () => {
      const compiled = compileGlob(glob);
      for (const path of yes) assert.ok(compiled.matches(path), `${glob} should match ${path}`);
      for (const path of no) assert.ok(!compiled.matches(path), `${glob} should not match ${path}`);
    });
  }

  it('knows where a walk for its matches starts', () => {
    assert.equal(compileGlob('src/**/*.ts').base, 'src');
    assert.equal(compileGlob('src/lib/*.ts').base, 'src/lib');
    assert.equal(compileGlob('src/lib/a.ts').base, 'src/lib');
    assert.equal(compileGlob('**/*.ts').base, '');
    assert.equal(compileGlob('{src,test}/**').base, '');
    assert.deepEqual(new GlobSet(['src/a/**', 'src/**', 'test/x.ts', 'src/b.ts']).bases(), ['src', 'test']);
    assert.deepEqual(new GlobSet(['**', 'src/**']).bases(), ['']);
  });

  it('refuses globs that are empty, absolute, leave the workspace or are malformed', () => {
    for (const bad of ['', '  ', '/etc/**', 'C:/x', '..', 'src/../..', 'a\\b', 'src/[ab', 'src/{a,b', 'src/a]', 'a//b', 'x\u0000']) {
      assert.throws(() => compileGlob(bad), { code: 'validation_error' }, JSON.stringify(bad));
    }
    assert.throws(() => compileGlob(42 as unknown as string), { code: 'validation_error', message: 'The glob "42" is not a string.' });
    assert.throws(() => compileGlob('src/[z-a].ts'), {
      code: 'validation_error',
      message: 'The glob "src/[z-a].ts" cannot be matched: invalid character class range `z-a`.',
    });
  });

  it('matches in time linear in the path, whatever the stars', () => {
    // Each takes a backtracking matcher longer than anyone waits: every way to place the stars is tried.
    assert.equal(compileGlob(`${'*a'.repeat(40)}*b`).matches('a'.repeat(200)), false);
    assert.equal(compileGlob(`${'*a'.repeat(40)}*b`).matches(`${'a'.repeat(200)}b`), true);
    assert.equal(compileGlob(`${'**/'.repeat(50)}*b`).matches(`${'a/'.repeat(300)}c`), false);
    assert.equal(compileGlob(`{*a,a*}${'{*a,a*}'.repeat(30)}b`).matches('a'.repeat(100)), false);
  });

  it('reads class brackets literally and lets ** match a name holding a newline', () => {
    assert.ok(compileGlob('src/[[a].ts').matches('src/[.ts'));
    assert.ok(!compileGlob('src/[[a].ts').matches('src/b.ts'));
    assert.ok(compileGlob('src/**').matches('src/a\nb.ts'));
  });
});

describe('walkFiles', () => {
  it('lists regular files in name order, never .git or .loom, dependencies only when the walk starts inside them', async (t) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-walk-'));
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));
    for (const file of ['b.ts', 'a.ts', 'src/c.ts', '.git/config', '.loom/settings.json', 'node_modules/x/i.js', 'src/.env']) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), 'x');
    }
    fs.symlinkSync('/etc', path.join(root, 'etc-link'));
    const paths = new WorkspacePaths(root);
    const all = await walkFiles(paths, '', () => true, { limit: 100 });
    assert.deepEqual(all.files, ['a.ts', 'b.ts', 'src/.env', 'src/c.ts']);
    assert.deepEqual(await withSizes(paths, ['a.ts', 'gone.ts']), [{ path: 'a.ts', size: 1 }]);
    assert.deepEqual((await walkFiles(paths, 'node_modules/x', () => true, { limit: 100 })).files, ['node_modules/x/i.js']);
    assert.deepEqual((await walkFiles(paths, '.git', () => true, { limit: 100 })).files, []);
    const limited = await walkFiles(paths, '', () => true, { limit: 2 });
    assert.deepEqual([limited.files.length, limited.truncated], [2, true]);
  });
});
