// POST /api/files/create, /rename and /delete through the real server: what they change on
// disk, the open documents following a rename and closing on a deletion, the events (on
// /events and to a webhook), the code index taking the change in, and every hostile path
// refused with a 4xx in the documented error shape, nothing changed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import WebSocket from 'ws';
import { startReceiver } from '../core/webhooks/support.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

/** Every entry under `root` (symlinks not followed) with a file's content: a snapshot to compare. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      const key = path.relative(root, full);
      if (entry.isSymbolicLink()) out[key] = `-> ${fs.readlinkSync(full)}`;
      else if (entry.isDirectory()) {
        out[key] = '<folder>';
        walk(full);
      } else out[key] = fs.readFileSync(full, 'utf8');
    }
  };
  walk(root);
  return out;
}

/** Opens /events with the token; the messages it got so far. */
async function listen(t: TestContext, local: TestLocal): Promise<any[]> {
  const events: any[] = [];
  const socket = new WebSocket(`ws://127.0.0.1:${local.port}/events`, { headers: { authorization: `Bearer ${local.token()}` } });
  t.after(() => socket.terminate());
  socket.on('message', (data) => events.push(JSON.parse(String(data))));
  await waitFor(() => events.length > 0, undefined, 'the hello');
  return events;
}

describe('file operations', () => {
  let local: TestLocal;
  const at = (relative: string) => path.join(local.workspace, relative);

  before(async () => {
    local = await startTestLocal({ files: { 'src/a.ts': 'export const a = 1;\n', 'src/lib/b.ts': 'export const b = 2;\n', 'notes.md': '# notes\n' } });
  });
  after(() => local?.close());

  it('creates files and folders, with the folders on their way, and says so on /events', async (t) => {
    const events = await listen(t, local);
    const file = await local.request('POST', '/api/files/create', { path: 'new/deep/c.ts', text: 'export {};\n' });
    assert.equal(file.status, 200, file.text);
    assert.deepEqual(file.json, { path: 'new/deep/c.ts', kind: 'file' });
    assert.equal(fs.readFileSync(at('new/deep/c.ts'), 'utf8'), 'export {};\n');
    const empty = await local.request('POST', '/api/files/create', { path: './empty.txt' });
    assert.deepEqual(empty.json, { path: 'empty.txt', kind: 'file' });
    assert.equal(fs.readFileSync(at('empty.txt'), 'utf8'), '');
    const folder = await local.request('POST', '/api/files/create', { path: 'assets\\icons', kind: 'folder' });
    assert.deepEqual(folder.json, { path: 'assets/icons', kind: 'folder' });
    assert.ok(fs.statSync(at('assets/icons')).isDirectory());
    await waitFor(() => events.filter((event) => event.type === 'file:create').length === 3, undefined, 'three file:create events');
    assert.deepEqual(
      events.filter((event) => event.type === 'file:create').map((event) => event.data),
      [
        { path: 'new/deep/c.ts', kind: 'file' },
        { path: 'empty.txt', kind: 'file' },
        { path: 'assets/icons', kind: 'folder' },
      ],
    );
    const listed = await local.request('GET', '/api/files?path=assets');
    assert.deepEqual(listed.json.entries, [{ name: 'icons', path: 'assets/icons', kind: 'folder' }]);
  });

  it('never replaces what exists (409 ALREADY_EXISTS), nor gives a folder text', async () => {
    const before = snapshot(local.workspace);
    for (const body of [
      { path: 'src/a.ts', text: 'gone' },
      { path: 'src', kind: 'folder' },
      { path: 'src', text: 'x' },
      { path: 'src/a.ts', kind: 'folder' },
    ]) {
      const answer = await local.request('POST', '/api/files/create', body);
      assert.equal(answer.status, 409, JSON.stringify(body));
      assert.equal(answer.json.error.code, 'ALREADY_EXISTS');
      assert.match(answer.json.error.message, /already exists/);
    }
    const folderText = await local.request('POST', '/api/files/create', { path: 'fresh', kind: 'folder', text: 'x' });
    assert.deepEqual([folderText.status, folderText.json.error.code], [400, 'VALIDATION_ERROR']);
    assert.deepEqual(snapshot(local.workspace), before);
  });

  it('renames a file whose document is open with unsaved edits: the document follows, edits and all', async (t) => {
    const events = await listen(t, local);
    await local.request('POST', '/api/editor/open', { path: 'src/a.ts' });
    await local.request('POST', '/api/editor/insert', { path: 'src/a.ts', text: '// unsaved\n', line: 1, column: 1 });
    const renamed = await local.request('POST', '/api/files/rename', { from: 'src/a.ts', to: 'src/moved/a2.ts' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(renamed.json, { from: 'src/a.ts', to: 'src/moved/a2.ts', kind: 'file', documents: [{ from: 'src/a.ts', to: 'src/moved/a2.ts' }] });
    assert.ok(!fs.existsSync(at('src/a.ts')));
    assert.equal(fs.readFileSync(at('src/moved/a2.ts'), 'utf8'), 'export const a = 1;\n');
    const { documents } = (await local.request('GET', '/api/editor/documents')).json;
    const moved = documents.find((document: { path: string }) => document.path === 'src/moved/a2.ts');
    assert.ok(moved, JSON.stringify(documents));
    assert.equal(moved.dirty, true);
    assert.equal(moved.active, true);
    assert.ok(!documents.some((document: { path: string }) => document.path === 'src/a.ts'));
    assert.equal((await local.request('GET', '/api/editor/file')).json.path, 'src/moved/a2.ts');
    const saved = await local.request('POST', '/api/editor/save', { path: 'src/moved/a2.ts' });
    assert.equal(saved.status, 200, saved.text);
    assert.equal(fs.readFileSync(at('src/moved/a2.ts'), 'utf8'), '// unsaved\nexport const a = 1;\n');
    assert.ok(!fs.existsSync(at('src/a.ts')), 'the save wrote the new path, not the old one');
    await waitFor(() => events.some((event) => event.type === 'file:rename'), undefined, 'file:rename');
    assert.deepEqual(events.find((event) => event.type === 'file:rename').data, { from: 'src/a.ts', to: 'src/moved/a2.ts', kind: 'file' });
  });

  it('renames a folder: the documents under it follow; then refuses a missing source, an existing target, a move into itself', async () => {
    await local.request('POST', '/api/editor/open', { path: 'src/lib/b.ts' });
    const renamed = await local.request('POST', '/api/files/rename', { from: 'src/lib', to: 'lib2' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(renamed.json.documents, [{ from: 'src/lib/b.ts', to: 'lib2/b.ts' }]);
    assert.equal(renamed.json.kind, 'folder');
    assert.equal((await local.request('GET', '/api/editor/text?path=lib2/b.ts')).json.text, 'export const b = 2;\n');

    const before = snapshot(local.workspace);
    const refused: [object, number, string][] = [
      [{ from: 'nothing.ts', to: 'x.ts' }, 404, 'NOT_FOUND'],
      [{ from: 'notes.md', to: 'lib2/b.ts' }, 409, 'ALREADY_EXISTS'],
      [{ from: 'notes.md', to: 'lib2' }, 409, 'ALREADY_EXISTS'],
      [{ from: 'lib2', to: 'lib2/inner' }, 400, 'VALIDATION_ERROR'],
      [{ from: 'notes.md', to: 'notes.md' }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [body, status, code] of refused) {
      const answer = await local.request('POST', '/api/files/rename', body);
      assert.deepEqual([answer.status, answer.json.error.code], [status, code], JSON.stringify(body));
      assert.equal(typeof answer.json.error.message, 'string');
    }
    assert.deepEqual(snapshot(local.workspace), before);
  });

  it('deletes a file and a folder with everything in it, closing their documents; unsaved edits need discard', async (t) => {
    const events = await listen(t, local);
    await local.request('POST', '/api/editor/open', { path: 'notes.md' });
    const file = await local.request('POST', '/api/files/delete', { path: 'notes.md' });
    assert.equal(file.status, 200, file.text);
    assert.deepEqual(file.json, { path: 'notes.md', kind: 'file', closed: ['notes.md'] });
    assert.ok(!fs.existsSync(at('notes.md')));

    await local.request('POST', '/api/editor/insert', { path: 'lib2/b.ts', text: 'x', line: 1, column: 1 });
    const dirty = await local.request('POST', '/api/files/delete', { path: 'lib2' });
    assert.deepEqual([dirty.status, dirty.json.error.code], [409, 'UNSAVED_CHANGES']);
    assert.match(dirty.json.error.message, /lib2\/b\.ts has unsaved edits/);
    assert.ok(fs.existsSync(at('lib2/b.ts')));
    const folder = await local.request('POST', '/api/files/delete', { path: 'lib2', discard: true });
    assert.equal(folder.status, 200, folder.text);
    assert.deepEqual(folder.json, { path: 'lib2', kind: 'folder', closed: ['lib2/b.ts'] });
    assert.ok(!fs.existsSync(at('lib2')));
    const { documents } = (await local.request('GET', '/api/editor/documents')).json;
    assert.ok(!documents.some((document: { path: string }) => ['notes.md', 'lib2/b.ts'].includes(document.path)));

    const missing = await local.request('POST', '/api/files/delete', { path: 'lib2' });
    assert.deepEqual([missing.status, missing.json.error.code], [404, 'NOT_FOUND']);
    await waitFor(() => events.filter((event) => event.type === 'file:delete').length === 2, undefined, 'two file:delete events');
    assert.deepEqual(
      events.filter((event) => event.type === 'file:delete').map((event) => event.data),
      [
        { path: 'notes.md', kind: 'file' },
        { path: 'lib2', kind: 'folder' },
      ],
    );
  });
});

describe('file operations refuse hostile paths', () => {
  it('answers 4xx in the error shape and changes nothing: .., absolute, .git, .loom, nested repositories, links out, huge names', async (t) => {
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-fileops-ws-')));
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-fileops-out-')));
    t.after(() => {
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    });
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: workspace, env: GIT_ENV });
    fs.mkdirSync(path.join(workspace, 'src'));
    fs.writeFileSync(path.join(workspace, 'src/a.ts'), 'a\n');
    fs.mkdirSync(path.join(workspace, '.loom'));
    fs.writeFileSync(path.join(workspace, '.loom/settings.json'), '{}\n');
    fs.mkdirSync(path.join(workspace, 'vendor/lib'), { recursive: true });
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: path.join(workspace, 'vendor/lib'), env: GIT_ENV });
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
    fs.symlinkSync(outside, path.join(workspace, 'out'));
    // Loom's own config folder inside the workspace (loom serve --workspace ~).
    const configDir = path.join(workspace, '.config', 'loom');
    fs.mkdirSync(configDir, { recursive: true });
    const local = await startTestLocal({ workspace, configDir });
    t.after(() => local.close());
    const before = snapshot(workspace);
    const beforeOutside = snapshot(outside);

    const huge = 'n'.repeat(300);
    const cases: [string, object, number, string][] = [
      ['/api/files/create', { path: '../escaped.txt' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: 'src/../../escaped.txt' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: '/tmp/escaped.txt' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: `${workspace}/src/abs.txt` }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: 'C:\\escaped.txt' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: 'src/line\nbreak.txt' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: 'src/nul\u0000.txt' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: '.' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: '' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: 'src/   ' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: `src/${huge}.ts` }, 400, 'NAME_TOO_LONG'],
      ['/api/files/create', { path: `${'d/'.repeat(2100)}x` }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: 'src/x.ts', kind: 'link' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: 'src/x.ts', extra: true }, 400, 'VALIDATION_ERROR'],
      ['/api/files/create', { path: '.git/hooks/pre-commit', text: '#!/bin/sh\n' }, 403, 'PROTECTED_PATH'],
      ['/api/files/create', { path: '.GIT/config' }, 403, 'PROTECTED_PATH'],
      ['/api/files/create', { path: 'src/.git', kind: 'folder' }, 403, 'PROTECTED_PATH'],
      ['/api/files/create', { path: '.loom/extensions/x/extension.js' }, 403, 'PROTECTED_PATH'],
      ['/api/files/create', { path: 'vendor/lib/.git/evil' }, 403, 'PROTECTED_PATH'],
      ['/api/files/create', { path: '.config/loom/settings.json', text: '{}' }, 403, 'PROTECTED_PATH'],
      ['/api/files/create', { path: 'out/planted.txt' }, 403, 'FORBIDDEN_PATH'],
      ['/api/files/rename', { from: 'src/a.ts', to: '../a.ts' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/rename', { from: 'src/a.ts', to: '.git/a.ts' }, 403, 'PROTECTED_PATH'],
      ['/api/files/rename', { from: 'src/a.ts', to: 'out/a.ts' }, 403, 'FORBIDDEN_PATH'],
      ['/api/files/rename', { from: '.git', to: 'git-backup' }, 403, 'PROTECTED_PATH'],
      ['/api/files/rename', { from: '.loom', to: 'loom' }, 403, 'PROTECTED_PATH'],
      ['/api/files/rename', { from: 'vendor', to: 'vendored' }, 403, 'PROTECTED_PATH'],
      ['/api/files/rename', { from: '.config', to: 'config' }, 403, 'PROTECTED_PATH'],
      ['/api/files/rename', { from: 'src/a.ts', to: `src/${huge}` }, 400, 'NAME_TOO_LONG'],
      ['/api/files/rename', { from: 'src/a.ts' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/delete', { path: '.' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/delete', { path: './' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/delete', { path: '..' }, 400, 'VALIDATION_ERROR'],
      ['/api/files/delete', { path: workspace }, 400, 'VALIDATION_ERROR'],
      ['/api/files/delete', { path: '.git' }, 403, 'PROTECTED_PATH'],
      ['/api/files/delete', { path: '.git/HEAD' }, 403, 'PROTECTED_PATH'],
      ['/api/files/delete', { path: '.loom/settings.json' }, 403, 'PROTECTED_PATH'],
      ['/api/files/delete', { path: 'vendor' }, 403, 'PROTECTED_PATH'],
      ['/api/files/delete', { path: '.config' }, 403, 'PROTECTED_PATH'],
      ['/api/files/delete', { path: 'out/secret.txt' }, 403, 'FORBIDDEN_PATH'],
      ['/api/files/delete', { path: `src/${huge}` }, 400, 'NAME_TOO_LONG'],
    ];
    for (const [route, body, status, code] of cases) {
      const answer = await local.request('POST', route, body);
      const label = `${route} ${JSON.stringify(body).slice(0, 120)}`;
      assert.equal(answer.status, status, `${label}: ${answer.text}`);
      assert.equal(answer.json.error.code, code, label);
      assert.equal(typeof answer.json.error.message, 'string', label);
    }
    // Without the token: 401, nothing done.
    const anonymous = await local.request('POST', '/api/files/create', { path: 'anon.txt' }, { authorization: '' });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(snapshot(workspace), before);
    assert.deepEqual(snapshot(outside), beforeOutside);
    // The link itself is an entry of the workspace: renaming or deleting it never touches its target.
    const link = await local.request('POST', '/api/files/delete', { path: 'out' });
    assert.equal(link.status, 200, link.text);
    assert.deepEqual(snapshot(outside), beforeOutside);
  });
});

describe('file operations reach webhooks and the code index', () => {
  it('delivers file:create, file:rename and file:delete, and the index finds the file where it now is', async (t) => {
    const receiver = await startReceiver(t);
    const local = await startTestLocal({
      codeIndex: true,
      files: { 'src/main.ts': 'export function main() {}\n' },
      settings: {
        apiToken: 'loom_file_operations_token_0123456789abcdef',
        webhooks: [{ url: receiver.url, events: ['file:create', 'file:rename', 'file:delete'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }],
      },
    });
    t.after(() => local.close());
    const files = async () => ((await local.request('GET', '/api/code/files?query=widget')).json.files ?? []).map((hit: { path: string }) => hit.path);
    const created = await local.request('POST', '/api/files/create', { path: 'src/widget.ts', text: 'export function makeWidget() {}\n' });
    assert.equal(created.status, 200, created.text);
    await waitFor(async () => (await files()).includes('src/widget.ts'), undefined, 'the index to list src/widget.ts');
    await local.request('POST', '/api/files/rename', { from: 'src/widget.ts', to: 'src/widgets/widget.ts' });
    await waitFor(
      async () => {
        const now = await files();
        return now.includes('src/widgets/widget.ts') && !now.includes('src/widget.ts');
      },
      undefined,
      'the index to follow the rename',
    );
    await local.request('POST', '/api/files/delete', { path: 'src/widgets' });
    await waitFor(async () => (await files()).length === 0, undefined, 'the index to drop the deleted file');
    await waitFor(() => receiver.requests.length === 3, undefined, 'three deliveries');
    assert.deepEqual(
      receiver.requests.map((request) => JSON.parse(request.body)).map((body) => [body.type, body.data]),
      [
        ['file:create', { path: 'src/widget.ts', kind: 'file' }],
        ['file:rename', { from: 'src/widget.ts', to: 'src/widgets/widget.ts', kind: 'file' }],
        ['file:delete', { path: 'src/widgets', kind: 'folder' }],
      ],
    );
  });
});
