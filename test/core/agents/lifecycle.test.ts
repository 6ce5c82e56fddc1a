// How agent tasks end: a loop (redirected once, then ended), the step, token and wall-time
// budgets, a cancel that aborts the model call at once, the model failing, a 6th task while 5
// run, and a restart in the middle (the task ends interrupted, its applied changes kept).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentCapacityError } from '../../../src/core/agents/errors.ts';
import { ManualClock } from '../../../src/core/clock.ts';
import { waitFor } from '../../support/wait.ts';
import { agentHarness, calls, chatRequest, MATH, says } from './support.ts';

describe('agent tasks: stop conditions', () => {
  it('redirects a model that repeats the same call with the same result, then ends the task (loop)', async (t) => {
    const h = await agentHarness(t);
    const read = (): ReturnType<typeof calls> => calls(['read_file', { path: 'src/math.ts' }]);
    h.fake.chat.queue(read(), read(), read(), read(), says('never asked'));
    const { taskId } = await h.agents.run({ task: 'Rename add to sum', files: ['src/math.ts'] });
    await h.completed(taskId);
    const status = await h.agents.status(taskId);
    assert.deepEqual([status.status, status.reason, status.steps], ['failed', 'loop', 4]);
    assert.match(chatRequest(h.fake, 3).at(-1)!.content!, /^You have now made the same call with the same result several times/);
    assert.equal(h.fake.chat.pending, 1);
    const notices = (await h.agents.steps(taskId)).filter((step) => step.kind === 'notice');
    assert.equal(notices.length, 1);
  });

  it('reading a file again after it changed is not a loop', async (t) => {
    const h = await agentHarness(t);
    const read = (): ReturnType<typeof calls> => calls(['read_file', { path: 'src/math.ts' }]);
    let n = 0;
    const edit = (): ReturnType<typeof calls> =>
      calls(['edit_file', { path: 'src/math.ts', search: `  return a - b;${' //'.repeat(n)}\n`, replace: `  return a - b;${' //'.repeat(++n)}\n` }]);
    h.fake.chat.queue(read(), edit(), read(), edit(), read(), edit(), read(), says('Done.'));
    const { taskId } = await h.agents.run({ task: 'Comment sub', files: ['src/math.ts'] });
    await h.completed(taskId);
    assert.equal((await h.agents.status(taskId)).reason, 'done');
  });

  it('ends at the step budget of the request, without asking the model again', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue(calls(['list_files', {}]), calls(['list_files', { pattern: 'src/**' }]), says('never asked'));
    const { taskId } = await h.agents.run({ task: 'Look around', files: ['src/**'], budgets: { maxSteps: 2 } });
    await h.completed(taskId);
    const status = await h.agents.status(taskId);
    assert.deepEqual([status.status, status.reason, status.steps, status.budgets.maxSteps], ['failed', 'max_steps', 2, 2]);
    assert.equal(h.fake.chat.pending, 1);
  });

  it('ends at the token budget; a turn may generate only what its prompt leaves of the budget', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue(calls(['list_files', {}]), calls(['list_files', { pattern: 'src/**' }]), calls(['list_files', { pattern: 'x/**' }]), says('never asked'));
    const { taskId } = await h.agents.run({ task: 'Look around', files: ['src/**'], budgets: { maxTokens: 4000 } });
    await h.completed(taskId);
    const status = await h.agents.status(taskId);
    // Each turn counts 1,050 tokens (1,000 of prompt): a fourth would not fit.
    assert.deepEqual([status.reason, status.steps, status.tokens], ['max_tokens', 3, 3150]);
    const limits = h.fake.requests.filter((request) => request.path === '/v1/chat/completions').map((request) => request.body.max_tokens);
    assert.equal(limits.length, 3);
    assert.ok(limits[0] < 4000 - 700, `the first turn's prompt is estimated from its characters: ${limits[0]}`);
    assert.ok(limits[1] <= 4000 - 1050 - 1000 && limits[2] <= 4000 - 2100 - 1000, `later turns start from the prompt counted last: ${limits}`);
  });

  it('ends at the wall-time budget, measured on the injected clock', async (t) => {
    const clock = new ManualClock();
    const h = await agentHarness(t, { clock });
    h.fake.chat.queue({ ...calls(['list_files', {}]), hold: true }, says('never asked'));
    const held = h.fake.chat.held();
    const { taskId } = await h.agents.run({ task: 'Look around', files: ['src/**'], budgets: { timeoutSeconds: 60 } });
    await held;
    clock.advance(61_000);
    h.fake.chat.release();
    await h.completed(taskId);
    const status = await h.agents.status(taskId);
    assert.deepEqual([status.status, status.reason, status.steps], ['failed', 'timeout', 1]);
    assert.equal(h.fake.chat.pending, 1);
  });

  it('aborts the model call under way when the time is up', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue({ kind: 'text', text: 'thinking…', hold: true });
    const hangUp = h.fake.chat.nextHangUp();
    const { taskId } = await h.agents.run({ task: 'Look around', files: ['src/**'], budgets: { timeoutSeconds: 1 } });
    await hangUp;
    await h.completed(taskId);
    assert.equal((await h.agents.status(taskId)).reason, 'timeout');
  });

  it('ends model_error when the model fails, saying how', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue({ kind: 'error', status: 500, message: 'CUDA out of memory' });
    const { taskId } = await h.agents.run({ task: 'Look around', files: ['src/**'] });
    await h.completed(taskId);
    const status = await h.agents.status(taskId);
    assert.deepEqual([status.status, status.reason], ['failed', 'model_error']);
    assert.match(status.error!, /CUDA out of memory/);
  });
});

describe('agent tasks: cancel and capacity', () => {
  it('cancel aborts the model call at once and ends the task cancelled, keeping what it applied', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue(calls(['edit_file', { path: 'src/math.ts', search: '  return a + b;\n', replace: '  return b + a;\n' }]), {
      kind: 'text',
      text: 'thinking…',
      hold: true,
    });
    const held = h.fake.chat.held();
    const { taskId } = await h.agents.run({ task: 'Swap', files: ['src/**'] });
    await held;
    const hangUp = h.fake.chat.nextHangUp();
    const status = await h.agents.cancel(taskId);
    await hangUp;
    assert.deepEqual([status.status, status.reason], ['cancelled', 'cancelled']);
    assert.deepEqual(
      status.changes.map((change) => change.action),
      ['modified'],
    );
    assert.equal(h.file('src/math.ts'), MATH.replace('a + b', 'b + a'));
    const complete = await h.completed(taskId);
    assert.equal(complete.data.status, 'cancelled');
    // Cancelling an ended task changes nothing.
    assert.deepEqual(await h.agents.cancel(taskId), status);
    await assert.rejects(h.agents.cancel('task_nope'), { code: 'not_found' });
  });

  it('runs 5 tasks at once and refuses a 6th with retryAfter; a slot frees when one ends', async (t) => {
    const h = await agentHarness(t);
    h.fake.set({ holdAfterChunks: 0, chatText: 'Nothing to do.' });
    let holds = 0;
    const counting = async () => {
      for (;;) {
        await h.fake.nextHold();
        holds++;
      }
    };
    void counting();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await h.agents.run({ task: `task ${i}`, files: ['src/**'] })).taskId);
    await waitFor(() => holds === 5, undefined, 'five model calls under way');
    await assert.rejects(h.agents.run({ task: 'the sixth', files: ['src/**'] }), (error: unknown) => {
      assert.ok(error instanceof AgentCapacityError);
      assert.equal(error.code, 'rate_limited');
      assert.ok(Number.isInteger(error.retryAfter) && error.retryAfter >= 1);
      return true;
    });
    await h.agents.cancel(ids[0]!);
    const sixth = await h.agents.run({ task: 'the sixth', files: ['src/**'] });
    h.fake.set({ holdAfterChunks: undefined });
    h.fake.release();
    for (const id of [...ids.slice(1), sixth.taskId]) await h.completed(id);
    assert.deepEqual(
      (await h.agents.list()).map((task) => task.status),
      ['completed', 'completed', 'completed', 'completed', 'completed', 'cancelled'],
    );
  });
});

describe('agent tasks: restart', () => {
  it('a task cut by a crash ends failed, interrupted, when Loom starts again, with the changes it applied', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue(calls(['edit_file', { path: 'src/math.ts', search: '  return a + b;\n', replace: '  return b + a;\n' }]), {
      kind: 'text',
      text: 'thinking…',
      hold: true,
    });
    const held = h.fake.chat.held();
    const { taskId } = await h.agents.run({ task: 'Swap', files: ['src/**'] });
    await held;
    // The first manager never ends (a crash): a new one finds the task running in the store.
    const events = h.events.length;
    const restarted = await h.restart();
    const status = await restarted.status(taskId);
    assert.deepEqual([status.status, status.reason], ['failed', 'interrupted']);
    assert.match(status.error!, /Loom stopped while the task was running/);
    assert.deepEqual(
      status.changes.map((change) => [change.file, change.action]),
      [['src/math.ts', 'modified']],
    );
    assert.match(status.changes[0]!.diff, /-  return a \+ b;\n\+  return b \+ a;/);
    assert.deepEqual(
      h.events.slice(events).map((event) => [event.type, event.data.taskId, event.data.reason]),
      [['agent:complete', taskId, 'interrupted']],
    );
    // Its changes can be reverted by the new process.
    await restarted.revert(taskId);
    assert.equal(h.file('src/math.ts'), MATH);
  });

  it('closing Loom ends running tasks interrupted, recorded before close returns', async (t) => {
    const h = await agentHarness(t);
    h.fake.chat.queue({ kind: 'text', text: 'thinking…', hold: true });
    const held = h.fake.chat.held();
    const { taskId } = await h.agents.run({ task: 'Swap', files: ['src/**'] });
    await held;
    await h.agents.close();
    const stored = await h.store.agentTasks.get(taskId);
    assert.deepEqual([stored?.status, stored?.reason], ['failed', 'interrupted']);
    await assert.rejects(h.agents.run({ task: 'more', files: ['src/**'] }), { code: 'model_unavailable' });
  });
});
