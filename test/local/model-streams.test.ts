// A model server that does not stop, through the real local server (startLocal, settings.json
// naming the scripted OpenAI-compatible server): an event without a newline, events without end,
// tool-call arguments without end, a body that does not stream and does not end. Each is read
// up to its cap (openai-chat.ts, ANSWER_LIMITS) and no further: an agent task ends
// `model_error` saying the answer was too long, a completion answers a clear error or a cut
// completion, the server hangs up on the model, and /api/health answers while the model pours.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { MATH } from '../core/agents/support.ts';
import { ANSWER_LIMITS } from '../../src/adapters/models/openai-chat.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { startFakeOpenAi, type FakeOpenAi, type ScriptedTurn } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

const TOKEN = 'loom_model_streams_test_token_0123456789';

async function startWithModel(t: TestContext): Promise<{ local: TestLocal; fake: FakeOpenAi }> {
  const fake = await startFakeOpenAi();
  t.after(() => fake.close());
  const local = await startTestLocal({
    files: { 'src/math.ts': MATH },
    settings: { apiToken: TOKEN, completion: { openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } }, rateLimits: { aiComplete: 10_000 } },
  });
  t.after(() => local.close());
  return { local, fake };
}

/** GET /api/health answers 200 (a stalled server would not: the request has its own guard). */
async function healthy(local: TestLocal): Promise<void> {
  const answer = await fetch(`${local.url}/api/health`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: AbortSignal.timeout(20_000) });
  assert.equal(answer.status, 200);
  await answer.arrayBuffer();
}

/**
 * Runs an agent task answered by `turn`; once the model has poured a few MiB, health must
 * answer; then the task's end.
 */
async function taskAnsweredBy(t: TestContext, turn: ScriptedTurn): Promise<{ status: any; fake: FakeOpenAi }> {
  const { local, fake } = await startWithModel(t);
  fake.chat.queue(turn);
  const started = await local.request('POST', '/api/agent/run', { task: 'Explain add', files: ['src/math.ts'] });
  assert.equal(started.status, 200, started.text);
  await waitFor(() => fake.chat.floodBytes > 4 * 1024 * 1024, undefined, 'the flood under way');
  await healthy(local);
  let status: any;
  await waitFor(
    async () => (status = (await local.request('GET', `/api/agent/status/${started.json.taskId}`)).json).status !== 'running',
    undefined,
    'the end of the task',
  );
  await healthy(local);
  return { status, fake };
}

describe('a model answer without end (local server, scripted OpenAI-compatible server)', () => {
  it('one event without a newline: the task ends model_error, the answer too long (an event over the cap), the server hung up, health answered', async (t) => {
    const { status, fake } = await taskAnsweredBy(t, { kind: 'flood', what: 'line' });
    assert.deepEqual([status.status, status.reason], ['failed', 'model_error']);
    assert.match(status.error, new RegExp(`was too long: an event of more than ${ANSWER_LIMITS.eventBytes} bytes`));
    await waitFor(() => fake.chat.hangUps === 1, undefined, 'the server hanging up on the model');
  });

  it('events without end: the task ends model_error at the cap on text, the server hung up', async (t) => {
    const { status, fake } = await taskAnsweredBy(t, { kind: 'flood', what: 'text' });
    assert.deepEqual([status.status, status.reason], ['failed', 'model_error']);
    assert.match(status.error, new RegExp(`was too long: more than ${ANSWER_LIMITS.answerChars} characters of text and tool-call arguments`));
    await waitFor(() => fake.chat.hangUps === 1, undefined, 'the hang-up');
  });

  it("a tool call's arguments without end: the same end", async (t) => {
    const { status, fake } = await taskAnsweredBy(t, { kind: 'flood', what: 'arguments' });
    assert.deepEqual([status.status, status.reason], ['failed', 'model_error']);
    assert.match(status.error, new RegExp(`was too long: more than ${ANSWER_LIMITS.answerChars} characters`));
    await waitFor(() => fake.chat.hangUps === 1, undefined, 'the hang-up');
  });

  it('a body that does not stream and does not end: the same end, past the cap on a body', async (t) => {
    const { status, fake } = await taskAnsweredBy(t, { kind: 'flood', what: 'json' });
    assert.deepEqual([status.status, status.reason], ['failed', 'model_error']);
    assert.match(status.error, new RegExp(`was too long: a body of more than ${ANSWER_LIMITS.eventBytes} bytes`));
    await waitFor(() => fake.chat.hangUps === 1, undefined, 'the hang-up');
  });

  it('completion: an event without a newline is a clear 502; events without end give a completion cut at its cap; health answers', async (t) => {
    const { local, fake } = await startWithModel(t);
    const complete = (maxTokens: number) =>
      local.request('POST', '/api/ai/complete', { prompt: 'const answer = ', language: 'typescript', model: 'openai', maxTokens });

    fake.chat.queue({ kind: 'flood', what: 'line' });
    const refused = complete(64);
    await waitFor(() => fake.chat.floodBytes > 4 * 1024 * 1024, undefined, 'the flood under way');
    await healthy(local);
    const answer = await refused;
    assert.equal(answer.status, 502, answer.text);
    assert.equal(answer.json.error.code, 'MODEL_FAILED');
    assert.match(answer.json.error.message, new RegExp(`was too long: an event of more than ${ANSWER_LIMITS.eventBytes} bytes`));
    await waitFor(() => fake.chat.hangUps === 1, undefined, 'the hang-up');

    // A server that ignores max_tokens: the completion ends at 32 characters a token, as if it had stopped there.
    fake.chat.queue({ kind: 'flood', what: 'text' });
    const cut = await complete(16);
    assert.equal(cut.status, 200, cut.text);
    assert.equal(cut.json.completion, 'x'.repeat(16 * 32));
    await waitFor(() => fake.chat.hangUps === 2, undefined, 'the hang-up');
    await healthy(local);
  });
});
