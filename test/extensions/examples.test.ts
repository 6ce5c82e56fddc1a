// The example extensions of examples/extensions/, as shipped, run by the real server from the
// user's extensions folder: word-count (CommonJS) counts the active document's words and shows
// a notification; insert-date (ESM) inserts a date at the cursor.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { LoomEvent } from '../../src/core/events/bus.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const EXAMPLES = fileURLToPath(new URL('../../examples/extensions/', import.meta.url));

async function serveExamples(t: TestContext): Promise<{ local: TestLocal; notifications: LoomEvent['data'][] }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-examples-'));
  const configDir = path.join(home, 'config');
  fs.cpSync(EXAMPLES, path.join(configDir, 'extensions'), { recursive: true });
  const local = await startTestLocal({ configDir, files: { 'notes.md': 'The quick brown fox\njumps over the lazy dog.\n' } });
  t.after(async () => {
    await local.close();
    fs.rmSync(home, { recursive: true, force: true });
  });
  const notifications: LoomEvent['data'][] = [];
  local.events.subscribe((event) => void (event.type === 'notification' && notifications.push(event.data)));
  return { local, notifications };
}

describe('example extensions', () => {
  it('both load, and their commands are listed with their titles', async (t) => {
    const { local } = await serveExamples(t);
    const { json } = await local.request('GET', '/api/commands');
    assert.deepEqual(json.commands, [
      { name: 'insertDate.insert', title: "Insert Date: Insert today's date at the cursor", extension: 'insert-date' },
      { name: 'wordCount.count', title: 'Word Count: Count words in the active document', extension: 'word-count' },
    ]);
  });

  it('word-count counts the words of the active document and shows the count as a notification', async (t) => {
    const { local, notifications } = await serveExamples(t);
    const none = await local.request('POST', '/api/commands/wordCount.count');
    assert.deepEqual(none.json, { result: { path: null, words: 0 } });
    await local.request('POST', '/api/editor/open', { path: 'notes.md' });
    const counted = await local.request('POST', '/api/commands/wordCount.count', {});
    assert.equal(counted.status, 200, counted.text);
    assert.deepEqual(counted.json, { result: { path: 'notes.md', words: 9 } });
    await waitFor(() => notifications.some((n) => n.text === 'notes.md: 9 words'), undefined, 'the notification');
    assert.deepEqual(
      notifications.find((n) => n.text === 'notes.md: 9 words'),
      { text: 'notes.md: 9 words', level: 'info', source: 'word-count' },
    );
  });

  it('insert-date inserts a date at the cursor of the active document; a bad date is the command failing', async (t) => {
    const { local } = await serveExamples(t);
    await local.request('POST', '/api/editor/open', { path: 'notes.md' });
    const inserted = await local.request('POST', '/api/commands/insertDate.insert', { args: ['2026-01-31T10:00:00Z'] });
    assert.equal(inserted.status, 200, inserted.text);
    assert.deepEqual(inserted.json.result, { path: 'notes.md', inserted: '2026-01-31', at: { line: 1, column: 1 } });
    const { json } = await local.request('GET', '/api/editor/text');
    assert.equal(json.text, '2026-01-31The quick brown fox\njumps over the lazy dog.\n');
    const today = await local.request('POST', '/api/commands/insertDate.insert', {});
    assert.match(today.json.result.inserted, /^\d{4}-\d{2}-\d{2}$/);
    const bad = await local.request('POST', '/api/commands/insertDate.insert', { args: ['not a date'] });
    assert.equal(bad.status, 502);
    assert.match(bad.json.error.message, /Not a date: not a date/);
  });
});
