// The agent task repository against both stores it ships with: the same tests on SQLite (a
// temporary data dir) and on PostgreSQL (a fresh schema per test).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentTaskRecord } from '../../src/core/agents/records.ts';
import type { AgentStep } from '../../src/core/agents/types.ts';
import { openTestStore as open, STORE_DIALECTS } from '../support/store.ts';

function task(n: number, overrides: Partial<AgentTaskRecord> = {}): AgentTaskRecord {
  return {
    id: `task_${n}`,
    status: 'running',
    task: `Rename add to sum ${n} — ünï 🧵 "q" \\`,
    files: ['src/**/*.ts', 'README.md'],
    model: 'qwen2.5-coder:7b',
    budgets: { maxSteps: 40, maxTokens: 500_000, timeoutSeconds: 900 },
    estimatedTime: 65,
    steps: 0,
    tokens: 0,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    endedAt: null,
    reason: null,
    error: null,
    summary: null,
    revertedAt: null,
    conversation: [{ message: `Rename add to sum ${n} — ünï 🧵 "q" \\`, at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(), firstStep: 1 }],
    ...overrides,
  };
}

for (const dialect of STORE_DIALECTS) {
  describe(`SqlAgentTaskRepository on ${dialect.name}`, () => {
    it('creates, updates, gets and lists tasks, newest first, a page at a time', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const { agentTasks } = await open(t, options);
      for (const n of [1, 2, 3]) await agentTasks.create(task(n));
      assert.deepEqual(await agentTasks.get('task_2'), task(2));
      assert.equal(await agentTasks.get('task_9'), undefined);
      await agentTasks.update('task_2', {
        status: 'completed',
        reason: 'done',
        endedAt: '2026-01-01T00:01:00.000Z',
        steps: 3,
        tokens: 3_000_000_000,
        summary: 'Renamed.',
      });
      assert.deepEqual(
        await agentTasks.get('task_2'),
        task(2, { status: 'completed', reason: 'done', endedAt: '2026-01-01T00:01:00.000Z', steps: 3, tokens: 3_000_000_000, summary: 'Renamed.' }),
      );
      assert.deepEqual(
        (await agentTasks.list({ limit: 2 })).map((record) => record.id),
        ['task_3', 'task_2'],
      );
      assert.deepEqual(
        (await agentTasks.list({ limit: 2, before: 'task_2' })).map((record) => record.id),
        ['task_1'],
      );
      await assert.rejects(agentTasks.list({ limit: 2, before: 'task_9' }), { code: 'not_found' });
    });

    it('appends steps with the task counters in one transaction, and pages through them', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const { agentTasks } = await open(t, options);
      await agentTasks.create(task(1));
      const steps: AgentStep[] = [
        { index: 1, kind: 'model', turn: 1, at: '2026-01-01T00:00:01.000Z', text: 'Reading it.', tokens: { prompt: 900, completion: 20 }, durationMs: 1200 },
        {
          index: 2,
          kind: 'tool',
          turn: 1,
          at: '2026-01-01T00:00:02.000Z',
          tool: 'read_file',
          arguments: '{"path":"src/a.ts"}',
          ok: true,
          text: 'src/a.ts (1 lines):\n1\tx',
        },
        {
          index: 3,
          kind: 'tool',
          turn: 2,
          at: '2026-01-01T00:00:03.000Z',
          tool: 'edit_file',
          arguments: '{}',
          ok: true,
          text: 'applied',
          diff: '--- a/x\n+++ b/x\n',
        },
        { index: 4, kind: 'notice', turn: 2, at: '2026-01-01T00:00:04.000Z', text: 'Try something else.' },
      ];
      await agentTasks.addSteps('task_1', steps.slice(0, 1), { steps: 1, tokens: 920, summary: 'Reading it.' });
      await agentTasks.addSteps('task_1', steps.slice(1));
      await agentTasks.addSteps('task_1', []);
      assert.deepEqual(await agentTasks.steps('task_1', { after: 0, limit: 10 }), steps);
      assert.deepEqual(await agentTasks.steps('task_1', { after: 1, limit: 2 }), steps.slice(1, 3));
      const record = await agentTasks.get('task_1');
      assert.deepEqual([record?.steps, record?.tokens, record?.summary], [1, 920, 'Reading it.']);
      // A step whose index is taken fails whole: the counters do not move.
      await assert.rejects(agentTasks.addSteps('task_1', steps.slice(0, 1), { steps: 9 }), { code: 'store_unavailable' });
      assert.equal((await agentTasks.get('task_1'))?.steps, 1);
    });

    it("writes a log larger than one statement may bind (PostgreSQL's 65,535 values, SQLite's 32,766), whole or not at all", async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const { agentTasks } = await open(t, options);
      await agentTasks.create(task(1));
      // 11,000 steps of 6 columns: 66,000 values, over both limits.
      const steps: AgentStep[] = Array.from({ length: 11_000 }, (_, i) => ({
        index: i + 1,
        kind: 'tool',
        turn: 1,
        at: '2026-01-01T00:00:01.000Z',
        tool: 'list_files',
        arguments: '{}',
        ok: true,
        text: `call ${i + 1}`,
      }));
      await agentTasks.addSteps('task_1', steps, { steps: 1 });
      const written = await agentTasks.steps('task_1', { after: 10_990, limit: 100 });
      assert.deepEqual(
        written.map((step) => step.index),
        Array.from({ length: 10 }, (_, i) => 10_991 + i),
      );
      assert.equal((await agentTasks.steps('task_1', { after: 0, limit: 20_000 })).length, 11_000);
      assert.equal((await agentTasks.get('task_1'))?.steps, 1);
      // A conflict in the last batch undoes the batches before it and the counters.
      const clash = Array.from({ length: 11_000 }, (_, i) => ({ ...steps[0]!, index: 11_001 + i }));
      clash.push({ ...steps[0]!, index: 5 });
      await assert.rejects(agentTasks.addSteps('task_1', clash, { steps: 2 }), { code: 'store_unavailable' });
      assert.equal((await agentTasks.steps('task_1', { after: 11_000, limit: 10 })).length, 0);
      assert.equal((await agentTasks.get('task_1'))?.steps, 1);
    });

    it('keeps change entries, updating one by its id (where it is and what it holds now), and deletes them', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const { agentTasks } = await open(t, options);
      await agentTasks.saveChange('task_1', { id: 1, path: 'src/a.ts', origin: 'src/a.ts', before: 'a\n', after: 'b\n' });
      await agentTasks.saveChange('task_1', { id: 2, path: 'src/new.ts', origin: null, before: null, after: '' });
      await agentTasks.saveChange('task_2', { id: 1, path: 'x', origin: 'x', before: 'x', after: null });
      await agentTasks.saveChange('task_1', { id: 1, path: 'src/b.ts', origin: 'src/a.ts', before: 'ignored: set once', after: 'c\n' });
      assert.deepEqual(await agentTasks.changes('task_1'), [
        { id: 1, path: 'src/b.ts', origin: 'src/a.ts', before: 'a\n', after: 'c\n' },
        { id: 2, path: 'src/new.ts', origin: null, before: null, after: '' },
      ]);
      await agentTasks.deleteChange('task_1', 2);
      assert.deepEqual(
        (await agentTasks.changes('task_1')).map((entry) => entry.id),
        [1],
      );
      assert.equal((await agentTasks.changes('task_2')).length, 1);
    });

    it('ends the tasks a stopped process left running as interrupted, and only those', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const { agentTasks } = await open(t, options);
      await agentTasks.create(task(1));
      await agentTasks.create(task(2, { status: 'completed', reason: 'done', endedAt: '2026-01-01T00:00:09.000Z' }));
      await agentTasks.create(task(3));
      const ended = await agentTasks.interruptRunning('2026-01-02T00:00:00.000Z', 'Loom stopped.');
      assert.deepEqual(
        ended.map((record) => [record.id, record.status, record.reason, record.endedAt, record.error]),
        [
          ['task_1', 'failed', 'interrupted', '2026-01-02T00:00:00.000Z', 'Loom stopped.'],
          ['task_3', 'failed', 'interrupted', '2026-01-02T00:00:00.000Z', 'Loom stopped.'],
        ],
      );
      assert.equal((await agentTasks.get('task_2'))?.status, 'completed');
      assert.deepEqual(await agentTasks.interruptRunning('2026-01-03T00:00:00.000Z', 'again'), []);
    });
  });
}
