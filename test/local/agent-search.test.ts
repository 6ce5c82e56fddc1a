// An agent's search with a pattern that backtracks for ever, end to end on the real local server
// (`startLocal`, settings.json pointing `completion.openai` at the scripted model): the server
// keeps answering (/api/health) while the task runs, the model is told the answer, and the task
// ends as the model ends it, within its budget. Before RE2, this search froze the process.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calls, MATH } from '../core/agents/support.ts';
import { startTestLocal } from '../support/local.ts';
import { startFakeOpenAi } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

const TOKEN = 'loom_agent_search_token_0123456789abcdef';

describe('local API: an agent searching with a hostile pattern', () => {
  it('keeps the server answering, tells the model, and ends the task done', async (t) => {
    const fake = await startFakeOpenAi();
    t.after(() => fake.close());
    const local = await startTestLocal({
      // 64 a's and a `!` take a backtracking engine minutes; 3,999 take it for ever.
      files: { 'src/math.ts': MATH, 'data/a.txt': `${'a'.repeat(64)}!\n${'a'.repeat(3999)}!\naaaa\n` },
      settings: { apiToken: TOKEN, completion: { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } } },
    });
    t.after(() => local.close());
    fake.chat.queue(
      calls(['search', { query: '^(a+)+$', regex: true }], ['search', { query: '^((a+)\\2?)+$', regex: true }], ['search', { query: 'a'.repeat(100_000) }]),
      { kind: 'text', text: 'Found the line.', hold: true },
    );
    const held = fake.chat.held();
    const started = await local.request('POST', '/api/agent/run', { task: 'Find the lines of a', files: ['src/**'], budgets: { timeoutSeconds: 20 } });
    assert.equal(started.status, 200);
    const { taskId } = started.json;

    // The searches are done and the model is thinking: the task runs, the server answers.
    await held;
    const health = await local.request('GET', '/api/health');
    assert.equal(health.status, 200);
    assert.equal((await local.request('GET', `/api/agent/status/${taskId}`)).json.status, 'running');
    fake.chat.release();

    let status: any;
    await waitFor(
      async () => (status = (await local.request('GET', `/api/agent/status/${taskId}`)).json).status !== 'running',
      undefined,
      'the end of the task',
    );
    assert.deepEqual([status.status, status.reason, status.summary], ['completed', 'done', 'Found the line.']);
    const tools = (await local.request('GET', `/api/agent/steps/${taskId}`)).json.steps.filter((step: any) => step.kind === 'tool');
    assert.deepEqual(
      tools.map((step: any) => [step.ok, step.text]),
      [
        [true, 'data/a.txt:3: aaaa'],
        [
          false,
          'The regular expression cannot be used: invalid escape sequence `\\2`. Backreferences (\\1, \\k<name>) are not supported: they cannot run in linear time.',
        ],
        [false, 'The query is 100000 characters long; at most 1000 are searched for. Search for a shorter, distinctive part of it.'],
      ],
    );
  });
});
