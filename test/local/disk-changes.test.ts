// Changes other programs make to the workspace's files reach /events as they happen, through the
// real local server's watcher: `disk:change` names them (a burst as one event, Loom's own saves
// and its atomic-write temporaries left out), an open document without unsaved edits takes the
// change at once (file:open `reloaded`, no request needed), one with unsaved edits is in conflict.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { LoomEvent } from '../../src/core/events/bus.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

async function serve(t: TestContext, files: Record<string, string>): Promise<{ local: TestLocal; events: LoomEvent[]; changed: () => string[] }> {
  const local = await startTestLocal({ files });
  t.after(() => local.close());
  const events: LoomEvent[] = [];
  local.events.subscribe((event) => void events.push(event));
  const changed = () => events.filter((event) => event.type === 'disk:change').flatMap((event) => event.data['paths'] as string[]);
  return { local, events, changed };
}

describe('changes on disk', () => {
  it('names files another program creates, changes or removes, and the files of a folder that appears', async (t) => {
    const { local, changed } = await serve(t, { 'src/a.ts': 'a\n', 'node_modules/dep/index.js': 'x\n' });
    local.write('src/b.ts', 'b\n');
    await waitFor(() => changed().includes('src/b.ts'), undefined, 'the new file in a disk:change');
    fs.rmSync(path.join(local.workspace, 'src/a.ts'));
    await waitFor(() => changed().includes('src/a.ts'), undefined, 'the removed file');
    // A folder copied in at once: it is followed from then on, and what it holds is told.
    const copied = path.join(local.workspace, 'lib');
    fs.mkdirSync(path.join(copied, 'deep'), { recursive: true });
    fs.writeFileSync(path.join(copied, 'deep/c.ts'), 'c\n');
    await waitFor(() => changed().includes('lib/deep/c.ts'), undefined, 'a file of a new folder');
    fs.writeFileSync(path.join(copied, 'deep/d.ts'), 'd\n');
    await waitFor(() => changed().includes('lib/deep/d.ts'), undefined, 'a file written into the new folder later');
    // A folder removed and made again (its inode is likely given again): the new one is followed.
    fs.rmSync(copied, { recursive: true });
    fs.mkdirSync(copied);
    fs.writeFileSync(path.join(copied, 'e.ts'), 'e\n');
    await waitFor(() => changed().includes('lib/e.ts'), undefined, 'a file in the folder made again');
    assert.ok(!changed().some((file) => file.startsWith('node_modules/') || file === 'lib/lib'));
  });

  it('an open document without unsaved edits takes the change at once; one with unsaved edits is in conflict', async (t) => {
    const { local, events, changed } = await serve(t, { 'clean.ts': 'one\n', 'edited.ts': 'two\n' });
    await local.request('POST', '/api/editor/open', { path: 'edited.ts' });
    await local.request('POST', '/api/editor/insert', { path: 'edited.ts', text: '// mine\n', line: 1, column: 1 });
    await local.request('POST', '/api/editor/open', { path: 'clean.ts' });

    local.write('clean.ts', 'one, changed by git\n');
    // No request asks: the watcher's look alone reloads it, and says so before naming the file.
    await waitFor(() => changed().includes('clean.ts'), undefined, 'the change of the open file');
    const reloaded = events.findIndex((event) => event.type === 'file:open' && event.data['path'] === 'clean.ts' && event.data['reloaded'] === true);
    const named = events.findIndex((event) => event.type === 'disk:change' && (event.data['paths'] as string[]).includes('clean.ts'));
    assert.ok(reloaded >= 0 && reloaded < named, 'file:open reloaded before disk:change');
    assert.equal((await local.request('GET', '/api/editor/text?path=clean.ts')).json.text, 'one, changed by git\n');

    local.write('edited.ts', 'two, changed by git\n');
    await waitFor(() => changed().includes('edited.ts'), undefined, 'the change under unsaved edits');
    const { documents } = (await local.request('GET', '/api/editor/documents')).json;
    const edited = documents.find((document: { path: string }) => document.path === 'edited.ts');
    assert.equal(edited.conflict, true);
    assert.equal((await local.request('GET', '/api/editor/text?path=edited.ts')).json.text, '// mine\ntwo\n', 'the unsaved edits are kept');
  });

  it("leaves out Loom's own saves and their temporary files", async (t) => {
    const { local, changed } = await serve(t, { 'saved.ts': 'x\n' });
    await local.request('POST', '/api/editor/open', { path: 'saved.ts' });
    await local.request('POST', '/api/editor/insert', { path: 'saved.ts', text: 'y', line: 1, column: 1 });
    assert.equal((await local.request('POST', '/api/editor/save', { path: 'saved.ts' })).status, 200);
    // Events come in order: once a later change is told, the save would have been too.
    local.write('later.ts', 'later\n');
    await waitFor(() => changed().includes('later.ts'), undefined, 'the later change');
    assert.deepEqual(
      changed().filter((file) => file !== 'later.ts'),
      [],
      'nothing of the save',
    );
  });
});
