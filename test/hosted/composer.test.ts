// Composer sessions end to end through startHosted: a scripted OpenAI-compatible server is the
// model; sessions are created over HTTP, run by the in-process queue, polled, followed over
// SSE (resumed with Last-Event-ID) and cancelled; a registered git workspace is a bare
// repository on disk. Auth: 401 without a token, 403 without write:composer, 404 to another user.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bareRepository, git } from '../support/bare-repository.ts';
import { startFakeOpenAi, type FakeOpenAi, type ScriptedTurn } from '../support/openai-fake.ts';
import { bearer, registerClient, signedInUser, signInWithCode } from '../support/oauth.ts';
import { post, startTestHosted, type TestHosted } from '../support/hosted.ts';
import { waitFor } from '../support/wait.ts';

const SESSION = '/api/v1/composer/session';

function editTurn(file: string, search: string, replace: string): ScriptedTurn {
  return { kind: 'tools', calls: [{ id: 'call_1', name: 'edit_file', arguments: JSON.stringify({ path: file, search, replace }) }] };
}
const says = (text: string): ScriptedTurn => ({ kind: 'text', text });

async function createSession(hosted: TestHosted, key: string, body: unknown): Promise<Response> {
  return post(`${hosted.url}${SESSION}`, body, 'application/json', bearer(key));
}

async function getSession(hosted: TestHosted, key: string, id: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${hosted.url}${SESSION}/${id}`, { headers: bearer(key) });
  return { status: res.status, body: await res.json() };
}

function cancelSession(hosted: TestHosted, key: string, id: string): Promise<Response> {
  return fetch(`${hosted.url}${SESSION}/${id}/cancel`, { method: 'POST', headers: bearer(key) });
}

async function ended(hosted: TestHosted, key: string, id: string): Promise<any> {
  let body: any;
  await waitFor(
    async () => ['completed', 'failed', 'cancelled'].includes((body = (await getSession(hosted, key, id)).body).status),
    undefined,
    `the end of ${id}`,
  );
  return body;
}

/** A POST through node:http, to choose the framing: `length` (Content-Length, 0 for ''), `chunked`, or no body at all. */
function rawPost(url: string, headers: Record<string, string>, body?: string, framing?: 'length' | 'chunked'): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const framingHeaders =
      body === undefined ? {} : framing === 'chunked' ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(Buffer.byteLength(body)) };
    const request = http.request(url, { method: 'POST', headers: { ...headers, ...framingHeaders } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    request.on('error', reject);
    if (body) request.write(body);
    request.end();
  });
}

/** Reads an SSE answer to its end: each event's id, type and data. */
async function readEvents(res: Response): Promise<{ id: number; event: string; data: any }[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.includes('data:'))
    .map((block) => {
      const field = (name: string) =>
        block
          .split('\n')
          .find((line) => line.startsWith(`${name}: `))
          ?.slice(name.length + 2) ?? '';
      return { id: Number(field('id')), event: field('event'), data: JSON.parse(field('data')) };
    });
}

describe('composer sessions (POST /api/v1/composer/session …)', () => {
  let fake: FakeOpenAi;
  let hosted: TestHosted;
  let key: string;
  let otherKey: string;
  let cookie: string;
  let userId: string;

  before(async () => {
    fake = await startFakeOpenAi();
    hosted = await startTestHosted({
      completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } },
      composer: { concurrency: 1, maxQueuedPerUser: 3 },
    });
    const user = await signedInUser(hosted, 'composer@example.com');
    cookie = user.cookie;
    userId = user.user.id;
    key = (await hosted.identity.apiKeys.create(user.user.id, { name: 'cli', expiresInDays: 1 })).key;
    otherKey = (await hosted.identity.apiKeys.create((await signedInUser(hosted, 'other@example.com')).user.id, { name: 'cli', expiresInDays: 1 })).key;
  });
  after(async () => {
    await hosted.close();
    await fake.close();
  });

  it('edits attachments: 201 queued, then completed with a unified diff, base hash and content; the events replay and resume', async () => {
    fake.chat.queue(editTurn('src/add.ts', 'return a - b;', 'return a + b;'), says('Fixed the sign.'));
    const res = await createSession(hosted, key, {
      prompt: 'Fix add',
      files: ['src/**'],
      attachments: [{ path: 'src/add.ts', content: 'export function add(a, b) {\n  return a - b;\n}\n' }],
    });
    assert.equal(res.status, 201);
    const created = (await res.json()) as any;
    assert.match(created.sessionId, /^[0-9a-f-]{36}$/);
    assert.ok(['queued', 'running'].includes(created.status));
    assert.equal(created.workspace, null);

    const session = await ended(hosted, key, created.sessionId);
    assert.equal(session.status, 'completed', session.error);
    assert.equal(session.mode, 'edit');
    assert.equal(session.edits.length, 1);
    const [edit] = session.edits;
    assert.equal(edit.file, 'src/add.ts');
    assert.equal(edit.action, 'modified');
    assert.match(edit.diff, /^-  return a - b;$/m);
    assert.match(edit.diff, /^\+  return a \+ b;$/m);
    assert.match(edit.baseHash, /^[0-9a-f]{64}$/);
    assert.equal(edit.content, 'export function add(a, b) {\n  return a + b;\n}\n');
    assert.equal(session.summary, 'Fixed the sign.');
    assert.equal(session.branch, null);

    const stream = await fetch(`${hosted.url}${SESSION}/${created.sessionId}/events`, { headers: bearer(key) });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    const events = await readEvents(stream);
    assert.deepEqual(
      events.map((e) => e.id),
      events.map((_e, i) => i + 1),
    );
    assert.deepEqual(events[0]!.data, { status: 'queued' });
    assert.ok(events.some((e) => e.event === 'edit' && e.data.file === 'src/add.ts'));
    assert.deepEqual(events.at(-1)!.data, { status: 'completed' });

    // Resumed after the third: the rest, from the fourth on.
    const resumed = await readEvents(await fetch(`${hosted.url}${SESSION}/${created.sessionId}/events`, { headers: { ...bearer(key), 'last-event-id': '3' } }));
    assert.deepEqual(
      resumed.map((e) => e.id),
      events.slice(3).map((e) => e.id),
    );
  });

  it('plans without changing anything', async () => {
    fake.chat.queue(says('{"summary": "Rename add to sum.", "steps": ["Rename the function", "Update callers"], "files": ["src/add.ts"]}'));
    const res = await createSession(hosted, key, {
      prompt: 'Rename add to sum',
      files: ['src/**'],
      mode: 'plan',
      attachments: [{ path: 'src/add.ts', content: 'export function add() {}\n' }],
    });
    assert.equal(res.status, 201);
    const session = await ended(hosted, key, ((await res.json()) as any).sessionId);
    assert.equal(session.status, 'completed', session.error);
    assert.deepEqual(session.plan, { summary: 'Rename add to sum.', steps: ['Rename the function', 'Update callers'], files: ['src/add.ts'] });
    assert.deepEqual(session.edits, []);
  });

  it('follows a running session live over SSE, and cancels it', async () => {
    fake.chat.queue({ kind: 'text', text: 'thinking…', hold: true });
    const res = await createSession(hosted, key, { prompt: 'Slow', files: ['a.txt'], attachments: [{ path: 'a.txt', content: 'a\n' }] });
    const { sessionId } = (await res.json()) as any;
    await fake.chat.held();
    const live = fetch(`${hosted.url}${SESSION}/${sessionId}/events`, { headers: bearer(key) });
    const cancel = await cancelSession(hosted, key, sessionId);
    assert.equal(cancel.status, 200);
    const session = await ended(hosted, key, sessionId);
    assert.equal(session.status, 'cancelled');
    const events = await readEvents(await live);
    assert.deepEqual(events.at(-1)!.data, { status: 'cancelled' });
    fake.chat.release();
    // Cancelling again answers the session as it is.
    const again = await cancelSession(hosted, key, sessionId);
    assert.equal(((await again.json()) as any).status, 'cancelled');
  });

  it('cancel takes no body, but a body sent to it is read: bad JSON is 400 invalid_json, a type it cannot read 415, both as documented, and nothing is cancelled', async () => {
    fake.chat.queue({ kind: 'text', text: 'thinking…', hold: true });
    const res = await createSession(hosted, key, { prompt: 'Hold', files: ['a.txt'], attachments: [{ path: 'a.txt', content: 'a\n' }] });
    const { sessionId } = (await res.json()) as any;
    await fake.chat.held();
    const send = (contentType: string, body: string) =>
      fetch(`${hosted.url}${SESSION}/${sessionId}/cancel`, { method: 'POST', headers: { ...bearer(key), 'content-type': contentType }, body });
    const documented = (await (await fetch(`${hosted.url}/openapi.json`)).json()) as any;
    const path = Object.keys(documented.paths).find((key) => key.endsWith('/composer/session/{sessionId}/cancel'))!;
    const responses = documented.paths[path].post.responses;
    try {
      for (const [contentType, body, status, code] of [
        ['application/json', '{"oops', 400, 'invalid_json'],
        ['application/xml', '<cancel/>', 415, 'unsupported_media_type'],
      ] as const) {
        const answer = await send(contentType, body);
        assert.equal(answer.status, status);
        assert.equal(((await answer.json()) as any).error, code);
        assert.ok(JSON.stringify(responses[status]).includes(code), `${code} is documented for ${status}`);
      }
      assert.equal((await getSession(hosted, key, sessionId)).body.status, 'running');
      // A body it can read is ignored.
      assert.equal((await send('application/json', '{}')).status, 200);
    } finally {
      fake.chat.release();
    }
    assert.equal((await ended(hosted, key, sessionId)).status, 'cancelled');
  });

  it('cancel takes an empty body of any type — JSON with zero bytes, Content-Length: 0, chunked with no chunk — as no body', async () => {
    const unknown = `${hosted.url}${SESSION}/00000000-0000-4000-8000-000000000000/cancel`;
    const without = await rawPost(unknown, bearer(key));
    assert.equal(without.status, 404);
    const empties: [string, Record<string, string>, 'chunked' | 'length'][] = [
      ['JSON, zero bytes', { 'content-type': 'application/json' }, 'length'],
      ['JSON, chunked', { 'content-type': 'application/json' }, 'chunked'],
      ['no type, chunked', {}, 'chunked'],
      ['XML, zero bytes', { 'content-type': 'application/xml' }, 'length'],
      ['text, zero bytes', { 'content-type': 'text/plain' }, 'length'],
      ['form, chunked', { 'content-type': 'application/x-www-form-urlencoded' }, 'chunked'],
    ];
    for (const [what, headers, framing] of empties) {
      const answer = await rawPost(unknown, { ...bearer(key), ...headers }, '', framing);
      assert.deepEqual([answer.status, answer.body], [without.status, without.body], what);
    }
    // And it cancels: a running session, with the JSON type and no byte.
    fake.chat.queue({ kind: 'text', text: 'thinking…', hold: true });
    const res = await createSession(hosted, key, { prompt: 'Hold', files: ['a.txt'], attachments: [{ path: 'a.txt', content: 'a\n' }] });
    const { sessionId } = (await res.json()) as any;
    await fake.chat.held();
    try {
      const cancelled = await rawPost(`${hosted.url}${SESSION}/${sessionId}/cancel`, { ...bearer(key), 'content-type': 'application/json' }, '', 'length');
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.equal(cancelled.body.cancelRequested, true);
    } finally {
      fake.chat.release();
    }
    assert.equal((await ended(hosted, key, sessionId)).status, 'cancelled');
    // A body that is not empty keeps its answer, chunked too.
    assert.equal((await rawPost(unknown, { ...bearer(key), 'content-type': 'application/xml' }, '<cancel/>', 'chunked')).status, 415);
    assert.equal((await rawPost(unknown, { ...bearer(key), 'content-type': 'application/json' }, '{"oops', 'chunked')).status, 400);
  });

  it('runs on a registered git workspace: a branch loom/composer/<id> with the commit, pushed back', async (t) => {
    const { bare } = bareRepository(t, { 'README.md': '# App\n', 'src/add.ts': 'export const add = (a, b) => a - b;\n' });
    await hosted.store.composerWorkspaces.put({ name: 'app', repo: bare, branch: null, push: true, createdAt: new Date().toISOString() });
    t.after(() => hosted.store.composerWorkspaces.remove('app'));
    fake.chat.queue(editTurn('src/add.ts', 'export const add = (a, b) => a - b;', 'export const add = (a, b) => a + b;'), says('Done.'));
    // The only workspace registered and no attachments: the session runs on it.
    const res = await createSession(hosted, key, { prompt: 'Fix add', files: ['src/*.ts'] });
    assert.equal(res.status, 201);
    const created = (await res.json()) as any;
    assert.equal(created.workspace, 'app');
    const session = await ended(hosted, key, created.sessionId);
    assert.equal(session.status, 'completed', session.error);
    assert.equal(session.branch, `loom/composer/${created.sessionId}`);
    assert.match(session.commit, /^[0-9a-f]{40}$/);
    assert.equal(session.pushed, true);
    assert.equal(git(bare, 'rev-parse', `refs/heads/${session.branch}`), session.commit);
    assert.equal(git(bare, 'show', `${session.commit}:src/add.ts`), 'export const add = (a, b) => a + b;');
    assert.equal(git(bare, 'rev-list', '--count', 'main'), '1', 'main is untouched');
  });

  it('continues an ended session with a message: the same session goes on from its edits, told what it did, and its diffs stay from the files as first found', async () => {
    fake.chat.queue(editTurn('src/add.ts', 'return a - b;', 'return a + b;'), says('Fixed the sign.'));
    const original = 'export function add(a, b) {\n  return a - b;\n}\n';
    const res = await createSession(hosted, key, { prompt: 'Fix add', files: ['src/**'], attachments: [{ path: 'src/add.ts', content: original }] });
    const { sessionId } = (await res.json()) as any;
    const first = await ended(hosted, key, sessionId);
    assert.equal(first.status, 'completed', first.error);
    assert.equal(first.steps, 2);

    fake.chat.queue(
      editTurn('src/add.ts', 'return a + b;', 'return a + b + 0;'),
      { kind: 'tools', calls: [{ id: 'call_2', name: 'create_file', arguments: JSON.stringify({ path: 'src/sub.ts', content: 'export const sub = 1;\n' }) }] },
      says('Added sub.'),
    );
    const asked = fake.requests.length;
    const continued = await post(`${hosted.url}${SESSION}/${sessionId}/message`, { message: 'Now add sub.ts too.' }, 'application/json', bearer(key));
    assert.equal(continued.status, 200);
    const queued = (await continued.json()) as any;
    assert.equal(queued.sessionId, sessionId);
    assert.ok(['queued', 'running'].includes(queued.status));
    assert.equal(queued.messages.length, 1);
    assert.deepEqual(
      { ...queued.messages[0], at: undefined },
      { message: 'Now add sub.ts too.', after: 'completed', seq: queued.messages[0].seq, at: undefined },
    );

    const second = await ended(hosted, key, sessionId);
    assert.equal(second.status, 'completed', second.error);
    assert.equal(second.summary, 'Added sub.');
    assert.equal(second.steps, 5, 'turns count on from the first run');
    const edits = Object.fromEntries(second.edits.map((edit: any) => [edit.file, edit]));
    assert.deepEqual(Object.keys(edits).sort(), ['src/add.ts', 'src/sub.ts']);
    assert.equal(edits['src/add.ts'].baseHash, first.edits[0].baseHash, 'still a change from the attachment as sent');
    assert.match(edits['src/add.ts'].diff, /^-  return a - b;$/m);
    assert.match(edits['src/add.ts'].diff, /^\+  return a \+ b \+ 0;$/m);
    assert.equal(edits['src/sub.ts'].action, 'created');

    // The model was told the task, its own last words, what it had changed, then the message.
    const prompt = fake.requests[asked]!.body.messages as { role: string; content: string }[];
    assert.match(prompt[1]!.content, /Fix add/);
    assert.deepEqual(prompt[2], { role: 'assistant', content: 'Fixed the sign.' });
    assert.match(prompt[3]!.content, /Your earlier work ended: you finished it with a summary\. Your changes so far: src\/add\.ts \(modified\)/);
    assert.match(prompt[3]!.content, /Now add sub\.ts too\.$/);

    // From the start, the stream goes on past the first end to the second; from the message's seq, only the second run.
    const events = await readEvents(await fetch(`${hosted.url}${SESSION}/${sessionId}/events`, { headers: bearer(key) }));
    assert.deepEqual(
      events.filter((e) => e.event === 'status' || e.event === 'message').map((e) => e.data.status ?? e.data.message),
      ['queued', 'running', 'completed', 'Now add sub.ts too.', 'queued', 'running', 'completed'],
    );
    const run = await readEvents(await fetch(`${hosted.url}${SESSION}/${sessionId}/events?after=${queued.messages[0].seq - 1}`, { headers: bearer(key) }));
    assert.equal(run[0]!.event, 'message');
    assert.deepEqual(run.at(-1)!.data, { status: 'completed' });
  });

  it("continues on a git workspace from the commit it started from: one commit on its branch, with both runs' edits", async (t) => {
    const { bare } = bareRepository(t, { 'README.md': '# App\n', 'src/add.ts': 'export const add = (a, b) => a - b;\n' });
    await hosted.store.composerWorkspaces.put({ name: 'app', repo: bare, branch: null, push: true, createdAt: new Date().toISOString() });
    t.after(() => hosted.store.composerWorkspaces.remove('app'));
    const base = git(bare, 'rev-parse', 'main');
    fake.chat.queue(editTurn('src/add.ts', 'export const add = (a, b) => a - b;', 'export const add = (a, b) => a + b;'), says('Done.'));
    const { sessionId } = (await (await createSession(hosted, key, { prompt: 'Fix add', files: ['**'], workspace: 'app' })).json()) as any;
    const first = await ended(hosted, key, sessionId);
    assert.equal(first.status, 'completed', first.error);
    assert.equal(first.base, base);
    assert.deepEqual(
      first.edits.map((edit: any) => edit.file),
      ['src/add.ts'],
    );

    // main moves on meanwhile: the follow-up still starts from the session's base.
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-composer-moved-'));
    t.after(() => fs.rmSync(other, { recursive: true, force: true }));
    git(other, 'clone', '-q', bare, '.');
    fs.writeFileSync(path.join(other, 'README.md'), '# App, moved on\n');
    git(other, 'commit', '-qam', 'moved on');
    git(other, 'push', '-q', 'origin', 'HEAD:main');
    fake.chat.queue(editTurn('README.md', '# App', '# App\n\nAdds numbers.'), says('Documented.'));
    const continued = await post(`${hosted.url}${SESSION}/${sessionId}/message`, { message: 'Document it in the README.' }, 'application/json', bearer(key));
    assert.equal(continued.status, 200);
    const second = await ended(hosted, key, sessionId);
    assert.equal(second.status, 'completed', second.error);
    assert.equal(second.base, base);
    assert.deepEqual(second.edits.map((edit: any) => edit.file).sort(), ['README.md', 'src/add.ts']);
    assert.equal(second.pushed, true);
    assert.notEqual(second.commit, first.commit);
    assert.equal(git(bare, 'rev-parse', `refs/heads/${second.branch}`), second.commit);
    assert.equal(git(bare, 'rev-parse', `${second.commit}^`), base, 'one commit on the base');
    assert.equal(git(bare, 'show', `${second.commit}:src/add.ts`), 'export const add = (a, b) => a + b;');
  });

  it('continues a plan: the model sees its plan and the message, and answers the whole plan again', async () => {
    fake.chat.queue(says('{"summary": "Rename add.", "steps": ["Rename it"], "files": ["src/add.ts"]}'));
    const res = await createSession(hosted, key, {
      prompt: 'Rename add to sum',
      files: ['src/**'],
      mode: 'plan',
      attachments: [{ path: 'src/add.ts', content: 'export function add() {}\n' }],
    });
    const { sessionId } = (await res.json()) as any;
    await ended(hosted, key, sessionId);
    fake.chat.queue(says('{"summary": "Rename add, with tests.", "steps": ["Rename it", "Test it"], "files": ["src/add.ts", "test/add.test.ts"]}'));
    const asked = fake.requests.length;
    assert.equal((await post(`${hosted.url}${SESSION}/${sessionId}/message`, { message: 'Add a test step.' }, 'application/json', bearer(key))).status, 200);
    const session = await ended(hosted, key, sessionId);
    assert.equal(session.status, 'completed', session.error);
    assert.deepEqual(session.plan.steps, ['Rename it', 'Test it']);
    assert.equal(session.steps, 2);
    const prompt = fake.requests[asked]!.body.messages as { role: string; content: string }[];
    assert.deepEqual(prompt.at(-2), { role: 'assistant', content: JSON.stringify({ summary: 'Rename add.', steps: ['Rename it'], files: ['src/add.ts'] }) });
    assert.match(prompt.at(-1)!.content, /Add a test step\./);
  });

  it("a message to a session still running is 409 session_running, an empty one 400, another user's 404; none changes the session", async () => {
    fake.chat.queue({ kind: 'text', text: 'thinking…', hold: true });
    const { sessionId } = (await (
      await createSession(hosted, key, { prompt: 'Slow', files: ['a.txt'], attachments: [{ path: 'a.txt', content: 'a\n' }] })
    ).json()) as any;
    await fake.chat.held();
    const say = (body: unknown, as = key) => post(`${hosted.url}${SESSION}/${sessionId}/message`, body, 'application/json', bearer(as));
    const running = await say({ message: 'More.' });
    assert.equal(running.status, 409);
    assert.equal(((await running.json()) as any).error, 'session_running');
    fake.chat.release();
    const session = await ended(hosted, key, sessionId);
    for (const body of [{ message: '' }, { message: '   ' }, {}, { message: 'x', extra: 1 }, { message: 'x'.repeat(32_001) }]) {
      const refused = await say(body);
      assert.equal(refused.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal(((await refused.json()) as any).error, 'validation_error');
    }
    const other = await say({ message: 'Mine now.' }, otherKey);
    assert.equal(other.status, 404);
    const after = (await getSession(hosted, key, sessionId)).body;
    assert.deepEqual(after, session);
  });

  it("carries the agents' budgets; a session that runs out of turns ends failed, saying which", async (t) => {
    const limited = await startTestHosted({
      completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } },
      agents: { maxSteps: 1, maxTokens: 20_000, timeoutSeconds: 120 },
    });
    t.after(() => limited.close());
    const user = await signedInUser(limited, 'budgets@example.com');
    const limitedKey = (await limited.identity.apiKeys.create(user.user.id, { name: 'cli', expiresInDays: 1 })).key;
    // The first turn edits; a second turn would be needed to finish.
    fake.chat.queue(editTurn('a.ts', 'return 1;', 'return 2;'));
    const res = await createSession(limited, limitedKey, { prompt: 'Return two', files: ['a.ts'], attachments: [{ path: 'a.ts', content: 'return 1;\n' }] });
    assert.equal(res.status, 201);
    const session = await ended(limited, limitedKey, ((await res.json()) as any).sessionId);
    assert.deepEqual(session.budgets, { maxSteps: 1, maxTokens: 20_000, timeoutSeconds: 120 });
    assert.equal(session.status, 'failed');
    assert.equal(session.error, 'The session used its 1 model turn before it was done (agents.maxSteps).');
    assert.equal(session.steps, 1);
    assert.deepEqual(
      session.edits.map((edit: any) => edit.file),
      ['a.ts'],
      'the edits made before are kept',
    );
  });

  it('refuses bad requests with 400, and an unknown workspace', async () => {
    for (const body of [
      { prompt: 'x', files: ['/etc/passwd'], attachments: [{ path: 'a', content: '' }] },
      { prompt: 'x', files: ['../up'], attachments: [{ path: 'a', content: '' }] },
      { prompt: 'x', files: ['a'], attachments: [{ path: '../a', content: '' }] },
      { prompt: 'x', files: ['a'], attachments: [{ path: '.git/config', content: '' }] },
      { prompt: 'x', files: ['a'], workspace: 'nope' },
      { prompt: 'x', files: ['a'] },
      { prompt: '', files: ['a'], attachments: [{ path: 'a', content: '' }] },
      { prompt: 'x', files: [], attachments: [{ path: 'a', content: '' }] },
      { prompt: 'x', files: ['a'], mode: 'yolo', attachments: [{ path: 'a', content: '' }] },
      { prompt: 'x', files: Array.from({ length: 101 }, () => 'a'), attachments: [{ path: 'a', content: '' }] },
      // A class RE2 cannot compile: was JavaScript's SyntaxError, a 500.
      { prompt: 'x', files: ['src/[z-a].ts'], attachments: [{ path: 'a', content: '' }] },
    ]) {
      const res = await createSession(hosted, key, body);
      const answer = (await res.json()) as any;
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(answer.error, 'validation_error');
    }
  });

  it('refuses attachments a scratch copy cannot hold side by side — a file and a folder of one name, a name over 255 bytes — with 400, storing nothing', async () => {
    const before = await hosted.store.composerSessions.countActive(userId);
    for (const attachments of [
      [
        { path: 'a', content: 'x' },
        { path: 'a/b', content: 'y' },
      ],
      [
        { path: 'a/b', content: 'y' },
        { path: 'A', content: 'x' },
      ],
      [{ path: `${'n'.repeat(256)}.txt`, content: '' }],
      [{ path: `src/${'€'.repeat(86)}`, content: '' }],
    ]) {
      const res = await createSession(hosted, key, { prompt: 'x', files: ['**'], attachments });
      const answer = (await res.json()) as any;
      assert.equal(res.status, 400, JSON.stringify(attachments).slice(0, 200));
      assert.equal(answer.error, 'validation_error');
      assert.match(answer.message, /^attachments\[[01]\]\.path /);
    }
    assert.deepEqual(await hosted.store.composerSessions.countActive(userId), before);
  });

  it("a session that fails for a file-system reason says so without the server's paths", async (t) => {
    const broken = await startTestHosted({ completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } } });
    t.after(() => broken.close());
    const user = await signedInUser(broken, 'broken@example.com');
    const brokenKey = (await broken.identity.apiKeys.create(user.user.id, { name: 'cli', expiresInDays: 1 })).key;
    // A file where the scratch copies' folder goes: every copy fails to be made.
    fs.mkdirSync(path.join(broken.dataDir, 'composer'), { recursive: true });
    fs.writeFileSync(path.join(broken.dataDir, 'composer', 'scratch'), 'in the way\n');
    const res = await createSession(broken, brokenKey, { prompt: 'Fix it', files: ['a/b.ts'], attachments: [{ path: 'a/b.ts', content: 'x\n' }] });
    assert.equal(res.status, 201);
    const { sessionId } = (await res.json()) as any;
    const session = await ended(broken, brokenKey, sessionId);
    assert.equal(session.status, 'failed');
    assert.match(session.error, /ENOTDIR|not a directory/);
    const answers = [
      JSON.stringify(session),
      await (await fetch(`${broken.url}${SESSION}/${sessionId}/events`, { headers: bearer(brokenKey) })).text(),
      JSON.stringify(await broken.store.composerSessions.get(sessionId)),
    ];
    for (const folder of [broken.dataDir, fs.realpathSync(broken.dataDir), os.tmpdir()]) {
      for (const answer of answers) assert.ok(!answer.includes(folder), `${folder} in ${answer.slice(0, 400)}`);
    }
  });

  it("takes attachments past the server's bodyLimit, up to their own caps", async () => {
    // Three files of 900,000 characters: 2.7 MB of JSON, past the 1 MiB bodyLimit meant for small JSON.
    fake.chat.queue(says('Nothing to do.'));
    const big = Array.from({ length: 3 }, (_, index) => ({ path: `big${index}.txt`, content: 'x'.repeat(900_000) }));
    const res = await createSession(hosted, key, { prompt: 'Read them', files: ['*.txt'], mode: 'plan', attachments: big });
    assert.equal(res.status, 201, await res.clone().text());
    await ended(hosted, key, ((await res.json()) as any).sessionId);
    // Nine files of 1 MiB each: within the body limit, past the 8 MiB the attachments may hold.
    const tooMuch = Array.from({ length: 9 }, (_, index) => ({ path: `f${index}.txt`, content: 'y'.repeat(1024 * 1024) }));
    const refused = await createSession(hosted, key, { prompt: 'x', files: ['*.txt'], attachments: tooMuch });
    assert.equal(refused.status, 400);
    assert.equal(((await refused.json()) as any).error, 'validation_error');
  });

  it('503 model_unavailable, and nothing stored, when no model here can chat', async (t) => {
    const bare = await startTestHosted(); // the builtin model alone: it completes code, it does not chat
    t.after(() => bare.close());
    const bareKey = (await bare.identity.apiKeys.create((await signedInUser(bare, 'bare@example.com')).user!.id, { name: 'k', expiresInDays: 1 })).key;
    const res = await createSession(bare, bareKey, { prompt: 'x', files: ['a'], attachments: [{ path: 'a', content: '' }] });
    assert.equal(res.status, 503);
    const body = (await res.json()) as any;
    assert.equal(body.error, 'model_unavailable');
    assert.match(body.message, /can chat/);
    // The config file's key, and the environment variable (no settings.json: that is the desktop app's), and no path on the server.
    assert.match(body.hint, /openai\.baseUrl is "openai": \{"baseUrl": …\} in the server's config file, or LOOM_OPENAI_BASE_URL/);
    assert.match(body.hint, /gguf\.model is "gguf": \{"model": …\} in the server's config file, or LOOM_GGUF_MODEL/);
    assert.doesNotMatch(body.hint, / \/[a-z]|<data dir>/);
    assert.doesNotMatch(body.hint, /settings\.json/);
    assert.deepEqual(await bare.store.composerSessions.countActive((await signedInUser(bare, 'bare@example.com')).user!.id), { queued: 0, running: 0 });
  });

  it('401 without a token, 403 without write:composer, 404 for another user and for no session', async () => {
    const body = { prompt: 'x', files: ['a'], attachments: [{ path: 'a', content: '' }] };
    const anonymous = await post(`${hosted.url}${SESSION}`, body);
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as any).error, 'unauthorized');
    const { client } = await registerClient(hosted);
    const tabOnly = (await signInWithCode(hosted, client, 'read:tab', cookie)).access_token;
    const refused = await createSession(hosted, tabOnly, body);
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as any).error, 'insufficient_scope');

    fake.chat.queue(says('Nothing to do.'));
    const { sessionId } = (await (await createSession(hosted, key, body)).json()) as any;
    await ended(hosted, key, sessionId);
    for (const url of [`${SESSION}/${sessionId}`, `${SESSION}/${sessionId}/events`]) {
      const res = await fetch(`${hosted.url}${url}`, { headers: bearer(otherKey) });
      assert.equal(res.status, 404, url);
      assert.equal(((await res.json()) as any).error, 'not_found');
    }
    const cancel = await cancelSession(hosted, otherKey, sessionId);
    assert.equal(cancel.status, 404);
    assert.equal((await getSession(hosted, key, '00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await getSession(hosted, key, 'not-a-uuid')).status, 404);
  });

  it("runs at most composer.maxRunningPerUser of a user's sessions at once; the next waits queued, other users' run", async (t) => {
    const limited = await startTestHosted({
      completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } },
      composer: { concurrency: 3, maxRunningPerUser: 1 },
    });
    t.after(() => limited.close());
    const keyOf = async (email: string) =>
      (await limited.identity.apiKeys.create((await signedInUser(limited, email)).user.id, { name: 'cli', expiresInDays: 1 })).key;
    const [ada, bob] = [await keyOf('ada@example.com'), await keyOf('bob@example.com')];
    const held = new Set<string>();
    fake.chat.respondWith((request) => {
      held.add(/\[session (\w+)\]/.exec(JSON.stringify(request.messages))?.[1] ?? '');
      return { kind: 'text', text: '{"summary": "s", "steps": ["x"], "files": ["a"]}', hold: true };
    });
    t.after(() => {
      fake.chat.respondWith(undefined);
      fake.chat.release();
    });
    const start = async (userKey: string, name: string) =>
      (
        (await (
          await createSession(limited, userKey, { prompt: `[session ${name}] plan`, files: ['a'], mode: 'plan', attachments: [{ path: 'a', content: '' }] })
        ).json()) as any
      ).sessionId as string;
    const adaFirst = await start(ada, 'adaFirst');
    const adaSecond = await start(ada, 'adaSecond');
    const bobFirst = await start(bob, 'bobFirst');
    await waitFor(() => held.has('adaFirst') && held.has('bobFirst'), undefined, 'ada’s first and bob’s sessions at the model');
    const status = async (userKey: string, id: string) => (await getSession(limited, userKey, id)).body.status;
    assert.equal(await status(ada, adaFirst), 'running');
    assert.equal(await status(bob, bobFirst), 'running');
    assert.equal(await status(ada, adaSecond), 'queued', 'a free slot, but ada has one running');
    assert.equal(held.has('adaSecond'), false);
    fake.chat.release();
    await waitFor(() => held.has('adaSecond'), undefined, 'ada’s second session at the model once her first ended');
    fake.chat.release();
    for (const [userKey, id] of [
      [ada, adaFirst],
      [ada, adaSecond],
      [bob, bobFirst],
    ] as const)
      assert.equal((await ended(limited, userKey, id)).status, 'completed');
  });

  it('429 with Retry-After past the queued sessions a user may have', async () => {
    fake.chat.queue({ kind: 'text', text: 'busy', hold: true });
    const body = { prompt: 'x', files: ['a'], attachments: [{ path: 'a', content: '' }] };
    const ids: string[] = [];
    const first = (await (await createSession(hosted, key, body)).json()) as any;
    ids.push(first.sessionId);
    await fake.chat.held();
    // concurrency 1: the first runs, three wait; the fifth is one too many.
    for (let i = 0; i < 3; i++) ids.push(((await (await createSession(hosted, key, body)).json()) as any).sessionId);
    const refused = await createSession(hosted, key, body);
    assert.equal(refused.status, 429);
    assert.equal(((await refused.json()) as any).error, 'rate_limited');
    assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
    // Cancelled, queued ones end at once (the waiting ones first: the running one's end would let the next run); the running one too.
    for (const id of [...ids].reverse()) await cancelSession(hosted, key, id);
    fake.chat.release();
    for (const id of ids) assert.equal((await ended(hosted, key, id)).status, 'cancelled');
  });
});
