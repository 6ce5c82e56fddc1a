// What the store keeps of a task is all of it, or the task says it is not: a turn of as many
// tool calls as a model may send keeps every step on both stores, a turn of thousands ends the
// task `model_error` (the answer's limit, src/adapters/models/openai-chat.ts) with nothing of it
// applied, and a step log the store fails to write ends the task with reason `error`, told to
// the server's log, never a silent `completed`. That a log larger than one statement may bind
// is written whole is test/store/agents-repository.test.ts's.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { AgentTaskRepository } from '../../../src/core/agents/records.ts';
import { registerPrivateFolder } from '../../../src/core/files/private-folders.ts';
import { ANSWER_LIMITS } from '../../../src/adapters/models/openai-chat.ts';
import { STORE_DIALECTS } from '../../support/store.ts';
import { agentHarness, calls, says } from './support.ts';

/** The most tool calls one answer may carry (ANSWER_LIMITS.toolCalls). */
const CALLS = ANSWER_LIMITS.toolCalls;
/** The turn: 6,000 calls of 6 columns each would be 36,000 values, over SQLite's 32,766 a statement. */
const FLOOD = 6_000;

describe('agent tasks: the step log', () => {
  for (const dialect of STORE_DIALECTS) {
    it(`keeps every step of a turn of ${CALLS} tool calls on ${dialect.name}`, async (t) => {
      const store = await dialect.fresh(t);
      if (!store) return;
      const h = await agentHarness(t, { store });
      // Each call asks something else (no loop); the last creates a file. Written as <tool_call>
      // text: an answer's native calls stop at 256 (ANSWER_LIMITS.toolCalls), its text at 8 Mi characters.
      const call = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
      const many = says(
        [
          ...Array.from({ length: CALLS - 1 }, (_, i) => call('list_files', { pattern: `none/${i}/**` })),
          call('create_file', { path: 'src/new.ts', content: 'export const n = 1;\n' }),
        ].join('\n'),
      );
      h.fake.chat.queue(many, says('Done.'));
      const { taskId } = await h.agents.run({ task: 'Look everywhere', files: ['src/**'] });
      await h.completed(taskId, 120_000);
      const status = await h.agents.status(taskId);
      assert.deepEqual([status.status, status.reason, status.steps], ['completed', 'done', 2]);
      assert.deepEqual(
        status.changes.map((change) => change.file),
        ['src/new.ts'],
      );
      const steps = await h.store.agentTasks.steps(taskId, { after: 0, limit: 10_000 });
      // The first turn, its calls, the last turn.
      assert.equal(steps.length, CALLS + 2);
      assert.deepEqual(
        steps.map((step) => step.index),
        Array.from({ length: CALLS + 2 }, (_, i) => i + 1),
      );
      const created = steps.find((step) => step.tool === 'create_file');
      assert.ok(created?.ok && created.diff?.includes('+export const n = 1;'), 'the step that created the file is in the log');
      assert.deepEqual(h.logged, []);
    });

    for (const form of ['native', 'text'] as const) {
      it(`ends a turn of ${FLOOD} tool calls (${form}) model_error on ${dialect.name}, applying none of them`, async (t) => {
        const store = await dialect.fresh(t);
        if (!store) return;
        const h = await agentHarness(t, { store });
        const wanted: [string, Record<string, unknown>][] = [
          ...Array.from({ length: FLOOD - 1 }, (_, i): [string, Record<string, unknown>] => ['list_files', { pattern: `none/${i}/**` }]),
          ['create_file', { path: 'src/new.ts', content: 'export const n = 1;\n' }],
        ];
        // As text: the <tool_call> form models without native tool calling write.
        const asText = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
        h.fake.chat.queue(form === 'native' ? calls(...wanted) : says(wanted.map(([name, args]) => asText(name, args)).join('\n')), says('Done.'));
        const { taskId } = await h.agents.run({ task: 'Look everywhere', files: ['src/**'] });
        await h.completed(taskId, 120_000);
        const status = await h.agents.status(taskId);
        assert.deepEqual([status.status, status.reason], ['failed', 'model_error']);
        assert.match(status.error ?? '', new RegExp(`more than ${CALLS} tool calls`));
        assert.deepEqual(status.changes, []);
        assert.deepEqual(h.logged, []);
      });
    }
  }

  it('ends the task with reason error, told to the server’s log, when the store fails to write its last steps', async (t) => {
    const failure = new Error('disk I/O error');
    const h = await agentHarness(t, {
      // Every write of the log works but the one with the last turn.
      repository: (stored) =>
        withAddSteps(stored, async (taskId, steps, update) => {
          if (steps.some((step) => step.kind === 'model' && step.turn === 2)) throw failure;
          return stored.addSteps(taskId, steps, update);
        }),
    });
    h.fake.chat.queue(calls(['create_file', { path: 'src/new.ts', content: 'x\n' }]), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Add a file', files: ['src/**'] });
    const complete = await h.completed(taskId);
    assert.deepEqual([complete.data.status, complete.data.reason], ['failed', 'error']);
    const status = await h.agents.status(taskId);
    assert.deepEqual([status.status, status.reason], ['failed', 'error']);
    assert.match(status.error!, /^The step log could not be written, so the task was stopped: disk I\/O error$/);
    assert.equal(h.logged.length, 1);
    assert.match(h.logged[0]!.message, new RegExp(`^the step log of agent task ${taskId} could not be written`));
    assert.equal(h.logged[0]!.cause, failure);
  });

  it('stops a task whose log the store fails to write at once, with reason error, and logs it once', async (t) => {
    const h = await agentHarness(t, {
      repository: (stored) =>
        withAddSteps(stored, async () => {
          throw new Error('database is locked');
        }),
    });
    // Many turns queued: the task stops long before their end.
    h.fake.chat.queue(...Array.from({ length: 10 }, (_, i) => calls(['list_files', { pattern: `none/${i}/**` }])), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Look around', files: ['src/**'] });
    await h.completed(taskId);
    const status = await h.agents.status(taskId);
    assert.deepEqual([status.status, status.reason], ['failed', 'error']);
    assert.match(status.error!, /database is locked$/);
    assert.ok(h.fake.chat.pending > 0, 'the task stopped before the model ran out of turns');
    assert.equal(h.logged.length, 1);
  });

  it('ends a task Loom itself failed with reason error, its error cut short and without the server’s folders; the whole failure logged', async (t) => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-private-'));
    t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
    registerPrivateFolder(folder, '<data dir>');
    const failure = new Error(`SQLITE_IOERR: disk I/O error writing ${folder}/loom.db-wal: ${'x'.repeat(100_000)}`);
    const h = await agentHarness(t, {
      repository: (stored) => ({
        ...bound(stored),
        saveChange: async () => {
          throw failure;
        },
      }),
    });
    h.fake.chat.queue(calls(['create_file', { path: 'src/new.ts', content: 'x\n' }]), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Add a file', files: ['src/**'] });
    const complete = await h.completed(taskId);
    assert.deepEqual([complete.data.status, complete.data.reason], ['failed', 'error']);
    const status = await h.agents.status(taskId);
    assert.deepEqual([status.status, status.reason], ['failed', 'error']);
    assert.ok(status.error!.length <= 1100, `an error of ${status.error!.length} characters`);
    assert.match(status.error!, /^SQLITE_IOERR: disk I\/O error writing <data dir>\/loom\.db-wal: x+… \[\d+ more characters\]$/);
    assert.equal(complete.data.error, status.error);
    assert.equal(h.logged.length, 1);
    assert.match(h.logged[0]!.message, new RegExp(`^agent task ${taskId} failed inside Loom`));
    assert.equal(h.logged[0]!.cause, failure);
  });

  it('tells the server’s log when the store fails to record a task’s end', async (t) => {
    const failure = new Error('the connection was closed');
    const h = await agentHarness(t, {
      repository: (stored) => ({
        ...bound(stored),
        update: async (id, update) => {
          if (update.endedAt !== undefined) throw failure;
          return stored.update(id, update);
        },
      }),
    });
    h.fake.chat.queue(says('Nothing to do.'));
    const { taskId } = await h.agents.run({ task: 'Look around', files: ['src/**'] });
    const complete = await h.completed(taskId);
    assert.equal(complete.data.reason, 'done');
    assert.equal(h.logged.length, 1);
    assert.match(h.logged[0]!.message, new RegExp(`^the end of agent task ${taskId} could not be recorded`));
    assert.equal(h.logged[0]!.cause, failure);
  });
});

/** The repository's methods, bound to it (a class's methods do not spread). */
function bound(stored: AgentTaskRepository): AgentTaskRepository {
  return {
    create: (task) => stored.create(task),
    update: (id, update) => stored.update(id, update),
    get: (id) => stored.get(id),
    list: (options) => stored.list(options),
    addSteps: (taskId, steps, update) => stored.addSteps(taskId, steps, update),
    steps: (taskId, options) => stored.steps(taskId, options),
    stepsBefore: (taskId, options) => stored.stepsBefore(taskId, options),
    saveChange: (taskId, entry) => stored.saveChange(taskId, entry),
    deleteChange: (taskId, id) => stored.deleteChange(taskId, id),
    clearChanges: (taskId) => stored.clearChanges(taskId),
    changes: (taskId) => stored.changes(taskId),
    interruptRunning: (endedAt, error) => stored.interruptRunning(endedAt, error),
  };
}

function withAddSteps(stored: AgentTaskRepository, addSteps: AgentTaskRepository['addSteps']): AgentTaskRepository {
  return { ...bound(stored), addSteps };
}
