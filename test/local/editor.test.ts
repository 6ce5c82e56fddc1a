// The editor endpoints and the events they emit, from the outside.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { startTestLocal, type TestLocal } from '../support/local.ts';

/** A WebSocket client collecting the events it receives. */
async function listen(local: TestLocal): Promise<{ events: any[]; next: (type: string) => Promise<any>; close: () => void }> {
  const socket = new WebSocket(`ws://127.0.0.1:${local.port}/events`, { headers: { authorization: `Bearer ${local.token()}` } });
  const events: any[] = [];
  const waiters: { type: string; resolve: (event: any) => void }[] = [];
  socket.on('message', (data) => {
    const event = JSON.parse(String(data));
    events.push(event);
    for (const waiter of [...waiters]) {
      if (waiter.type === event.type) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  });
  await new Promise((resolve) => socket.once('message', resolve));
  return {
    events,
    next: (type) => new Promise((resolve) => waiters.push({ type, resolve })),
    close: () => socket.close(),
  };
}

describe('editor', () => {
  let local: TestLocal;
  before(async () => {
    local = await startTestLocal({
      files: { 'src/app.ts': 'const a = 1;\nconsole.log(a);\n', 'bin/tool': '#!/usr/bin/env python3\nprint(1)\n', 'notes.md': '# Notes\n' },
    });
  });
  after(() => local.close());

  it('has no active file at first: 409 NO_ACTIVE_FILE', async () => {
    const res = await local.request('GET', '/api/editor/file');
    assert.equal(res.status, 409);
    assert.equal(res.json.error.code, 'NO_ACTIVE_FILE');
  });

  it('opens a file, emits file:open, and reports it as the active file', async () => {
    const stream = await listen(local);
    const opened = stream.next('file:open');
    const res = await local.request('POST', '/api/editor/open', { path: 'src/app.ts' });
    assert.equal(res.status, 200);
    const event = await opened;
    assert.deepEqual(event.data, { path: 'src/app.ts', language: 'typescript' });
    assert.equal(typeof event.seq, 'number');
    assert.match(event.time, /^\d{4}-\d\d-\d\dT/);
    const file = await local.request('GET', '/api/editor/file');
    assert.deepEqual(
      { path: file.json.path, language: file.json.language, lineCount: file.json.lineCount, cursorLine: file.json.cursorLine },
      { path: 'src/app.ts', language: 'typescript', lineCount: 3, cursorLine: 1 },
    );
    stream.close();
  });

  it('detects the language from a shebang', async () => {
    const res = await local.request('POST', '/api/editor/open', { path: 'bin/tool' });
    assert.equal(res.json.language, 'python');
    await local.request('POST', '/api/editor/open', { path: 'src/app.ts' });
  });

  it('inserts at a 1-based line and column, and at the cursor when none is given', async () => {
    const first = await local.request('POST', '/api/editor/insert', { text: '// header\n', line: 1, column: 1 });
    assert.equal(first.status, 200);
    assert.deepEqual(first.json.cursor, { line: 2, column: 1 });
    assert.equal(first.json.lineCount, 4);
    const second = await local.request('POST', '/api/editor/insert', { text: 'let b = 2;\n' });
    assert.deepEqual(second.json.range, { start: { line: 2, column: 1 }, end: { line: 3, column: 1 } });
    const text = await local.request('GET', '/api/editor/text');
    assert.equal(text.json.text, '// header\nlet b = 2;\nconst a = 1;\nconsole.log(a);\n');
  });

  it('replaces a range', async () => {
    const res = await local.request('POST', '/api/editor/replace', { text: 'answer', startLine: 3, startColumn: 7, endLine: 3, endColumn: 8 });
    assert.equal(res.status, 200);
    assert.equal((await local.request('GET', '/api/editor/text')).json.text, '// header\nlet b = 2;\nconst answer = 1;\nconsole.log(a);\n');
    assert.equal(res.json.cursorLine, 3);
  });

  const outOfRange: [string, string, Record<string, unknown>][] = [
    ['a line past the end', 'insert', { text: 'x', line: 99, column: 1 }],
    ['a column past the end of its line', 'insert', { text: 'x', line: 1, column: 50 }],
    ['an end before the start', 'replace', { text: 'x', startLine: 2, startColumn: 1, endLine: 1, endColumn: 1 }],
    ['an end line past the end', 'replace', { text: 'x', startLine: 1, startColumn: 1, endLine: 40, endColumn: 1 }],
  ];
  for (const [label, endpoint, body] of outOfRange) {
    it(`refuses ${label} with 400 OUT_OF_RANGE and changes nothing`, async () => {
      const before = (await local.request('GET', '/api/editor/text')).json;
      const res = await local.request('POST', `/api/editor/${endpoint}`, body);
      assert.equal(res.status, 400);
      assert.equal(res.json.error.code, 'OUT_OF_RANGE');
      assert.deepEqual((await local.request('GET', '/api/editor/text')).json, before);
    });
  }

  const invalid: [string, string, unknown][] = [
    ['line 0', 'insert', { text: 'x', line: 0, column: 1 }],
    ['a string line', 'insert', { text: 'x', line: '1', column: 1 }],
    ['no text', 'insert', { line: 1, column: 1 }],
    ['an unknown field', 'insert', { text: 'x', cursor: 1 }],
    ['a missing endColumn', 'replace', { text: 'x', startLine: 1, startColumn: 1, endLine: 1 }],
    ['bad JSON', 'insert', '{"text": '],
  ];
  for (const [label, endpoint, body] of invalid) {
    it(`refuses ${label} with 400 and changes nothing`, async () => {
      const before = (await local.request('GET', '/api/editor/text')).json;
      const res = await local.request('POST', `/api/editor/${endpoint}`, body);
      assert.equal(res.status, 400);
      assert.match(res.json.error.code, /^(VALIDATION_ERROR|INVALID_JSON)$/);
      assert.deepEqual((await local.request('GET', '/api/editor/text')).json, before);
    });
  }

  it('saves atomically to disk and emits file:save', async () => {
    const stream = await listen(local);
    const saved = stream.next('file:save');
    const res = await local.request('POST', '/api/editor/save', {});
    assert.equal(res.status, 200);
    assert.equal(res.json.dirty, false);
    assert.equal((await saved).data.path, 'src/app.ts');
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src/app.ts'), 'utf8'), '// header\nlet b = 2;\nconst answer = 1;\nconsole.log(a);\n');
    assert.deepEqual(fs.readdirSync(path.join(local.workspace, 'src')), ['app.ts'], 'no temporary file left');
    stream.close();
  });

  it('picks up changes made on disk by another program', async () => {
    local.write('notes.md', '# Notes\n\nchanged elsewhere\n');
    await local.request('POST', '/api/editor/open', { path: 'notes.md' });
    local.write('notes.md', '# Notes\n\nchanged again\nand again\n');
    const file = await local.request('GET', '/api/editor/file');
    assert.equal(file.json.lineCount, 5);
  });

  it('lists the open documents', async () => {
    const res = await local.request('GET', '/api/editor/documents');
    assert.deepEqual(res.json.documents.map((d: { path: string; active: boolean }) => [d.path, d.active]).sort(), [
      ['bin/tool', false],
      ['notes.md', true],
      ['src/app.ts', false],
    ]);
  });

  for (const [label, target] of [
    ['a parent path', '../outside.txt'],
    ['an absolute path', '/etc/passwd'],
    ['a NUL byte', 'a\u0000b'],
  ] as const) {
    it(`refuses to open ${label}`, async () => {
      const res = await local.request('POST', '/api/editor/open', { path: target });
      assert.ok(res.status === 403 || res.status === 400, String(res.status));
      assert.match(res.json.error.code, /^(FORBIDDEN_PATH|VALIDATION_ERROR)$/);
    });
  }

  it('refuses a symlink that points out of the workspace', async () => {
    const outside = fs.mkdtempSync(path.join(path.dirname(local.workspace), 'outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(local.workspace, 'link.txt'));
    fs.symlinkSync(outside, path.join(local.workspace, 'linkdir'));
    for (const target of ['link.txt', 'linkdir/secret.txt', 'linkdir/new.txt']) {
      const res = await local.request('POST', '/api/editor/open', { path: target });
      assert.equal(res.status, 403, target);
      assert.equal(res.json.error.code, 'FORBIDDEN_PATH');
    }
  });

  it('answers 404 for a file that does not exist', async () => {
    const res = await local.request('POST', '/api/editor/open', { path: 'nope.ts' });
    assert.equal(res.status, 404);
    assert.equal(res.json.error.code, 'NOT_FOUND');
  });
});

describe('local rate limits', () => {
  it('allows the configured number per minute, then 429 RATE_LIMIT_EXCEEDED with retryAfter and Retry-After', async () => {
    const local = await startTestLocal({ settings: { apiToken: 'loom_test_token_0123456789abcdefghij', rateLimits: { default: 3 } } });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await local.request('GET', '/api/health')).status, 200);
      local.clock.advance(15_000);
      const limited = await local.request('GET', '/api/health');
      assert.equal(limited.status, 429);
      assert.equal(limited.json.error.code, 'RATE_LIMIT_EXCEEDED');
      assert.equal(limited.json.error.retryAfter, 45);
      // The desktop app's user sets its budgets: the hint names the key and settings.json's path.
      assert.match(
        limited.json.error.hint,
        /^Retry after 45 s\. Or raise the budget: "rateLimits": \{"default": …\} in \/.*settings\.json \(applies at once\)\.$/,
      );
      assert.equal(limited.headers['retry-after'], '45');
      local.clock.advance(45_000);
      assert.equal((await local.request('GET', '/api/health')).status, 200);
    } finally {
      await local.close();
    }
  });
});
