// Agent tasks through the local API, end to end on the real server (`startLocal`) with
// settings.json pointing `completion.openai` at the scripted OpenAI-compatible server: run,
// follow on /events (opened with a ticket), status with diffs, step log, list, webhooks for
// agent:complete, revert and its conflicts; the 6th task refused; a task that tries to leave the
// workspace or write .git stopped and saying so; a restart in the middle; refusals at once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import WebSocket from 'ws';
import { calls, MATH, says } from '../core/agents/support.ts';
import { independentlyVerified, startReceiver } from '../core/webhooks/support.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

const TOKEN = 'loom_agents_test_token_0123456789abcdef';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SWAP = calls(['edit_file', { path: 'src/math.ts', search: '  return a + b;\n', replace: '  return b + a;\n' }]);

interface AgentLocal {
  local: TestLocal;
  fake: FakeOpenAi;
  file(relative: string): string | null;
}

/** The server with a workspace holding src/math.ts and settings.json naming the scripted server. */
async function startAgentLocal(t: TestContext, options: { settings?: Record<string, unknown>; fake?: FakeOpenAi; dirs?: Dirs } = {}): Promise<AgentLocal> {
  const fake = options.fake ?? (await startFakeOpenAi());
  if (!options.fake) t.after(() => fake.close());
  const files = { 'src/math.ts': MATH, '.git/config': '[core]\n' };
  const local = await startTestLocal({
    ...(options.dirs ?? { files }),
    settings: { apiToken: TOKEN, completion: { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } }, ...options.settings },
  });
  t.after(() => local.close());
  const file = (relative: string) => {
    const full = path.join(local.workspace, relative);
    return fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : null;
  };
  return { local, fake, file };
}

/** Folders kept across a restart (startTestLocal leaves folders it is given in place). */
interface Dirs {
  workspace: string;
  configDir: string;
  dataDir: string;
}

function keptDirs(t: TestContext, files: Record<string, string>): Dirs {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-agents-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const dirs = { workspace: path.join(root, 'ws'), configDir: path.join(root, 'config'), dataDir: path.join(root, 'data') };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { mode: 0o700 });
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dirs.workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(dirs.workspace, name), text);
  }
  return dirs;
}

/** The /events stream, opened the way a browser page does: with a ticket. */
async function openEvents(t: TestContext, local: TestLocal): Promise<any[]> {
  const { json } = await local.request('POST', '/api/events/ticket');
  const socket = new WebSocket(`ws://127.0.0.1:${local.port}/events?ticket=${json.ticket}`);
  t.after(() => socket.terminate());
  const messages: any[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  await waitFor(() => messages.length > 0, undefined, 'the hello');
  return messages;
}

async function ended(local: TestLocal, taskId: string): Promise<any> {
  let status: any;
  await waitFor(
    async () => (status = (await local.request('GET', `/api/agent/status/${taskId}`)).json).status !== 'running',
    undefined,
    `the end of ${taskId}`,
  );
  return status;
}

describe('local API: agent tasks', () => {
  it('runs a task: /events shows start, steps and the end; the status lists the change with its diff; a webhook is signed; revert undoes it', async (t) => {
    const receiver = await startReceiver(t);
    const { local, fake, file } = await startAgentLocal(t, {
      settings: { webhooks: [{ url: `${receiver.url}/agents`, events: ['agent:complete'], secret: SECRET }] },
    });
    const events = await openEvents(t, local);
    fake.chat.queue(SWAP, says('Swapped the operands of add.'));

    const started = await local.request('POST', '/api/agent/run', { task: 'Swap the operands of add', files: ['src/**/*.ts'] });
    assert.equal(started.status, 200);
    assert.deepEqual(Object.keys(started.json).sort(), ['estimatedTime', 'status', 'taskId']);
    assert.equal(started.json.status, 'running');
    assert.ok(Number.isInteger(started.json.estimatedTime) && started.json.estimatedTime >= 1);
    const { taskId } = started.json;

    await waitFor(() => events.some((event) => event.type === 'agent:complete' && event.data.taskId === taskId), undefined, 'agent:complete on /events');
    const ofTask = events.filter((event) => event.data?.taskId === taskId);
    assert.equal(ofTask[0].type, 'agent:start');
    assert.equal(ofTask.at(-1).type, 'agent:complete');
    assert.ok(
      ofTask.some((event) => event.type === 'agent:step' && event.data.tool === 'edit_file' && /\+  return b \+ a;/.test(event.data.diff)),
      'the edit as a diff',
    );
    assert.deepEqual(ofTask.at(-1).data.changes, [{ file: 'src/math.ts', action: 'modified' }]);

    const status = (await local.request('GET', `/api/agent/status/${taskId}`)).json;
    assert.deepEqual([status.status, status.reason, status.summary], ['completed', 'done', 'Swapped the operands of add.']);
    assert.equal(status.steps, 2);
    assert.ok(status.tokens > 0);
    assert.deepEqual(
      status.changes.map((change: any) => [change.file, change.action]),
      [['src/math.ts', 'modified']],
    );
    assert.match(status.changes[0].diff, /-  return a \+ b;\n\+  return b \+ a;/);
    assert.equal(file('src/math.ts'), MATH.replace('a + b', 'b + a'));

    const steps = (await local.request('GET', `/api/agent/steps/${taskId}`)).json.steps;
    assert.deepEqual(
      steps.map((step: any) => step.kind),
      ['model', 'tool', 'model'],
    );
    assert.equal(steps[1].ok, true);
    assert.deepEqual(
      (await local.request('GET', `/api/agent/steps/${taskId}?after=2`)).json.steps.map((step: any) => step.index),
      [3],
    );
    const list = (await local.request('GET', '/api/agent/tasks')).json.tasks;
    assert.deepEqual(
      list.map((task: any) => [task.taskId, task.status]),
      [[taskId, 'completed']],
    );
    assert.equal('diff' in list[0].changes[0], false, 'the list leaves the diffs to the status');

    await waitFor(() => receiver.requests.length === 1, undefined, 'the agent:complete webhook');
    assert.ok(independentlyVerified(SECRET, receiver.requests[0]!));
    const hook = JSON.parse(receiver.requests[0]!.body);
    assert.deepEqual([hook.type, hook.data.taskId, hook.data.status], ['agent:complete', taskId, 'completed']);

    const reverted = await local.request('POST', `/api/agent/revert/${taskId}`);
    assert.equal(reverted.status, 200);
    assert.ok(reverted.json.revertedAt);
    assert.equal(file('src/math.ts'), MATH);
  });

  it('refuses a revert when a file changed since the task, naming it (409); nothing is undone', async (t) => {
    const { local, fake, file } = await startAgentLocal(t);
    fake.chat.queue(SWAP, says('Done.'));
    const { taskId } = (await local.request('POST', '/api/agent/run', { task: 'Swap', files: ['src/**'] })).json;
    await ended(local, taskId);
    local.write('src/math.ts', `${file('src/math.ts')}// mine\n`);
    const refused = await local.request('POST', `/api/agent/revert/${taskId}`);
    assert.equal(refused.status, 409);
    assert.equal(refused.json.error.code, 'REVERT_CONFLICT');
    assert.deepEqual(refused.json.error.files, ['src/math.ts']);
    assert.ok(refused.json.error.hint);
    assert.match(file('src/math.ts')!, /b \+ a;[\s\S]*\/\/ mine\n$/);
  });

  it('refuses a 6th task while 5 run with RATE_LIMIT_EXCEEDED, retryAfter and Retry-After; cancel frees a slot', async (t) => {
    const { local, fake } = await startAgentLocal(t);
    fake.set({ holdAfterChunks: 0, chatText: 'Nothing to do.' });
    let holds = 0;
    const counting = async () => {
      for (;;) {
        await fake.nextHold();
        holds++;
      }
    };
    void counting();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await local.request('POST', '/api/agent/run', { task: `task ${i}`, files: ['src/**'] })).json.taskId);
    await waitFor(() => holds === 5, undefined, 'five model calls under way');
    const sixth = await local.request('POST', '/api/agent/run', { task: 'the sixth', files: ['src/**'] });
    assert.equal(sixth.status, 429);
    assert.equal(sixth.json.error.code, 'RATE_LIMIT_EXCEEDED');
    assert.ok(Number.isInteger(sixth.json.error.retryAfter) && sixth.json.error.retryAfter >= 1);
    assert.equal(sixth.headers['retry-after'], String(sixth.json.error.retryAfter));

    const cancelled = await local.request('POST', `/api/agent/cancel/${ids[0]}`);
    assert.deepEqual([cancelled.status, cancelled.json.status, cancelled.json.reason], [200, 'cancelled', 'cancelled']);
    const again = await local.request('POST', '/api/agent/run', { task: 'the sixth', files: ['src/**'] });
    assert.equal(again.status, 200);
    for (const id of [...ids.slice(1), again.json.taskId]) await local.request('POST', `/api/agent/cancel/${id}`);
    fake.set({ holdAfterChunks: undefined });
    fake.release();
  });

  it('stops a task that tries to write .git/config or leave the workspace, and the step log says so', async (t) => {
    const { local, fake, file } = await startAgentLocal(t);
    fake.chat.queue(
      calls(
        ['edit_file', { path: '.git/config', search: '[core]\n', replace: '[core]\n\thooksPath = /tmp/evil\n' }],
        ['create_file', { path: '../outside.txt', content: 'x' }],
      ),
      says('I could not change those files.'),
    );
    const { taskId } = (await local.request('POST', '/api/agent/run', { task: 'Harden', files: ['**'] })).json;
    const status = await ended(local, taskId);
    assert.deepEqual(status.changes, []);
    const tools = (await local.request('GET', `/api/agent/steps/${taskId}`)).json.steps.filter((step: any) => step.kind === 'tool');
    assert.deepEqual(
      tools.map((step: any) => step.ok),
      [false, false],
    );
    assert.match(tools[0].text, /^\.git\/config is in a git directory \(\.git\) or would create it; Loom never writes there\./);
    assert.match(tools[1].text, /^\.\.\/outside\.txt is outside the workspace\./);
    assert.equal(file('.git/config'), '[core]\n');
    assert.equal(fs.existsSync(path.join(local.workspace, '..', 'outside.txt')), false);
  });

  it('a restart in the middle ends the task failed, interrupted, with the change it had applied, which can be reverted', async (t) => {
    const dirs = keptDirs(t, { 'src/math.ts': MATH });
    const first = await startAgentLocal(t, { dirs });
    first.fake.chat.queue(SWAP, { kind: 'text', text: 'thinking…', hold: true });
    const held = first.fake.chat.held();
    const { taskId } = (await first.local.request('POST', '/api/agent/run', { task: 'Swap', files: ['src/**'] })).json;
    await held;
    await first.local.close();

    const second = await startAgentLocal(t, { fake: first.fake, dirs });
    const status = (await second.local.request('GET', `/api/agent/status/${taskId}`)).json;
    assert.deepEqual([status.status, status.reason], ['failed', 'interrupted']);
    assert.deepEqual(
      status.changes.map((change: any) => [change.file, change.action]),
      [['src/math.ts', 'modified']],
    );
    assert.equal(second.file('src/math.ts'), MATH.replace('a + b', 'b + a'));
    assert.equal((await second.local.request('POST', `/api/agent/revert/${taskId}`)).status, 200);
    assert.equal(second.file('src/math.ts'), MATH);
  });

  it('refuses at once what cannot run: no chat model, a model that cannot chat or is unknown, an empty task, globs matching nothing', async (t) => {
    const local = await startTestLocal({ files: { 'src/math.ts': MATH }, settings: { apiToken: TOKEN } });
    t.after(() => local.close());
    const noModel = await local.request('POST', '/api/agent/run', { task: 'Swap', files: ['src/**'] });
    assert.deepEqual([noModel.status, noModel.json.error.code], [400, 'BAD_REQUEST']);
    assert.match(noModel.json.error.message, /Agents need a model that can chat/);
    // Where to set one up: settings.json's key (with its path), the config file's, the environment variable.
    assert.match(noModel.json.error.hint, /"completion": \{"openai": \{"baseUrl": …\}\} in \/.*settings\.json \(applies at once\)/);
    // The test's config file lies in its data dir, which answers show as <data dir>.
    assert.match(noModel.json.error.hint, /"openai": \{"baseUrl": …\} in <data dir>\/.*config\.json, or LOOM_OPENAI_BASE_URL/);
    assert.match(noModel.json.error.hint, /gguf\.model is .*LOOM_GGUF_MODEL/);
    // The window shows the message and the hint as one sentence after the other: the hint says what to do, it does not repeat.
    assert.doesNotMatch(noModel.json.error.hint, /Agents need a model/);
    const builtin = await local.request('POST', '/api/agent/run', { task: 'Swap', files: ['src/**'], model: 'builtin' });
    assert.deepEqual([builtin.status, builtin.json.error.code], [400, 'BAD_REQUEST']);

    const { local: served } = await startAgentLocal(t);
    const refusals: [unknown, number, string][] = [
      [{ task: 'x', files: ['src/**'], model: 'gpt-9' }, 400, 'UNKNOWN_MODEL'],
      [{ task: '   ', files: ['src/**'] }, 400, 'VALIDATION_ERROR'],
      [{ task: '', files: ['src/**'] }, 400, 'VALIDATION_ERROR'],
      [{ task: 'x', files: [] }, 400, 'VALIDATION_ERROR'],
      [{ task: 'x', files: ['lib/**/*.py'] }, 400, 'VALIDATION_ERROR'],
      [{ task: 'x', files: ['../**'] }, 400, 'VALIDATION_ERROR'],
      [{ task: 'x', files: ['src/[z-a].ts'] }, 400, 'VALIDATION_ERROR'],
      [{ task: 'x', files: ['src/**'], budgets: { maxSteps: 0 } }, 400, 'VALIDATION_ERROR'],
      [{ task: 'x', files: ['src/**'], budgets: { maxSteps: 5, colour: 'red' } }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [body, status, code] of refusals) {
      const answer = await served.request('POST', '/api/agent/run', body);
      assert.deepEqual([answer.status, answer.json.error.code], [status, code], JSON.stringify(body));
    }
    const nothing = await served.request('POST', '/api/agent/run', { task: 'x', files: ['lib/**/*.py'] });
    assert.match(nothing.json.error.message, /^No file matches "lib\/\*\*\/\*\.py"\.$/);
    assert.ok(nothing.json.error.hint);
    assert.deepEqual((await served.request('GET', '/api/agent/tasks')).json.tasks, [], 'nothing was started');
    for (const [method, route] of [
      ['GET', '/api/agent/status/task_nope'],
      ['GET', '/api/agent/steps/task_nope'],
      ['POST', '/api/agent/cancel/task_nope'],
      ['POST', '/api/agent/revert/task_nope'],
    ] as const) {
      const answer = await served.request(method, route);
      assert.deepEqual([answer.status, answer.json.error.code], [404, 'NOT_FOUND'], route);
    }
  });
});
