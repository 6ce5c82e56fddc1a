// A document whose file changed on disk while it had unsaved edits: save refuses to overwrite
// the other change, and the user has three ways out (reload, overwrite, close with discard).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

/** A server with `doc.txt` open, edited, and changed on disk by another program. */
async function conflicted(t: TestContext): Promise<TestLocal> {
  const local = await startTestLocal({ files: { 'doc.txt': 'one\n', 'other.txt': 'other\n' } });
  t.after(() => local.close());
  assert.equal((await local.request('POST', '/api/editor/open', { path: 'doc.txt' })).status, 200);
  assert.equal((await local.request('POST', '/api/editor/insert', { text: 'mine ' })).status, 200);
  local.write('doc.txt', 'theirs, and longer\n');
  return local;
}

const onDisk = (local: TestLocal) => fs.readFileSync(path.join(local.workspace, 'doc.txt'), 'utf8');
const text = async (local: TestLocal) => (await local.request('GET', '/api/editor/text')).json.text;

/** The events of one type the server emits from now on. */
function record(local: TestLocal, type: string): { type: string; data: any }[] {
  const seen: { type: string; data: any }[] = [];
  local.events.subscribe((event) => {
    if (event.type === type) seen.push(event);
  });
  return seen;
}

describe('editor conflicts with the disk', () => {
  it('refuses to save over the other change with 409 EDIT_CONFLICT that names the ways out, also after reopening', async (t) => {
    const local = await conflicted(t);
    const saved = await local.request('POST', '/api/editor/save', {});
    assert.equal(saved.status, 409);
    assert.equal(saved.json.error.code, 'EDIT_CONFLICT');
    assert.match(saved.json.error.hint, /reload/);
    assert.match(saved.json.error.hint, /overwrite/);
    assert.equal(onDisk(local), 'theirs, and longer\n');
    const reopened = await local.request('POST', '/api/editor/open', { path: 'doc.txt' });
    assert.equal(reopened.json.conflict, true);
    assert.equal(reopened.json.dirty, true);
    assert.equal(await text(local), 'mine one\n', 'reopening keeps the edits');
    const file = await local.request('GET', '/api/editor/file');
    assert.deepEqual([file.json.conflict, file.json.dirty], [true, true]);
    assert.equal((await local.request('POST', '/api/editor/save', {})).status, 409);
  });

  it('reload discards the edits, takes the disk, emits file:open with reloaded, and saving works again', async (t) => {
    const local = await conflicted(t);
    const opened = record(local, 'file:open');
    const before = (await local.request('GET', '/api/editor/file')).json.version;
    const reloaded = await local.request('POST', '/api/editor/reload', {});
    assert.equal(reloaded.status, 200, reloaded.text);
    assert.deepEqual([reloaded.json.dirty, reloaded.json.conflict], [false, false]);
    assert.ok(reloaded.json.version > before);
    assert.equal(await text(local), 'theirs, and longer\n');
    await waitFor(() => opened.length === 1);
    assert.deepEqual(opened[0]!.data, { path: 'doc.txt', language: 'plaintext', reloaded: true });
    assert.equal((await local.request('POST', '/api/editor/insert', { text: 'then mine ', line: 1, column: 1 })).status, 200);
    assert.equal((await local.request('POST', '/api/editor/save', {})).status, 200);
    assert.equal(onDisk(local), 'then mine theirs, and longer\n');
  });

  it('save with overwrite replaces the change on disk and emits file:save', async (t) => {
    const local = await conflicted(t);
    const saves = record(local, 'file:save');
    const saved = await local.request('POST', '/api/editor/save', { path: 'doc.txt', overwrite: true });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual([saved.json.dirty, saved.json.conflict], [false, false]);
    assert.equal(onDisk(local), 'mine one\n');
    await waitFor(() => saves.length === 1);
    assert.equal(saves[0]!.data.path, 'doc.txt');
    // No conflict left: the next edit saves without overwrite.
    await local.request('POST', '/api/editor/insert', { text: '!' });
    assert.equal((await local.request('POST', '/api/editor/save', {})).status, 200);
  });

  it('close refuses unsaved edits with 409 UNSAVED_CHANGES, closes with discard, and reopening reads the disk', async (t) => {
    const local = await conflicted(t);
    const refused = await local.request('POST', '/api/editor/close', {});
    assert.equal(refused.status, 409);
    assert.equal(refused.json.error.code, 'UNSAVED_CHANGES');
    assert.match(refused.json.error.hint, /discard/);
    const closed = await local.request('POST', '/api/editor/close', { discard: true });
    assert.equal(closed.status, 200, closed.text);
    assert.deepEqual(closed.json, { path: 'doc.txt', active: null });
    assert.equal((await local.request('GET', '/api/editor/file')).json.error.code, 'NO_ACTIVE_FILE');
    const reopened = await local.request('POST', '/api/editor/open', { path: 'doc.txt' });
    assert.deepEqual([reopened.json.dirty, reopened.json.conflict, reopened.json.version], [false, false, 1]);
    assert.equal(await text(local), 'theirs, and longer\n');
  });

  it('a deleted file: reload is 404 and keeps the edits; save writes it again', async (t) => {
    const local = await conflicted(t);
    fs.rmSync(path.join(local.workspace, 'doc.txt'));
    const reloaded = await local.request('POST', '/api/editor/reload', {});
    assert.equal(reloaded.status, 404);
    assert.equal(reloaded.json.error.code, 'NOT_FOUND');
    assert.equal(await text(local), 'mine one\n');
    assert.equal((await local.request('POST', '/api/editor/save', {})).status, 200);
    assert.equal(onDisk(local), 'mine one\n');
  });

  it('refuses overwrite and discard that are not booleans', async (t) => {
    const local = await conflicted(t);
    for (const [route, body] of [
      ['save', { overwrite: 'yes' }],
      ['close', { discard: 1 }],
      ['reload', { force: true }],
    ] as const) {
      const res = await local.request('POST', `/api/editor/${route}`, body);
      assert.equal(res.status, 400, route);
      assert.equal(res.json.error.code, 'VALIDATION_ERROR');
    }
    assert.equal(onDisk(local), 'theirs, and longer\n');
  });
});

describe('closing documents', () => {
  it('makes the most recently activated other document active, and closes clean ones without discard', async (t) => {
    const local = await startTestLocal({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' } });
    t.after(() => local.close());
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'a.txt']) await local.request('POST', '/api/editor/open', { path: name });
    assert.deepEqual((await local.request('POST', '/api/editor/close', {})).json, { path: 'a.txt', active: 'c.txt' });
    assert.deepEqual((await local.request('POST', '/api/editor/close', { path: 'b.txt' })).json, { path: 'b.txt', active: 'c.txt' });
    assert.equal((await local.request('GET', '/api/editor/file')).json.path, 'c.txt');
    const listed = await local.request('GET', '/api/editor/documents');
    assert.deepEqual(
      listed.json.documents.map((d: { path: string }) => d.path),
      ['c.txt'],
    );
    const notOpen = await local.request('POST', '/api/editor/close', { path: 'a.txt' });
    assert.equal(notOpen.status, 404);
  });
});
