// A program's write through an open document (Documents.writeThrough, what an agent's edits go
// through) is told as one file:change — the stretch that differs, in the text as it was — then
// file:save, and the file is on disk when the call returns. file:change is for the live stream
// only: durable listeners (webhooks) never see it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { EventBus, type LoomEvent } from '../../../src/core/events/bus.ts';
import { Documents } from '../../../src/core/workspace/documents.ts';
import { WorkspacePaths } from '../../../src/core/workspace/paths.ts';

describe('Documents.writeThrough', () => {
  it('emits file:change for the stretch that differs, then file:save', async (t) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-wt-'));
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));
    fs.writeFileSync(path.join(root, 'a.ts'), 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    const bus = new EventBus();
    const events: LoomEvent[] = [];
    bus.subscribe((event) => void events.push(event));
    // The webhook outbox's kind of listener: file:change (every edit, with the code) never reaches it.
    const durable: string[] = [];
    bus.subscribeDurable((event) => void durable.push(event.type));
    const documents = new Documents(new WorkspacePaths(root), bus);
    const opened = await documents.openFile('a.ts');

    await documents.writeThrough('a.ts', 'const a = 1;\nconst b = 20;\nconst c = 3;\n');
    assert.equal(fs.readFileSync(path.join(root, 'a.ts'), 'utf8'), 'const a = 1;\nconst b = 20;\nconst c = 3;\n');
    const after = events.filter((event) => event.type !== 'file:open');
    assert.deepEqual(
      after.map((event) => event.type),
      ['file:change', 'file:save'],
    );
    assert.deepEqual(after[0]!.data, { path: 'a.ts', version: opened.version + 1, from: { line: 2, column: 12 }, to: { line: 2, column: 12 }, text: '0' });
    assert.ok(after[0]!.seq < after[1]!.seq);
    assert.deepEqual(durable, ['file:open', 'file:save']);
  });
});
