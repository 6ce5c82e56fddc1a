// The server's own folders never leave it in an error's text: each registered folder, and a
// session's scratch copy, is hidden wherever it appears, and only where its name ends.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { hidePrivatePaths, registerPrivateFolder } from '../../../src/core/files/private-folders.ts';
import { LoomError } from '../../../src/core/errors.ts';
import { describeError } from '../../../src/http/errors.ts';

describe('private folders', () => {
  it('hides a registered folder, by every spelling, and a scratch copy as nothing', (t) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-private-'));
    t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    registerPrivateFolder(`${dataDir}/`, '<data dir>');
    const scratch = path.join(dataDir, 'composer', 'scratch', 'c0ffee');
    assert.equal(
      hidePrivatePaths(`ENOENT: no such file or directory, open '${dataDir}/loom.db'`),
      "ENOENT: no such file or directory, open '<data dir>/loom.db'",
    );
    assert.equal(hidePrivatePaths(`in ${dataDir}: full`), 'in <data dir>: full');
    assert.equal(hidePrivatePaths(`${fs.realpathSync.native(dataDir)}/x`), '<data dir>/x');
    assert.equal(
      hidePrivatePaths(`ENOTDIR: not a directory, mkdir '${scratch}/a/b'`, [{ folder: scratch, shownAs: '' }]),
      "ENOTDIR: not a directory, mkdir 'a/b'",
    );
    // Without the scratch copy named, the data dir hides it still.
    assert.equal(hidePrivatePaths(`${scratch}/a`), '<data dir>/composer/scratch/c0ffee/a');
    // A longer name that starts the same is another folder.
    assert.equal(hidePrivatePaths(`${dataDir}-other/x`), `${dataDir}-other/x`);
    assert.equal(hidePrivatePaths('No route GET /api/v1/x.'), 'No route GET /api/v1/x.');
  });

  it('hides them in every error answer (describeError): message and hint', (t) => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-private-'));
    t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
    registerPrivateFolder(folder, '<composer folder>');
    const { body } = describeError(new LoomError('file_system_error', `cannot write ${folder}/scratch/x`, `free ${folder}`));
    assert.equal(body.message, 'cannot write <composer folder>/scratch/x');
    assert.equal(body.hint, 'free <composer folder>');
    assert.ok(!JSON.stringify(body).includes(folder));
  });
});
