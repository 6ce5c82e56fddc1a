// .gitignore semantics: negation, anchoring, `**`, folder-only patterns, nested files, escapes;
// checked by hand and against git itself on the same tree; and matching stays linear where a
// backtracking matcher blows up.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { compilePathGlob, compileSegment } from '../../../src/core/code/glob.ts';
import { ignoresPath, parseGitignore, type IgnoreFile } from '../../../src/core/code/gitignore.ts';

/** ignoresPath over a map of folder → .gitignore text. */
function ignored(files: Record<string, string>, target: string, isDirectory = false): boolean {
  const parsed = new Map(Object.entries(files).map(([folder, text]) => [folder, [parseGitignore(text, folder)]]));
  return ignoresPath(target, isDirectory, (folder): readonly IgnoreFile[] => parsed.get(folder) ?? []);
}

describe('gitignore', () => {
  it('a name without a slash matches at any depth; with a slash it is anchored to its folder', () => {
    const rules = { '': 'temp\n/root.txt\ndocs/build\n' };
    assert.equal(ignored(rules, 'temp'), true);
    assert.equal(ignored(rules, 'a/b/temp'), true);
    assert.equal(ignored(rules, 'root.txt'), true);
    assert.equal(ignored(rules, 'a/root.txt'), false);
    assert.equal(ignored(rules, 'docs/build'), true);
    assert.equal(ignored(rules, 'x/docs/build'), false);
  });

  it('negation re-includes, the last matching line wins, and nothing comes back from inside an ignored folder', () => {
    const rules = { '': '*.log\n!keep.log\nout/\n!out/important.txt\n' };
    assert.equal(ignored(rules, 'a.log'), true);
    assert.equal(ignored(rules, 'keep.log'), false);
    assert.equal(ignored(rules, 'sub/keep.log'), false);
    assert.equal(ignored(rules, 'out/important.txt'), true);
    assert.equal(ignored({ '': '!keep.log\n*.log\n' }, 'keep.log'), true);
  });

  it('a trailing slash matches folders only', () => {
    const rules = { '': 'cache/\n' };
    assert.equal(ignored(rules, 'cache', true), true);
    assert.equal(ignored(rules, 'cache', false), false);
    assert.equal(ignored(rules, 'cache/file.txt'), true);
    assert.equal(ignored(rules, 'a/cache/file.txt'), true);
  });

  it('** matches any folders: leading, trailing, in the middle (none included)', () => {
    assert.equal(ignored({ '': '**/gen\n' }, 'gen'), true);
    assert.equal(ignored({ '': '**/gen\n' }, 'a/b/gen'), true);
    assert.equal(ignored({ '': 'lib/**\n' }, 'lib/x/y.js'), true);
    assert.equal(ignored({ '': 'lib/**\n' }, 'lib', true), false);
    assert.equal(ignored({ '': 'a/**/b\n' }, 'a/b'), true);
    assert.equal(ignored({ '': 'a/**/b\n' }, 'a/x/y/b'), true);
    assert.equal(ignored({ '': 'a/**/b\n' }, 'x/a/b'), false);
    assert.equal(ignored({ '': 'doc/**/*.md\n' }, 'doc/a/b.md'), true);
    assert.equal(ignored({ '': 'doc/**/*.md\n' }, 'doc/b.md'), true);
    // Not a whole segment: two stars are one.
    assert.equal(ignored({ '': 'foo**bar\n' }, 'fooxbar'), true);
    assert.equal(ignored({ '': 'foo**bar\n' }, 'foo/bar'), false);
  });

  it('a nested .gitignore applies below its folder and overrides the one above', () => {
    const rules = { '': '*.tmp\n', sub: '!*.tmp\nlocal/\n' };
    assert.equal(ignored(rules, 'a.tmp'), true);
    assert.equal(ignored(rules, 'sub/a.tmp'), false);
    assert.equal(ignored(rules, 'sub/deep/a.tmp'), false);
    assert.equal(ignored(rules, 'sub/local/x'), true);
    assert.equal(ignored(rules, 'local/x'), false);
    // Anchored patterns of a nested file are relative to its folder.
    assert.equal(ignored({ sub: '/only\n' }, 'sub/only'), true);
    assert.equal(ignored({ sub: '/only\n' }, 'sub/x/only'), false);
  });

  it('comments, blank lines, escapes, trailing spaces, classes', () => {
    const rules = { '': '# comment\n\n\\#hash\n\\!bang\ntrail   \nspace\\ \n[abc].txt\n[!x]y\nfile?.c\n' };
    assert.equal(ignored(rules, '#hash'), true);
    assert.equal(ignored(rules, '# comment'), false);
    assert.equal(ignored(rules, '!bang'), true);
    assert.equal(ignored(rules, 'trail'), true);
    assert.equal(ignored(rules, 'space '), true);
    assert.equal(ignored(rules, 'b.txt'), true);
    assert.equal(ignored(rules, 'd.txt'), false);
    assert.equal(ignored(rules, 'zy'), true);
    assert.equal(ignored(rules, 'xy'), false);
    assert.equal(ignored(rules, 'file1.c'), true);
    assert.equal(ignored(rules, 'file.c'), false);
    assert.equal(compileSegment('[[:digit:]]x').matches('7x'), true);
    // An unclosed class matches nothing, as in git.
    assert.equal(compileSegment('[abc').matches('[abc'), false);
  });

  it('agrees with git check-ignore on the same tree', (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-gitignore-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const gitignores: Record<string, string> = {
      '': 'build/\n*.log\n!keep.log\n/root-only.txt\ndoc/**/*.md\n**/gen/\nfoo/**\n*.o\n!important.o\ntmp*\n[Dd]ist/\n',
      sub: '!*.log\nlocal.txt\n/anchored\n',
      'sub/deeper': '*.txt\n!keep.txt\n',
    };
    const files = [
      'build/a.js',
      'sub/build/x',
      'x.log',
      'keep.log',
      'sub/y.log',
      'root-only.txt',
      'sub/root-only.txt',
      'doc/a.md',
      'doc/x/y/z.md',
      'doc/a.txt',
      'a/gen/b.c',
      'gen.c',
      'foo/bar',
      'foo/baz/qux',
      'sub/local.txt',
      'local.txt',
      'sub/anchored',
      'sub/x/anchored',
      'a.o',
      'important.o',
      'lib/important.o',
      'tmpfile',
      'dir/tmp.x',
      'Dist/a',
      'dist/b',
      'sub/deeper/a.txt',
      'sub/deeper/keep.txt',
      'sub/deeper/more/b.txt',
      'src/main.ts',
      'sub/deeper/x.log',
    ];
    for (const [folder, text] of Object.entries(gitignores)) {
      fs.mkdirSync(path.join(dir, folder), { recursive: true });
      fs.writeFileSync(path.join(dir, folder, '.gitignore'), text);
    }
    for (const file of files) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), '');
    }
    execFileSync('git', ['init', '-q'], { cwd: dir });
    let output = '';
    try {
      output = execFileSync('git', ['check-ignore', '--no-index', '--stdin'], { cwd: dir, input: files.join('\n'), encoding: 'utf8' });
    } catch (error) {
      output = (error as { stdout: string }).stdout; // exit 1: nothing ignored
    }
    const byGit = new Set(output.split('\n').filter(Boolean));
    for (const file of files) assert.equal(ignored(gitignores, file), byGit.has(file), `${file}: git says ${byGit.has(file) ? 'ignored' : 'not ignored'}`);
  });

  it('matches in linear time where a backtracking matcher would not finish', () => {
    const segment = compileSegment('*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b');
    const path = compilePathGlob('**/a/**/a/**/a/**/a/**/a/**/b');
    const text = 'a'.repeat(4096);
    const folders = Array.from({ length: 4096 }, () => 'a');
    // A backtracking matcher tries exponentially many placements of the stars here and never answers.
    assert.equal(segment.matches(text), false);
    assert.equal(path.matches(folders), false);
  });
});
