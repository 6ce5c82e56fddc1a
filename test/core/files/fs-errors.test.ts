// One mapping from file-system failures to the error table: every errno answers a 4xx with its
// own code; a bug (not an errno) stays what it is; and reading never blocks on a FIFO.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import fc from 'fast-check';
import { ERROR_CODES } from '../../../src/contracts/errors.ts';
import { LoomError } from '../../../src/core/errors.ts';
import { fileSystemError } from '../../../src/core/files/fs-errors.ts';
import { readRegularBytes, readRegularFile } from '../../../src/core/files/read-regular.ts';

const errno = (code: string) => Object.assign(new Error(`${code}: failed, open '/secret/abs/path'`), { code, syscall: 'open', path: '/secret/abs/path' });

describe('fileSystemError', () => {
  const expected: [string, string, number][] = [
    ['ENOENT', 'not_found', 404],
    ['ELOOP', 'symlink_loop', 400],
    ['ENAMETOOLONG', 'name_too_long', 400],
    ['EISDIR', 'not_a_file', 400],
    ['ENXIO', 'not_a_file', 400],
    ['ENOTDIR', 'not_a_folder', 400],
    ['EACCES', 'permission_denied', 403],
    ['EPERM', 'permission_denied', 403],
    ['EROFS', 'read_only_file_system', 403],
    ['EEXIST', 'already_exists', 409],
    ['ENOTEMPTY', 'folder_not_empty', 409],
    ['ENOSPC', 'disk_full', 409],
    ['EDQUOT', 'disk_full', 409],
    ['EMFILE', 'file_system_busy', 409],
    ['ENFILE', 'file_system_busy', 409],
    ['EBUSY', 'file_system_busy', 409],
    ['EFBIG', 'payload_too_large', 413],
    ['EIO', 'file_system_error', 409],
    ['EXDEV', 'file_system_error', 409],
  ];
  for (const [code, loomCode, status] of expected) {
    it(`maps ${code} to ${status} ${loomCode}, naming the path as the caller knows it`, () => {
      const error = fileSystemError(errno(code), 'src/a.ts');
      assert.equal(error.code, loomCode);
      assert.equal(ERROR_CODES[error.code].status, status);
      assert.match(error.message, /^src\/a\.ts/);
      assert.match(error.message, new RegExp(code));
      assert.doesNotMatch(error.message, /secret/, 'no absolute path of the machine');
    });
  }

  it('answers a 4xx for any errno at all (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^E[A-Z0-9]{1,12}$/), (code) => {
        const status = ERROR_CODES[fileSystemError(errno(code), 'x').code].status;
        assert.ok(status >= 400 && status < 500, `${code} → ${status}`);
      }),
    );
  });

  it('passes a LoomError through and re-throws what is not an operating-system failure', () => {
    const own = new LoomError('protected_path', 'no');
    assert.equal(fileSystemError(own, 'x'), own);
    const bug = Object.assign(new TypeError('The "path" argument must be of type string'), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(
      () => fileSystemError(bug, 'x'),
      (error) => error === bug,
    );
    assert.throws(() => fileSystemError(new Error('plain'), 'x'), /plain/);
  });
});

describe('reading regular files only', () => {
  function fifo(t: TestContext): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-fifo-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'pipe.ts');
    execFileSync('mkfifo', [file]);
    return file;
  }

  it('refuses a FIFO without waiting for a writer', async (t) => {
    const file = fifo(t);
    assert.throws(
      () => readRegularFile(file, 'pipe.ts', 1024),
      (error: LoomError) => error.code === 'not_a_file' && /FIFO/.test(error.message),
    );
    assert.equal(await readRegularBytes(file, 1024), undefined);
  });

  it('refuses a folder and a file over the limit, and reads the rest', (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-read-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, 'a.txt'), 'héllo');
    assert.throws(
      () => readRegularFile(dir, 'dir', 1024),
      (error: LoomError) => error.code === 'not_a_file',
    );
    assert.throws(
      () => readRegularFile(path.join(dir, 'a.txt'), 'a.txt', 3),
      (error: LoomError) => error.code === 'payload_too_large',
    );
    assert.throws(
      () => readRegularFile(path.join(dir, 'missing'), 'missing', 3),
      (error: LoomError) => error.code === 'not_found',
    );
    assert.equal(readRegularFile(path.join(dir, 'a.txt'), 'a.txt', 1024).text, 'héllo');
  });
});
