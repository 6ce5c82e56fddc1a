// A composer request's attachments, checked before anything is stored: each must be a file
// every file system Loom runs on can hold beside the others.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAttachments, MAX_NAME_BYTES, MAX_PATH_BYTES } from '../../../src/core/composer/attachments.ts';

const file = (path: string) => ({ path, content: '' });

function refused(paths: string[]): string {
  try {
    checkAttachments(paths.map(file));
  } catch (error) {
    assert.equal((error as { code?: string }).code, 'validation_error');
    return (error as Error).message;
  }
  assert.fail(`accepted ${JSON.stringify(paths)}`);
}

describe('composer attachments', () => {
  it('takes relative paths, trimmed, once each', () => {
    assert.deepEqual(
      checkAttachments([file('./src/a.ts'), file(' src/b.ts '), file('README.md')]).map((attachment) => attachment.path),
      ['src/a.ts', 'src/b.ts', 'README.md'],
    );
  });

  it('refuses a name that is a file and a folder, in either order, at any depth', () => {
    assert.match(refused(['a', 'a/b']), /^attachments\[1\]\.path needs a folder where attachments\[0\]\.path is a file/);
    assert.match(refused(['a/b', 'a']), /^attachments\[1\]\.path is a file where attachments\[0\]\.path needs a folder/);
    assert.match(refused(['src/x/y/z.ts', 'src/x']), /is a file where attachments\[0\]\.path needs a folder/);
    assert.match(refused(['src/x', 'src/x/y/z.ts']), /needs a folder where attachments\[0\]\.path is a file/);
    // Siblings and a folder shared by many files are fine.
    assert.equal(checkAttachments([file('a/b'), file('a/c'), file('a/d/e'), file('ab')]).length, 4);
  });

  it('compares names as a file system that ignores case and Unicode normalization does', () => {
    assert.match(refused(['src/A.ts', 'src/a.ts']), /^attachments\[1\]\.path and attachments\[0\]\.path are the same file/);
    assert.match(refused(['caf\u00e9.md', 'cafe\u0301.md']), /are the same file/);
    assert.match(refused(['Docs', 'docs/readme.md']), /needs a folder where attachments\[0\]\.path is a file/);
    assert.match(refused(['SRC/a.ts', 'src']), /is a file where attachments\[0\]\.path needs a folder/);
    assert.match(refused(['a.ts', './a.ts']), /^attachments\[1\]\.path repeats a\.ts\.$/);
  });

  it(`refuses a name over ${MAX_NAME_BYTES} bytes of UTF-8, and a path over ${MAX_PATH_BYTES}`, () => {
    assert.equal(checkAttachments([file(`${'n'.repeat(MAX_NAME_BYTES)}/x`)]).length, 1);
    assert.match(refused([`${'n'.repeat(MAX_NAME_BYTES + 1)}`]), /has a name of 256 bytes; file systems take names of at most 255 bytes/);
    // 86 characters of 3 bytes: 258 bytes, in 86 characters.
    assert.match(refused([`dir/${'€'.repeat(86)}`]), /has a name of 258 bytes/);
    const deep = Array.from({ length: 13 }, () => 'd'.repeat(250)).join('/');
    assert.ok(Buffer.byteLength(deep) > MAX_PATH_BYTES);
    assert.match(refused([deep]), /is 3262 bytes long; a path may have at most 3072 bytes/);
  });

  it('keeps refusing what it refused before: absolute, .., empty names, protected folders, control characters', () => {
    for (const path of ['/etc/passwd', 'C:/x', 'a\\b', '../a', 'a//b', 'a/./b', '.git/config', 'x/.loom/settings.json', 'a\u0007b', ' ']) refused([path]);
  });
});
