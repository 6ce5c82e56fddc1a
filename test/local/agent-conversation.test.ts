// An agent task as a conversation, end to end on the real server (`startLocal`) with the scripted
// OpenAI-compatible model: a follow-up message continues a task that has ended — the model's next
// request carries the earlier conversation (its calls, their results, its last words) and the
// message; the changes are kept; the budgets are new; the step log and its turns go on — in the
// same run of the server and after a restart (the conversation rebuilt from the store). A task
// still running refuses a message (409); a reverted task goes on from the files as they are.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calls, MATH, says } from '../core/agents/support.ts';
import { ended, keptDirs, openEvents, startAgentLocal } from '../support/agent-local.ts';
import type { FakeOpenAi } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

const SWAP = () => calls(['edit_file', { path: 'src/math.ts', search: '  return a + b;\n', replace: '  return b + a;\n' }]);
const RENAME_SUB = () =>
  calls([
    'edit_file',
    {
      path: 'src/math.ts',
      search: 'export function sub(a: number, b: number): number {\n',
      replace: 'export function difference(a: number, b: number): number {\n',
    },
  ]);
const READ = () => calls(['read_file', { path: 'src/math.ts' }]);

/** The messages of the `n`-th chat request (0-based) the model received. */
function chat(fake: FakeOpenAi, n: number): any[] {
  return fake.requests.filter((request) => request.path === '/v1/chat/completions')[n]!.body.messages;
}

describe('local API: an agent task as a conversation', () => {
  it('continues a finished task with a message: the model gets the conversation and the message, the change is kept, the budgets are new, the log goes on', async (t) => {
    const { local, fake, file } = await startAgentLocal(t);
    const events = await openEvents(t, local);
    fake.chat.queue(SWAP(), says('Swapped the operands of add.'));
    const { taskId } = (await local.request('POST', '/api/agent/run', { task: 'Swap the operands of add', files: ['src/**/*.ts'] })).json;
    const first = await ended(local, taskId);
    assert.deepEqual([first.status, first.steps, first.budgets.maxSteps], ['completed', 2, 40]);

    fake.chat.queue(READ(), RENAME_SUB(), says('Renamed sub to difference.'));
    const sent = await local.request('POST', `/api/agent/message/${taskId}`, { message: 'Now rename sub to difference.', budgets: { maxSteps: 7 } });
    assert.equal(sent.status, 200, sent.text);
    assert.deepEqual([sent.json.taskId, sent.json.status], [taskId, 'running']);
    assert.ok(Number.isInteger(sent.json.estimatedTime) && sent.json.estimatedTime >= 1);
    const status = await ended(local, taskId);

    // The model's first request of the follow-up: the task, its earlier turn, its last words, the message.
    const before = chat(fake, 1);
    const messages = chat(fake, 2);
    assert.deepEqual(
      messages.map((message) => message.role),
      ['system', 'user', 'assistant', 'tool', 'assistant', 'user'],
    );
    assert.match(messages[0].content, /You have at most 7 turns\./, 'the new budgets');
    assert.match(messages[1].content, /^Task: Swap the operands of add\n/);
    assert.deepEqual(
      messages[2].tool_calls.map((call: any) => [call.function.name, JSON.parse(call.function.arguments)]),
      before[2].tool_calls.map((call: any) => [call.function.name, JSON.parse(call.function.arguments)]),
    );
    assert.equal(messages[3].tool_call_id, messages[2].tool_calls[0].id);
    assert.equal(messages[3].content, before[3].content, 'the result as the model saw it');
    assert.equal(messages[4].content, 'Swapped the operands of add.');
    assert.match(
      messages[5].content,
      /^The user has a new message for you on this task\. Your earlier work ended: you finished it with a summary\. Your changes so far: src\/math\.ts \(modified\)\. Files may have changed since your last turn: read a file again before you change it\.\n\nThe user's message:\nNow rename sub to difference\.$/,
    );

    // The same task: both changes, one diff from the file before the task; counters and log go on.
    assert.deepEqual([status.status, status.reason, status.summary], ['completed', 'done', 'Renamed sub to difference.']);
    assert.equal(status.steps, 5);
    assert.equal(status.budgets.maxSteps, 7);
    assert.equal(file('src/math.ts'), MATH.replace('a + b', 'b + a').replace('function sub(', 'function difference('));
    assert.deepEqual(
      status.changes.map((change: any) => [change.file, change.action]),
      [['src/math.ts', 'modified']],
    );
    assert.match(status.changes[0].diff, /\+  return b \+ a;[\s\S]*\+export function difference\(/);
    assert.deepEqual(
      status.conversation.map((exchange: any) => [exchange.message, exchange.firstStep, exchange.reason, exchange.summary]),
      [
        ['Swap the operands of add', 1, 'done', 'Swapped the operands of add.'],
        ['Now rename sub to difference.', 4, 'done', 'Renamed sub to difference.'],
      ],
    );
    const steps = (await local.request('GET', `/api/agent/steps/${taskId}`)).json.steps;
    assert.deepEqual(
      steps.map((step: any) => [step.index, step.turn, step.kind]),
      [
        [1, 1, 'model'],
        [2, 1, 'tool'],
        [3, 2, 'model'],
        [4, 3, 'user'],
        [5, 3, 'model'],
        [6, 3, 'tool'],
        [7, 4, 'model'],
        [8, 4, 'tool'],
        [9, 5, 'model'],
      ],
    );
    assert.equal(steps[3].text, 'Now rename sub to difference.');

    await waitFor(() => events.filter((event) => event.type === 'agent:complete' && event.data.taskId === taskId).length === 2, undefined, 'the second end');
    const ofTask = events.filter((event) => event.data?.taskId === taskId).map((event) => event.type + (event.data.kind ? `:${event.data.kind}` : ''));
    assert.deepEqual(ofTask.slice(ofTask.indexOf('agent:message')), [
      'agent:message',
      'agent:step:user',
      'agent:step:model',
      'agent:step:tool',
      'agent:step:model',
      'agent:step:tool',
      'agent:step:model',
      'agent:complete',
    ]);
    const message = events.find((event) => event.type === 'agent:message');
    assert.deepEqual([message.data.message, message.data.budgets.maxSteps], ['Now rename sub to difference.', 7]);

    // Revert undoes the whole task, every message's changes.
    assert.equal((await local.request('POST', `/api/agent/revert/${taskId}`)).status, 200);
    assert.equal(file('src/math.ts'), MATH);
  });

  it('continues a task after a restart: the conversation comes back from the store, the interrupted work and its change with it', async (t) => {
    const dirs = keptDirs(t, { 'src/math.ts': MATH });
    const first = await startAgentLocal(t, { dirs });
    first.fake.chat.queue(SWAP(), { kind: 'text', text: 'thinking…', hold: true });
    const held = first.fake.chat.held();
    const { taskId } = (await first.local.request('POST', '/api/agent/run', { task: 'Swap the operands of add', files: ['src/**'] })).json;
    await held;
    const original = chat(first.fake, 1);
    await first.local.close();

    const second = await startAgentLocal(t, { fake: first.fake, dirs });
    second.fake.chat.queue(READ(), says('add returns b + a now; nothing else to do.'));
    const sent = await second.local.request('POST', `/api/agent/message/${taskId}`, { message: 'Check that add is swapped, and finish.' });
    assert.equal(sent.status, 200, sent.text);
    const status = await ended(second.local, taskId);

    const messages = chat(second.fake, 2);
    assert.deepEqual(
      messages.map((message) => message.role),
      ['system', 'user', 'assistant', 'tool', 'user'],
    );
    assert.equal(messages[2].tool_calls[0].function.name, 'edit_file');
    assert.equal(messages[3].content, original[3].content);
    assert.match(messages[4].content, /Your earlier work ended: Loom stopped while it ran\. Your changes so far: src\/math\.ts \(modified\)\./);
    assert.match(messages[4].content, /The user's message:\nCheck that add is swapped, and finish\.$/);

    assert.deepEqual([status.status, status.reason, status.steps], ['completed', 'done', 3]);
    assert.deepEqual(
      status.conversation.map((exchange: any) => exchange.reason),
      ['interrupted', 'done'],
    );
    assert.deepEqual(
      status.changes.map((change: any) => [change.file, change.action]),
      [['src/math.ts', 'modified']],
    );
    assert.equal((await second.local.request('POST', `/api/agent/revert/${taskId}`)).status, 200);
    assert.equal(second.file('src/math.ts'), MATH);
  });

  it('refuses a message to a running task (409 TASK_RUNNING, nothing sent to the model); a cancelled task takes one', async (t) => {
    const { local, fake } = await startAgentLocal(t);
    fake.chat.queue({ kind: 'text', text: 'thinking…', hold: true });
    const held = fake.chat.held();
    const { taskId } = (await local.request('POST', '/api/agent/run', { task: 'Swap', files: ['src/**'] })).json;
    await held;
    const busy = await local.request('POST', `/api/agent/message/${taskId}`, { message: 'Also rename sub.' });
    assert.deepEqual([busy.status, busy.json.error.code], [409, 'TASK_RUNNING']);
    assert.match(busy.json.error.hint, /cancel it/);
    for (const [body, code] of [
      [{ message: '   ' }, 'VALIDATION_ERROR'],
      [{ message: 'x', colour: 'red' }, 'VALIDATION_ERROR'],
      [{ message: 'x', budgets: { maxSteps: 0 } }, 'VALIDATION_ERROR'],
    ] as const) {
      const refused = await local.request('POST', `/api/agent/message/${taskId}`, body);
      assert.equal(refused.json.error.code, code, JSON.stringify(body));
    }
    const missing = await local.request('POST', '/api/agent/message/task_nope', { message: 'x' });
    assert.deepEqual([missing.status, missing.json.error.code], [404, 'NOT_FOUND']);
    assert.equal((await local.request('GET', `/api/agent/steps/${taskId}`)).json.steps.length, 0, 'nothing logged');

    assert.equal((await local.request('POST', `/api/agent/cancel/${taskId}`)).json.reason, 'cancelled');
    fake.chat.queue(says('Nothing left to do.'));
    assert.equal((await local.request('POST', `/api/agent/message/${taskId}`, { message: 'Go on.' })).status, 200);
    const status = await ended(local, taskId);
    assert.deepEqual([status.status, status.reason], ['completed', 'done']);
    assert.match(chat(fake, 1).at(-1).content, /Your earlier work ended: the user cancelled it\. You have changed no file so far\./);
  });

  it('a reverted task goes on from the files as they are: the model is told, the reverted change is no longer listed, revert undoes what came after', async (t) => {
    const { local, fake, file } = await startAgentLocal(t);
    fake.chat.queue(SWAP(), says('Swapped.'));
    const { taskId } = (await local.request('POST', '/api/agent/run', { task: 'Swap', files: ['src/**'] })).json;
    await ended(local, taskId);
    assert.equal((await local.request('POST', `/api/agent/revert/${taskId}`)).status, 200);
    assert.equal(file('src/math.ts'), MATH);

    fake.chat.queue(READ(), RENAME_SUB(), says('Renamed sub instead.'));
    assert.equal((await local.request('POST', `/api/agent/message/${taskId}`, { message: 'Rename sub to difference instead.' })).status, 200);
    const status = await ended(local, taskId);
    assert.match(chat(fake, 2).at(-1).content, /The user then reverted every change you had made: the files are as they were before the task\./);
    assert.equal(status.revertedAt, undefined);
    assert.equal(file('src/math.ts'), MATH.replace('function sub(', 'function difference('));
    assert.equal(status.changes.length, 1);
    assert.doesNotMatch(status.changes[0].diff, /b \+ a/, 'the reverted swap is not part of it');
    assert.equal((await local.request('POST', `/api/agent/revert/${taskId}`)).status, 200);
    assert.equal(file('src/math.ts'), MATH);
  });
});
