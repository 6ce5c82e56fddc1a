// File-system failures through the editor routes: each is a 4xx in the local envelope with
// its own code, never a 500, never a hang (a FIFO is refused before it is read), and the
// server keeps serving.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { startTestLocal, type TestLocal } from '../support/local.ts';

const isRoot = process.getuid?.() === 0;

/** Asserts a 4xx in the local envelope with `code`. */
function assertRefused(res: { status: number; json: any; text: string }, status: number, code: string, label: string): void {
  assert.equal(res.status, status, `${label}: ${res.text}`);
  assert.equal(res.json?.error?.code, code, `${label}: ${res.text}`);
  assert.equal(typeof res.json.error.message, 'string');
}

describe('editor and file-system failures', () => {
  let local: TestLocal;
  before(async () => {
    local = await startTestLocal({ files: { 'a.txt': 'a\n', 'plain.txt': 'plain\n' } });
    const ws = local.workspace;
    fs.symlinkSync('loop-b', path.join(ws, 'loop-a'));
    fs.symlinkSync('loop-a', path.join(ws, 'loop-b'));
    fs.mkdirSync(path.join(ws, 'folder'));
    execFileSync('mkfifo', [path.join(ws, 'pipe')]);
  });
  after(() => local.close());

  const cases: [label: string, target: string, status: number, code: string][] = [
    ['a symlink loop (ELOOP)', 'loop-a', 400, 'SYMLINK_LOOP'],
    ['a path through a symlink loop', 'loop-a/x.txt', 400, 'SYMLINK_LOOP'],
    ['a 256-character name (ENAMETOOLONG)', 'n'.repeat(256), 400, 'NAME_TOO_LONG'],
    ['a folder', 'folder', 400, 'NOT_A_FILE'],
    ['the workspace folder', '.', 400, 'NOT_A_FILE'],
    ['a FIFO, without blocking on it', 'pipe', 400, 'NOT_A_FILE'],
    ['a file used as a folder (ENOTDIR)', 'a.txt/b', 400, 'NOT_A_FOLDER'],
    ['a missing file', 'missing.txt', 404, 'NOT_FOUND'],
  ];
  for (const [label, target, status, code] of cases) {
    it(`open: ${label} is ${status} ${code}`, async () => {
      assertRefused(await local.request('POST', '/api/editor/open', { path: target }), status, code, label);
    });
  }

  // text, insert, replace and save name a path: the ones that cannot be resolved fail the same
  // way; those that resolve but are not open documents are 404 "not open".
  const routes: [string, string, (target: string) => unknown][] = [
    ['GET', '/api/editor/text', () => undefined],
    ['POST', '/api/editor/insert', (target) => ({ path: target, text: 'x' })],
    ['POST', '/api/editor/replace', (target) => ({ path: target, text: 'x', startLine: 1, startColumn: 1, endLine: 1, endColumn: 1 })],
    ['POST', '/api/editor/save', (target) => ({ path: target })],
    ['POST', '/api/editor/reload', (target) => ({ path: target })],
    ['POST', '/api/editor/close', (target) => ({ path: target })],
  ];
  for (const [method, route, body] of routes) {
    it(`${route}: every failing path is a 4xx with its code`, async () => {
      for (const [label, target, status, code] of cases) {
        const url = method === 'GET' ? `${route}?path=${encodeURIComponent(target)}` : route;
        const res = await local.request(method, url, body(target));
        const unresolvable = code === 'SYMLINK_LOOP' || code === 'NAME_TOO_LONG';
        if (unresolvable) assertRefused(res, status, code, `${route} ${label}`);
        else assertRefused(res, 404, 'NOT_FOUND', `${route} ${label}`);
      }
    });
  }

  it('keeps serving after all of that', async () => {
    assert.equal((await local.request('POST', '/api/editor/open', { path: 'plain.txt' })).status, 200);
  });
});

describe('saving when the disk fails', () => {
  async function opened(t: TestContext, files: Record<string, string>, open: string): Promise<TestLocal> {
    const local = await startTestLocal({ files });
    t.after(() => local.close());
    assert.equal((await local.request('POST', '/api/editor/open', { path: open })).status, 200);
    assert.equal((await local.request('POST', '/api/editor/insert', { text: 'edited ' })).status, 200);
    return local;
  }

  it('a file replaced by a folder: 400 NOT_A_FILE, the folder untouched', async (t) => {
    const local = await opened(t, { 'doc.txt': 'doc\n' }, 'doc.txt');
    fs.rmSync(path.join(local.workspace, 'doc.txt'));
    fs.mkdirSync(path.join(local.workspace, 'doc.txt'));
    assertRefused(await local.request('POST', '/api/editor/save', { overwrite: true }), 400, 'NOT_A_FILE', 'save over a folder');
    assert.deepEqual(fs.readdirSync(path.join(local.workspace, 'doc.txt')), []);
    assert.deepEqual(
      fs.readdirSync(local.workspace).filter((name) => name.endsWith('.tmp')),
      [],
      'no temporary file left',
    );
  });

  it('a folder replaced by a file: 400 NOT_A_FOLDER', async (t) => {
    const local = await opened(t, { 'dir/doc.txt': 'doc\n' }, 'dir/doc.txt');
    fs.rmSync(path.join(local.workspace, 'dir'), { recursive: true });
    fs.writeFileSync(path.join(local.workspace, 'dir'), 'now a file\n');
    assertRefused(await local.request('POST', '/api/editor/save', {}), 400, 'NOT_A_FOLDER', 'save under a file');
    assert.equal(fs.readFileSync(path.join(local.workspace, 'dir'), 'utf8'), 'now a file\n');
  });

  it('a file replaced by a FIFO is read as nothing and saved over, never read', async (t) => {
    const local = await opened(t, { 'doc.txt': 'doc\n' }, 'doc.txt');
    fs.rmSync(path.join(local.workspace, 'doc.txt'));
    execFileSync('mkfifo', [path.join(local.workspace, 'doc.txt')]);
    const listed = await local.request('GET', '/api/editor/documents');
    assert.equal(listed.status, 200);
    assert.equal(listed.json.documents[0].conflict, true);
    assertRefused(await local.request('POST', '/api/editor/reload', {}), 400, 'NOT_A_FILE', 'reload a FIFO');
    assert.equal((await local.request('POST', '/api/editor/save', { overwrite: true })).status, 200);
    assert.equal(fs.readFileSync(path.join(local.workspace, 'doc.txt'), 'utf8'), 'edited doc\n');
  });

  it('a folder Loom may not write in: 403 PERMISSION_DENIED, the file unchanged', async (t) => {
    const local = await opened(t, { 'locked/doc.txt': 'doc\n' }, 'locked/doc.txt');
    const folder = path.join(local.workspace, 'locked');
    let unlock: () => void;
    if (isRoot) {
      // Permissions do not stop root; an immutable folder does (EPERM).
      try {
        execFileSync('chattr', ['+i', folder], { stdio: 'ignore' });
      } catch {
        t.skip('running as root without chattr +i on this file system');
        return;
      }
      unlock = () => execFileSync('chattr', ['-i', folder]);
    } else {
      fs.chmodSync(folder, 0o555);
      unlock = () => fs.chmodSync(folder, 0o755);
    }
    try {
      assertRefused(await local.request('POST', '/api/editor/save', {}), 403, 'PERMISSION_DENIED', 'save into a locked folder');
      assert.equal(fs.readFileSync(path.join(folder, 'doc.txt'), 'utf8'), 'doc\n');
      assert.equal((await local.request('GET', '/api/editor/file')).json.dirty, true, 'the edits are kept');
    } finally {
      unlock(); // before the workspace is removed
    }
  });

  it('an unreadable file: 403 PERMISSION_DENIED on open', { skip: isRoot && 'root reads every file' }, async (t) => {
    const local = await startTestLocal({ files: { 'secret.txt': 'x\n' } });
    t.after(() => local.close());
    fs.chmodSync(path.join(local.workspace, 'secret.txt'), 0);
    assertRefused(await local.request('POST', '/api/editor/open', { path: 'secret.txt' }), 403, 'PERMISSION_DENIED', 'open unreadable');
  });

  it('saves a file whose name is near the 255-byte limit (the temporary name stays short)', async (t) => {
    const name = `${'l'.repeat(251)}.txt`;
    const local = await opened(t, { [name]: 'long\n' }, name);
    assert.equal((await local.request('POST', '/api/editor/save', {})).status, 200);
    assert.equal(fs.readFileSync(path.join(local.workspace, name), 'utf8'), 'edited long\n');
  });
});
