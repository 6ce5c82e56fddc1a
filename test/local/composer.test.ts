// The window's composer routes through the production wiring: `loom serve` alone answers every
// one 409 COMPOSER_UNAVAILABLE (never 5xx); beside the hosted API as `loom up` starts it
// (startHostedBeside), a session is started on the workspace with a scripted model on loopback,
// followed on the event stream, read, and applied through the workspace gate, with what may
// not be applied refused and nothing written.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { desktopOwner } from '../../src/core/composer/desktop.ts';
import { queuedSession } from '../../src/core/composer/types.ts';
import type { LoomEvent } from '../../src/core/events/bus.ts';
import type { RunningHosted } from '../../src/hosted/server.ts';
import type { RunningLocal } from '../../src/local/server.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { startTestUp, type TestUp } from '../support/up.ts';
import { startFakeOpenAi, type FakeOpenAi, type ScriptedTurn } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

const TOKEN = 'loom_window_composer_token_0123456789abcdef';
const ADD = 'export function add(a: number, b: number) {\n  return a - b;\n}\n';
const FIXED = 'export function add(a: number, b: number) {\n  return a + b;\n}\n';

const editTurn = (file: string, search: string, replace: string): ScriptedTurn => ({
  kind: 'tools',
  calls: [{ id: 'call_1', name: 'edit_file', arguments: JSON.stringify({ path: file, search, replace }) }],
});
const says = (text: string): ScriptedTurn => ({ kind: 'text', text });

describe('composer routes under loom serve alone', () => {
  let local: TestLocal;
  before(async () => {
    local = await startTestLocal({ files: { 'a.ts': 'a\n' } });
  });
  after(() => local.close());

  it('answers every route 409 COMPOSER_UNAVAILABLE with what to do, never a 5xx', async () => {
    const id = randomUUID();
    for (const [method, route, body] of [
      ['GET', '/api/composer/sessions', undefined],
      ['POST', '/api/composer/sessions', { prompt: 'Fix it', files: ['**'] }],
      ['GET', `/api/composer/sessions/${id}`, undefined],
      ['GET', `/api/composer/sessions/${id}/events`, undefined],
      ['POST', `/api/composer/sessions/${id}/cancel`, undefined],
      ['POST', `/api/composer/sessions/${id}/message`, { message: 'More.' }],
      ['POST', `/api/composer/sessions/${id}/apply`, {}],
    ] as const) {
      const answer = await local.request(method, route, body);
      assert.equal(answer.status, 409, `${method} ${route}: ${answer.text}`);
      assert.equal(answer.json.error.code, 'COMPOSER_UNAVAILABLE');
      assert.match(answer.json.error.hint, /loom up/);
    }
  });

  it('checks input before anything else: no token, a bad id, fields it does not take', async () => {
    assert.equal((await local.request('GET', '/api/composer/sessions', undefined, { authorization: '' })).status, 401);
    // A malformed id names no session, as on every local route with an id.
    const badId = await local.request('GET', '/api/composer/sessions/not-a-uuid');
    assert.equal(badId.status, 404, badId.text);
    for (const body of [
      { prompt: '', files: ['**'] },
      { prompt: 'x', files: [] },
      { prompt: 'x', files: ['**'], workspace: 'other' },
      { prompt: 'x', files: ['**'], attachments: [{ path: 'a', content: 'b' }] },
      { prompt: 'x', files: ['**'], mode: 'run' },
      { prompt: 'x'.repeat(32_001), files: ['**'] },
    ]) {
      const answer = await local.request('POST', '/api/composer/sessions', body);
      assert.equal(answer.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal(answer.json.error.code, 'VALIDATION_ERROR');
    }
    assert.equal((await local.request('GET', '/api/composer/sessions?limit=0')).status, 400);
  });
});

describe('composer routes beside the hosted API (loom up)', () => {
  let fake: FakeOpenAi;
  let home: string;
  let workspace: string;
  let local: RunningLocal;
  let hosted: RunningHosted;
  const seen: LoomEvent[] = [];
  const request = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${local.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  let up: TestUp;
  const git = (...args: string[]) => up.git(...args);
  const ended = async (id: string) => {
    await waitFor(
      () =>
        seen.some(
          (event) => event.type === 'composer:status' && event.data.sessionId === id && event.data.status !== 'queued' && event.data.status !== 'running',
        ),
      undefined,
      `composer:status of ${id}'s end`,
    );
    return (await request('GET', `/api/composer/sessions/${id}`)).json;
  };
  const start = async (prompt: string, mode?: 'plan') => {
    const started = await request('POST', '/api/composer/sessions', { prompt, files: ['src/**'], ...(mode ? { mode } : {}) });
    assert.equal(started.status, 200, JSON.stringify(started.json));
    return started.json.sessionId as string;
  };

  before(async () => {
    fake = await startFakeOpenAi();
    up = await startTestUp({ files: { 'src/add.ts': ADD }, apiToken: TOKEN, openAiBaseUrl: fake.baseUrl });
    ({ home, workspace, local, hosted } = up);
    local.events.subscribe((event) => void seen.push(event));
  });
  after(async () => {
    await up?.close();
    await fake.close();
  });

  it('starts a session on the workspace, tells its progress and end, and applies it to the file and its open document', async () => {
    const opened = await request('POST', '/api/editor/open', { path: 'src/add.ts' });
    assert.equal(opened.status, 200);
    fake.chat.queue(editTurn('src/add.ts', '  return a - b;', '  return a + b;'), says('Fixed the sign.'));
    const id = await start('Fix the sign in add');
    const session = await ended(id);
    assert.equal(session.status, 'completed', JSON.stringify(session.error));
    assert.equal(session.workspace, 'app');
    assert.deepEqual(
      session.edits.map((edit: any) => [edit.file, edit.action, edit.content]),
      [['src/add.ts', 'modified', FIXED]],
    );
    assert.match(session.edits[0].diff, /-  return a - b;\n\+  return a \+ b;/);
    assert.ok(seen.some((event) => event.type === 'composer:progress' && event.data.sessionId === id && event.data.type === 'edit'));
    // The steps, as the hosted stream has them.
    const events = (await request('GET', `/api/composer/sessions/${id}/events`)).json.events;
    assert.deepEqual(events[0].data, { status: 'queued' });
    assert.ok(events.some((event: any) => event.type === 'step'));
    assert.equal((await request('GET', `/api/composer/sessions/${id}/events?after=${events.at(-1).seq}`)).json.events.length, 0);
    // Listed, newest first, without the edits' content.
    const listed = (await request('GET', '/api/composer/sessions')).json.sessions;
    assert.equal(listed[0].sessionId, id);
    assert.equal(listed[0].edits, 1);

    // Nothing written before the apply (the session edits its own copy), nor by a dry run.
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'add.ts'), 'utf8'), ADD);
    const dry = await request('POST', `/api/composer/sessions/${id}/apply`, { dryRun: true });
    assert.deepEqual(dry.json, { sessionId: id, dryRun: true, edits: [{ file: 'src/add.ts', action: 'modified' }] });
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'add.ts'), 'utf8'), ADD);

    const applied = await request('POST', `/api/composer/sessions/${id}/apply`, {});
    assert.equal(applied.status, 200, JSON.stringify(applied.json));
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'add.ts'), 'utf8'), FIXED);
    assert.equal((await request('GET', '/api/editor/text?path=src/add.ts')).json.text, FIXED);
    assert.ok(seen.some((event) => event.type === 'file:open' && event.data.path === 'src/add.ts' && event.data.reloaded === true));
    assert.ok(seen.some((event) => event.type === 'composer:apply' && event.data.sessionId === id));

    // Again: the file is no longer as the session found it.
    const again = await request('POST', `/api/composer/sessions/${id}/apply`, {});
    assert.equal(again.status, 409);
    assert.equal(again.json.error.code, 'APPLY_REFUSED');
    assert.deepEqual(again.json.error.files, ['src/add.ts']);
    git('commit', '-q', '-am', 'fixed');
  });

  it('refuses a file changed since, or with unsaved edits, and writes nothing', async () => {
    fake.chat.queue(editTurn('src/add.ts', '  return a + b;', '  return b + a;'), says('Swapped.'));
    const id = await start('Swap the operands');
    assert.equal((await ended(id)).status, 'completed');
    // Unsaved edits of the open document.
    await request('POST', '/api/editor/insert', { path: 'src/add.ts', line: 1, column: 1, text: '// mine\n' });
    const unsaved = await request('POST', `/api/composer/sessions/${id}/apply`, {});
    assert.equal(unsaved.status, 409);
    assert.match(unsaved.json.error.message, /unsaved edits/);
    // Saved: the file changed since the session read it.
    assert.equal((await request('POST', '/api/editor/save', { path: 'src/add.ts' })).status, 200);
    const changed = await request('POST', `/api/composer/sessions/${id}/apply`, {});
    assert.equal(changed.status, 409);
    assert.match(changed.json.error.message, /changed since/);
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'add.ts'), 'utf8'), `// mine\n${FIXED}`);
  });

  it('refuses a plan, a session not ended, and one that names a path no edit may touch', async () => {
    fake.chat.queue(says('{"summary": "Rename add.", "steps": ["Rename it"], "files": ["src/add.ts"]}'));
    const plan = await start('Plan a rename', 'plan');
    assert.equal((await ended(plan)).status, 'completed');
    const refused = await request('POST', `/api/composer/sessions/${plan}/apply`, {});
    assert.equal(refused.status, 409);
    assert.match(refused.json.error.message, /plan/);

    // A session stored with hostile edits (what a broken runner or a tampered store could hold).
    const owner = await desktopOwner(hosted.store.users);
    const now = new Date().toISOString();
    const record = queuedSession({
      id: randomUUID(),
      userId: owner.id,
      prompt: 'x',
      files: ['**'],
      mode: 'edit',
      workspace: 'app',
      attachments: [],
      budgets: { maxSteps: 1, maxTokens: 1, timeoutSeconds: 1 },
      createdAt: now,
    });
    await hosted.store.composerSessions.create({
      ...record,
      status: 'completed',
      endedAt: now,
      edits: [
        { file: '.git/hooks/pre-commit', action: 'created', diff: '', baseHash: null, content: '#!/bin/sh\necho owned\n' },
        { file: '../outside.txt', action: 'created', diff: '', baseHash: null, content: 'x' },
      ],
    });
    const hostile = await request('POST', `/api/composer/sessions/${record.id}/apply`, {});
    assert.equal(hostile.status, 409);
    assert.equal(hostile.json.error.code, 'APPLY_REFUSED');
    assert.deepEqual(hostile.json.error.files.sort(), ['../outside.txt', '.git/hooks/pre-commit']);
    assert.equal(fs.existsSync(path.join(workspace, '.git', 'hooks', 'pre-commit')), false);
    assert.equal(fs.existsSync(path.join(home, 'outside.txt')), false);

    // Another user's session is not the window's: 404, as for one that does not exist.
    const other = { ...record, id: randomUUID(), userId: randomUUID() };
    await hosted.store.composerSessions.create(other);
    assert.equal((await request('GET', `/api/composer/sessions/${other.id}`)).status, 404);
    assert.equal((await request('POST', `/api/composer/sessions/${other.id}/apply`, {})).status, 404);
    assert.equal((await request('GET', `/api/composer/sessions/${randomUUID()}`)).status, 404);
  });

  it("continues an ended session with a message: its progress is told again, and the apply writes both runs' edits", async () => {
    const creates = (file: string, content: string): ScriptedTurn => ({
      kind: 'tools',
      calls: [{ id: 'call_1', name: 'create_file', arguments: JSON.stringify({ path: file, content }) }],
    });
    fake.chat.queue(creates('src/mul.ts', 'export const mul = 1;\n'), says('Added mul.'));
    const id = await start('Add mul');
    assert.equal((await ended(id)).status, 'completed');
    const told = seen.length;
    fake.chat.queue(creates('src/sub.ts', 'export const sub = 1;\n'), says('Added sub.'));
    const continued = await request('POST', `/api/composer/sessions/${id}/message`, { message: 'Add sub.ts too.' });
    assert.equal(continued.status, 200, JSON.stringify(continued.json));
    assert.equal(continued.json.messages[0].message, 'Add sub.ts too.');
    await waitFor(
      () => seen.slice(told).some((event) => event.type === 'composer:status' && event.data.sessionId === id && event.data.status === 'completed'),
      undefined,
      'the end of the continued run, told',
    );
    const session = (await request('GET', `/api/composer/sessions/${id}`)).json;
    assert.equal(session.status, 'completed', JSON.stringify(session.error));
    assert.ok(seen.slice(told).some((event) => event.type === 'composer:status' && event.data.status === 'queued'));
    assert.deepEqual(session.edits.map((edit: any) => edit.file).sort(), ['src/mul.ts', 'src/sub.ts']);
    const applied = await request('POST', `/api/composer/sessions/${id}/apply`, {});
    assert.equal(applied.status, 200, JSON.stringify(applied.json));
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'mul.ts'), 'utf8'), 'export const mul = 1;\n');
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'sub.ts'), 'utf8'), 'export const sub = 1;\n');
    for (const file of ['mul.ts', 'sub.ts']) fs.rmSync(path.join(workspace, 'src', file));
  });

  it('cancels a session the model holds; applying it needs partial', async () => {
    fake.chat.queue({ kind: 'text', text: 'thinking…', hold: true });
    const id = await start('Think for a while');
    await fake.chat.held();
    const running = await request('POST', `/api/composer/sessions/${id}/apply`, {});
    assert.equal(running.status, 409);
    const cancelled = await request('POST', `/api/composer/sessions/${id}/cancel`);
    assert.equal(cancelled.status, 200);
    fake.chat.release();
    assert.equal((await ended(id)).status, 'cancelled');
    assert.match((await request('POST', `/api/composer/sessions/${id}/apply`, {})).json.error.message, /partial/);
    const partial = await request('POST', `/api/composer/sessions/${id}/apply`, { partial: true });
    assert.equal(partial.status, 200, JSON.stringify(partial.json));
    assert.deepEqual(partial.json.edits, []);
  });
});
