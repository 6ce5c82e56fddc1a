// `file:change` on /events: every edit of a document through the API tells the range it replaced, in the document as it was
// before, and the new text, with the document's new version: applying the events in order to
// the text a client had gives the server's text. (A program's write through the editor, an
// agent's, is test/core/workspace/write-through-events.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

/** Applies a file:change event's edit to `text` (1-based line and column positions). */
function apply(text: string, event: { from: { line: number; column: number }; to: { line: number; column: number }; text: string }): string {
  const offset = ({ line, column }: { line: number; column: number }) => {
    const lines = text.split('\n');
    return lines.slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0) + column - 1;
  };
  return text.slice(0, offset(event.from)) + event.text + text.slice(offset(event.to));
}

describe('file:change events', () => {
  let local: TestLocal;
  let socket: WebSocket;
  const events: any[] = [];

  before(async () => {
    local = await startTestLocal({ files: { 'a.txt': 'one\ntwo\nthree\n' } });
    socket = new WebSocket(`ws://127.0.0.1:${local.port}/events`, { headers: { authorization: `Bearer ${local.token()}` } });
    socket.on('message', (data) => events.push(JSON.parse(String(data))));
    await waitFor(() => events.length > 0, undefined, 'the hello');
  });
  after(async () => {
    socket?.terminate();
    await local?.close();
  });

  it('describes each edit so that a client replaying them has the server text', async () => {
    let copy = 'one\ntwo\nthree\n';
    const opened = await local.request('POST', '/api/editor/open', { path: 'a.txt' });
    let version = opened.json.version as number;
    const edits: [string, object][] = [
      ['/api/editor/insert', { path: 'a.txt', text: 'zero\n', line: 1, column: 1 }],
      ['/api/editor/replace', { path: 'a.txt', text: 'TWO', startLine: 3, startColumn: 1, endLine: 3, endColumn: 4 }],
      ['/api/editor/replace', { path: 'a.txt', text: '', startLine: 1, startColumn: 5, endLine: 2, endColumn: 4 }],
      ['/api/editor/insert', { path: 'a.txt', text: 'é🙂' }],
    ];
    for (const [route, body] of edits) {
      const answer = await local.request('POST', route, body);
      assert.equal(answer.status, 200, answer.text);
      await waitFor(() => events.some((event) => event.type === 'file:change' && event.data.version === answer.json.version), undefined, 'the event');
      const event = events.find((candidate) => candidate.type === 'file:change' && candidate.data.version === answer.json.version);
      assert.equal(event.data.path, 'a.txt');
      assert.equal(event.data.version, version + 1);
      version = event.data.version;
      copy = apply(copy, event.data);
      assert.equal(copy, (await local.request('GET', '/api/editor/text?path=a.txt')).json.text);
    }
  });

  it('refuses a replace made against an older version, changing nothing (409 VERSION_CONFLICT)', async () => {
    const { json: now } = await local.request('GET', '/api/editor/text?path=a.txt');
    const stale = await local.request('POST', '/api/editor/replace', {
      path: 'a.txt',
      text: 'X',
      startLine: 1,
      startColumn: 1,
      endLine: 1,
      endColumn: 1,
      version: now.version - 1,
    });
    assert.equal(stale.status, 409);
    assert.equal(stale.json.error.code, 'VERSION_CONFLICT');
    assert.deepEqual((await local.request('GET', '/api/editor/text?path=a.txt')).json, now);
    const current = await local.request('POST', '/api/editor/replace', {
      path: 'a.txt',
      text: 'X',
      startLine: 1,
      startColumn: 1,
      endLine: 1,
      endColumn: 1,
      version: now.version,
    });
    assert.equal(current.status, 200);
    assert.equal(current.json.version, now.version + 1);
  });
});
