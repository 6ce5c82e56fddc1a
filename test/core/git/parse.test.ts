import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoomError } from '../../../src/core/errors.ts';
import { redact } from '../../../src/core/git/failures.ts';
import { parsePushPorcelain, parseRefs, parseStatus, summaryLine } from '../../../src/core/git/parse.ts';
import { checkBranchName, checkMessage, checkRemoteName } from '../../../src/core/git/validate.ts';

const Z = '0000000000000000000000000000000000000000';
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('parseStatus (porcelain v2, -z)', () => {
  it('reads the branch headers, renames, spaces, unicode, conflicts and untracked files', () => {
    const out = [
      `# branch.oid ${A}`,
      '# branch.head feature/x',
      '# branch.upstream origin/feature/x',
      '# branch.ab +2 -3',
      `1 .M N... 100644 100644 100644 ${A} ${A} dir/with space.txt`,
      `1 M. N... 100644 100644 100644 ${A} ${B} naïve – ünï.md`,
      `2 R. N... 100644 100644 100644 ${A} ${A} R100 new name.txt`,
      'old name.txt',
      `1 A. N... 000000 100644 100644 ${Z} ${A} -rf.txt`,
      `u UU N... 100644 100644 100644 100644 ${A} ${B} ${A} conflict file.txt`,
      '? untracked 📄.txt',
      '! ignored.log',
      '',
    ].join('\0');
    const status = parseStatus(out);
    assert.equal(status.branch, 'feature/x');
    assert.equal(status.detached, false);
    assert.equal(status.head, A);
    assert.equal(status.upstream, 'origin/feature/x');
    assert.equal(status.ahead, 2);
    assert.equal(status.behind, 3);
    assert.equal(status.clean, false);
    assert.deepEqual(status.files, [
      { path: 'dir/with space.txt', index: ' ', workingTree: 'M', staged: false, conflicted: false },
      { path: 'naïve – ünï.md', index: 'M', workingTree: ' ', staged: true, conflicted: false },
      { path: 'new name.txt', index: 'R', workingTree: ' ', staged: true, conflicted: false, originalPath: 'old name.txt' },
      { path: '-rf.txt', index: 'A', workingTree: ' ', staged: true, conflicted: false },
      { path: 'conflict file.txt', index: 'U', workingTree: 'U', staged: false, conflicted: true },
      { path: 'untracked 📄.txt', index: '?', workingTree: '?', staged: false, conflicted: false },
    ]);
  });

  it('reports a detached HEAD and an empty repository', () => {
    const detached = parseStatus(`# branch.oid ${A}\0# branch.head (detached)\0`);
    assert.equal(detached.branch, null);
    assert.equal(detached.detached, true);
    assert.equal(detached.head, A);
    const empty = parseStatus('# branch.oid (initial)\0# branch.head main\0');
    assert.deepEqual(empty, { branch: 'main', detached: false, head: null, upstream: null, ahead: 0, behind: 0, files: [], clean: true });
  });

  it('makes paths relative to a workspace inside the repository and drops the rest', () => {
    const out = [
      `1 .M N... 100644 100644 100644 ${A} ${A} sub/a.txt`,
      `1 .M N... 100644 100644 100644 ${A} ${A} other/b.txt`,
      `2 R. N... 100644 100644 100644 ${A} ${A} R90 sub/c.txt`,
      'sub/d.txt',
      '',
    ].join('\0');
    const status = parseStatus(out, 'sub/');
    assert.deepEqual(
      status.files.map((f) => [f.path, f.originalPath]),
      [
        ['a.txt', undefined],
        ['c.txt', 'd.txt'],
      ],
    );
  });
});

describe('parseRefs', () => {
  it('splits local and remote branches, skips origin/HEAD, knows remotes with a slash', () => {
    const out = [
      `refs/heads/main\0${A}\0refs/remotes/origin/main\0*\0`,
      `refs/heads/feature/x\0${B}\0\0 \0`,
      `refs/remotes/origin/HEAD\0${A}\0\0 \0refs/remotes/origin/main`,
      `refs/remotes/origin/main\0${A}\0\0 \0`,
      `refs/remotes/team/a/dev\0${B}\0\0 \0`,
      '',
    ].join('\n');
    const refs = parseRefs(out, ['origin', 'team/a']);
    assert.equal(refs.headBranch, 'main');
    assert.deepEqual(refs.branches, [
      { name: 'feature/x', current: false, upstream: null, head: B },
      { name: 'main', current: true, upstream: 'origin/main', head: A },
    ]);
    assert.deepEqual(refs.remotes, [
      { name: 'origin/main', remote: 'origin', head: A },
      { name: 'team/a/dev', remote: 'team/a', head: B },
    ]);
  });
});

describe('parsePushPorcelain', () => {
  it('reads flags and summaries', () => {
    const out = 'To ../bare\n!\trefs/heads/main:refs/heads/main\t[rejected] (fetch first)\nDone\n';
    assert.deepEqual(parsePushPorcelain(out), [{ flag: '!', from: 'refs/heads/main', to: 'refs/heads/main', summary: '[rejected] (fetch first)' }]);
    assert.equal(parsePushPorcelain('To x\n \trefs/heads/a:refs/heads/a\t1111111..2222222\nDone\n')[0]?.flag, ' ');
  });
});

describe('input checks', () => {
  const refused = (fn: () => unknown, code: string) => assert.throws(fn, (error: unknown) => error instanceof LoomError && error.code === code);

  it('accepts ordinary branch names', () => {
    for (const name of ['main', 'feature/login', 'release-1.2', 'fix_äöü', 'a.b/c-d', 'x'.repeat(250), `a/${'b'.repeat(250)}`])
      assert.equal(checkBranchName(name), name);
  });

  it('refuses branch names that are options, revision expressions or invalid refs', () => {
    for (const name of [
      '--upload-pack=evil',
      '-f',
      '',
      'a..b',
      'a b',
      'a~1',
      'a^',
      'a:b',
      'a?',
      'a*',
      'a[',
      'a\\b',
      '@',
      'HEAD',
      'a@{1}',
      '/a',
      'a/',
      'a//b',
      '.a',
      'a/.b',
      'a.lock',
      'a/b.lock/c',
      'a.',
      'a\nb',
      'a\0b',
      'x'.repeat(256),
      // git writes `<component>.lock`: a file name of at most 255 bytes.
      'x'.repeat(251),
      // Invisible, or shown as something else: a byte-order mark, a no-break space, bidirectional overrides.
      '\ufeff',
      'main\u00a0',
      'feature/\u202eexe.txt',
      'a\u200bb',
      `feature/${'é'.repeat(126)}`,
    ]) {
      refused(() => checkBranchName(name), 'invalid_ref');
    }
    refused(() => checkBranchName(42), 'invalid_ref');
  });

  it('refuses remote names outside [A-Za-z0-9._-] or starting with -', () => {
    assert.equal(checkRemoteName('origin'), 'origin');
    assert.equal(checkRemoteName('my_fork.2'), 'my_fork.2');
    for (const name of ['--upload-pack=evil', '-x', '', '.', '..', 'ext::sh', 'https://example.com/x.git', 'a/b', '/tmp/x', 'a b']) {
      refused(() => checkRemoteName(name), 'invalid_ref');
    }
  });

  it('checks commit messages', () => {
    assert.equal(checkMessage('Fix it'), 'Fix it');
    assert.equal(checkMessage('x'.repeat(10_000)).length, 10_000);
    refused(() => checkMessage(''), 'validation_error');
    refused(() => checkMessage(' \n\t '), 'validation_error');
    refused(() => checkMessage('x'.repeat(10_001)), 'validation_error');
    refused(() => checkMessage('a\0b'), 'validation_error');
    refused(() => checkMessage(undefined), 'validation_error');
  });

  it('takes the first non-blank line as the summary', () => {
    assert.equal(summaryLine('\n\nFirst line  \n\nbody'), 'First line');
    assert.equal(summaryLine('#12 keep hashes'), '#12 keep hashes');
  });

  it('hides credentials in URLs', () => {
    assert.equal(redact("fatal: unable to access 'https://user:ghp_secret@github.com/a/b.git/'"), "fatal: unable to access 'https://***@github.com/a/b.git/'");
  });
});
