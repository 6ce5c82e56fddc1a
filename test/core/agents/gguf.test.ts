// The agent loop on the gguf provider, plumbing only: tiny random-weight models (one that
// always calls a tool through the grammar, one that writes whatever its weights say) run real
// llama.cpp turns, and every task ends within its budget with a clear reason.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tempModelDir, writeTinyGguf, type TinyGguf } from '../../support/tiny-gguf.ts';
import { agentHarness, MATH } from './support.ts';

// Real llama.cpp turns on a shared machine: generous guards against hangs, never measurements.
const TIMEOUT = { timeout: 240_000 };
const LIMIT_MS = 200_000;
const { dir, remove } = tempModelDir();
let calling: TinyGguf;
let babbling: TinyGguf;

before(() => {
  // Greedy decoding writes the template's tool-call opener wherever it may: every turn calls a tool.
  // Its tokenizer spells most words letter by letter: the prompt needs a wide window.
  calling = writeTinyGguf(`${dir}/calling.gguf`, { seed: 7, chatTemplate: 'chatml', favouredToken: '<tool_call>\n{"name": "', contextLength: 16_384 });
  babbling = writeTinyGguf(`${dir}/babbling.gguf`, { seed: 11, chatTemplate: 'chatml', contextLength: 16_384 });
});

after(() => remove());

describe('agents on a gguf model', () => {
  it('a model that always calls tools runs grammar-constrained calls until its step budget, and the file is left whole', TIMEOUT, async (t) => {
    const h = await agentHarness(t, { gguf: calling.file });
    const { taskId } = await h.agents.run({ task: 'Rename add to sum', files: ['src/**'], budgets: { maxSteps: 3, maxTokens: 1_600 } });
    await h.completed(taskId, LIMIT_MS);
    const status = await h.agents.status(taskId);
    assert.equal(status.model, 'tiny');
    assert.equal(status.status, 'failed');
    assert.ok(['max_steps', 'max_tokens', 'loop'].includes(status.reason!), status.reason);
    assert.ok(status.steps <= 3);
    const steps = await h.agents.steps(taskId);
    const tools = steps.filter((step) => step.kind === 'tool');
    assert.ok(tools.length >= 1, 'the grammar made it call tools');
    // Calls are well-formed (the grammar): never "could not be read".
    for (const step of tools) assert.doesNotMatch(step.text, /could not be read/);
    const current = h.file('src/math.ts');
    assert.ok(current === MATH || status.changes.length > 0, 'a change on disk is a recorded change');
  });

  it('a model that babbles ends within its budget with a reason', TIMEOUT, async (t) => {
    const h = await agentHarness(t, { gguf: babbling.file });
    const { taskId } = await h.agents.run({ task: 'Rename add to sum', files: ['src/**'], budgets: { maxSteps: 3, maxTokens: 1_600 } });
    await h.completed(taskId, LIMIT_MS);
    const status = await h.agents.status(taskId);
    assert.ok(status.steps >= 1 && status.steps <= 3, String(status.steps));
    assert.ok(['done', 'max_steps', 'max_tokens', 'unusable_answers', 'loop', 'model_error'].includes(status.reason!), status.reason);
    assert.ok(status.tokens > 0);
  });
});
