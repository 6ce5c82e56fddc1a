// The code index inside `loom serve`: built in the background once the server listens (telling
// how far it got in index:progress events), kept current from the folder watcher (a save, another
// program's write) and from the editor's documents (unsaved text, for the window's view only).
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { LoomEvent } from '../../src/core/events/bus.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

async function serve(t: TestContext, files: Record<string, string>): Promise<{ local: TestLocal; events: LoomEvent[] }> {
  const local = await startTestLocal({ files, codeIndex: true });
  t.after(() => local.close());
  const events: LoomEvent[] = [];
  local.events.subscribe((event) => void events.push(event));
  return { local, events };
}

const names = async (local: TestLocal, query: string, view?: 'editor') =>
  (await local.code.findSymbols(query, view ? { view } : {})).map((hit) => `${hit.path}:${hit.name}`);

describe('the code index of loom serve', () => {
  it('builds in the background and says so in index:progress events and status()', async (t) => {
    const { local, events } = await serve(t, { 'src/app.ts': 'export function startApp() {}\n', 'lib/util.py': 'def helper():\n    pass\n' });
    await waitFor(() => local.code.status().state === 'ready', undefined, 'the first build');
    assert.deepEqual(await names(local, 'startapp'), ['src/app.ts:startApp']);
    const status = local.code.status();
    assert.equal(status.files, 2);
    assert.equal(status.database.startsWith(local.dataDir), true);
    await waitFor(() => events.some((event) => event.type === 'index:progress' && event.data['phase'] === 'done'), undefined, 'the last progress event');
    // The build started as the server began to listen: its first events may precede this test's subscription.
    const progress = events.filter((event) => event.type === 'index:progress');
    assert.deepEqual(Object.keys(progress.at(-1)!.data).sort(), ['bytes', 'done', 'elapsedMs', 'files', 'parsed', 'phase', 'skipped', 'walked']);
    assert.equal(progress.at(-1)!.data['files'], 2);
  });

  it('a file saved in the editor, or written by another program, is found by search once the watcher settles', async (t) => {
    const { local } = await serve(t, { 'src/app.ts': 'export function startApp() {}\n' });
    await waitFor(() => local.code.status().state === 'ready', undefined, 'the first build');
    await local.request('POST', '/api/editor/open', { path: 'src/app.ts' });
    await local.request('POST', '/api/editor/insert', { path: 'src/app.ts', text: 'export function addedInEditor() {}\n', line: 2, column: 1 });
    // Unsaved: the window's view has it, the disk's (agents, the CLI) has not.
    await waitFor(async () => (await names(local, 'addedineditor', 'editor')).length === 1, undefined, 'the unsaved definition in the editor view');
    assert.deepEqual(await names(local, 'addedineditor'), []);
    const saved = await local.request('POST', '/api/editor/save', { path: 'src/app.ts' });
    assert.equal(saved.status, 200, saved.text);
    await waitFor(async () => (await names(local, 'addedineditor')).length === 1, undefined, 'the saved definition');
    local.write('src/other.ts', 'export class WrittenOutside {}\n');
    await waitFor(async () => (await names(local, 'writtenoutside')).length === 1, undefined, 'a file another program wrote');
  });
});
