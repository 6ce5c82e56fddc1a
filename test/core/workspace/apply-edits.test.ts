// Several edits of one open document at once (a rename's, Documents.applyEdits): each told as a
// file:change against the text as a client holding the previous version has it, the cursor kept
// in its place, the edits unsaved; refused whole at a stale version, with overlapping ranges, or
// on a read-only document. Opening and closing documents is told to lifecycle listeners.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { LoomError } from '../../../src/core/errors.ts';
import { EventBus, type LoomEvent } from '../../../src/core/events/bus.ts';
import { Documents } from '../../../src/core/workspace/documents.ts';
import { WorkspacePaths } from '../../../src/core/workspace/paths.ts';

function setUp(t: TestContext, files: Record<string, string>) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-edits-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  const bus = new EventBus();
  const events: LoomEvent[] = [];
  bus.subscribe((event) => void events.push(event));
  return { root, events, documents: new Documents(new WorkspacePaths(root), bus) };
}

/** Applies file:change events to a text as a client (the window) does. */
function replay(text: string, changes: LoomEvent[]): string {
  for (const { data } of changes) {
    const lines = text.split('\n');
    const offset = (p: { line: number; column: number }) => lines.slice(0, p.line - 1).reduce((sum, line) => sum + line.length + 1, 0) + p.column - 1;
    const from = data['from'] as { line: number; column: number };
    const to = data['to'] as { line: number; column: number };
    text = text.slice(0, offset(from)) + (data['text'] as string) + text.slice(offset(to));
  }
  return text;
}

describe('Documents.applyEdits', () => {
  it('applies every edit, told as file:change events a client can replay, unsaved, the cursor kept', async (t) => {
    const original = 'let total = 0;\nfor (const x of xs) total += x;\nreturn total;\n';
    const { root, events, documents } = setUp(t, { 'a.ts': original });
    const opened = await documents.openFile('a.ts');
    documents.moveCursor({ path: 'a.ts', line: 3, column: 13 }); // after `return total`
    const at = (line: number, column: number, length: number) => ({ start: { line, column }, end: { line, column: column + length } });
    const summary = await documents.applyEdits(
      'a.ts',
      [
        { ...at(1, 5, 5), text: 'sum' },
        { ...at(2, 21, 5), text: 'sum' },
        { ...at(3, 8, 5), text: 'sum' },
      ],
      opened.version,
    );
    const expected = 'let sum = 0;\nfor (const x of xs) sum += x;\nreturn sum;\n';
    assert.equal((await documents.text('a.ts')).text, expected);
    assert.equal(summary.version, opened.version + 3);
    assert.equal(summary.dirty, true);
    assert.deepEqual(summary.cursor, { line: 3, column: 11 });
    assert.equal(fs.readFileSync(path.join(root, 'a.ts'), 'utf8'), original);
    const changes = events.filter((event) => event.type === 'file:change');
    assert.deepEqual(
      changes.map((event) => event.data['version']),
      [opened.version + 1, opened.version + 2, opened.version + 3],
    );
    assert.equal(replay(original, changes), expected);
  });

  it('refuses a stale version, overlapping edits and a read-only document, changing nothing', async (t) => {
    const { events, documents } = setUp(t, { 'a.ts': 'abcdef\n', '.git/config': '[core]\n' });
    const opened = await documents.openFile('a.ts');
    const edit = (column: number, endColumn: number) => ({ start: { line: 1, column }, end: { line: 1, column: endColumn }, text: 'x' });
    // Refused before anything changes: the call throws, no promise to wait for.
    const refused = (apply: () => unknown, code: string) => assert.throws(apply, (error: LoomError) => error.code === code);
    refused(() => documents.applyEdits('a.ts', [edit(1, 2)], opened.version - 1), 'version_conflict');
    refused(() => documents.applyEdits('a.ts', [edit(1, 3), edit(2, 4)], opened.version), 'out_of_range');
    refused(() => documents.applyEdits('a.ts', [edit(1, 9)], opened.version), 'out_of_range');
    const config = await documents.openFile('.git/config');
    refused(() => documents.applyEdits('.git/config', [edit(1, 2)], config.version), 'protected_path');
    assert.equal((await documents.text('a.ts')).text, 'abcdef\n');
    assert.equal(events.filter((event) => event.type === 'file:change').length, 0);
  });

  it('tells lifecycle listeners of a document opened (once) and closed', async (t) => {
    const { documents } = setUp(t, { 'a.ts': 'a\n', 'b.ts': 'b\n' });
    const heard: string[] = [];
    documents.onLifecycle({
      opened: (file, language, text) => heard.push(`open ${file} ${language} ${JSON.stringify(text())}`),
      closed: (file) => heard.push(`close ${file}`),
    });
    await documents.openFile('a.ts');
    await documents.openFile('b.ts');
    await documents.openFile('a.ts'); // activated again: not a new document
    await documents.close('a.ts');
    documents.closeRemoved('b.ts');
    assert.deepEqual(heard, ['open a.ts typescript "a\\n"', 'open b.ts typescript "b\\n"', 'close a.ts', 'close b.ts']);
  });
});
