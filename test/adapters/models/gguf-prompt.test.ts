// The gguf provider's pure parts: the infill prompt layout and its cuts, and the KV cache
// reuse plan. No model is loaded here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildPrompt, promptBudget, resolveLayout } from '../../../src/adapters/models/gguf.ts';
import { commonPrefixLength, planReuse } from '../../../src/adapters/models/gguf/reuse.ts';
import { SequencePool } from '../../../src/adapters/models/gguf/sequences.ts';
import { Gate } from '../../support/wait.ts';

const BOS = 1;
const infill = { prefix: 900, suffix: 901, middle: 902 };
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('gguf prompt', () => {
  it('spm: PRE SUF suffix MID prefix, so the prefix ends the prompt', () => {
    const prompt = buildPrompt({ bos: BOS, prefix: [10, 11, 12], suffix: [20, 21], infill, layout: 'spm' }, 100);
    assert.deepEqual(prompt.tokens, [BOS, 900, 901, 20, 21, 902, 10, 11, 12]);
    assert.equal(prompt.layout, 'spm');
  });

  it('psm: PRE prefix SUF suffix MID', () => {
    const prompt = buildPrompt({ bos: BOS, prefix: [10, 11], suffix: [20], infill, layout: 'psm' }, 100);
    assert.deepEqual(prompt.tokens, [BOS, 900, 10, 11, 901, 20, 902]);
  });

  it('without infill tokens the prompt continues the prefix and drops the suffix', () => {
    const prompt = buildPrompt({ bos: BOS, prefix: [10, 11], suffix: [20], layout: 'spm' }, 100);
    assert.deepEqual(prompt.tokens, [BOS, 10, 11]);
    assert.equal(prompt.layout, 'none');
    assert.deepEqual(buildPrompt({ prefix: [10], suffix: [], layout: 'psm' }, 100).tokens, [10]);
  });

  it('a keystroke keeps every spm token but the last ones: the shared start is the whole old prompt', () => {
    const before = buildPrompt({ bos: BOS, prefix: range(10, 50), suffix: range(100, 30), infill, layout: 'spm' }, 1000);
    const after = buildPrompt({ bos: BOS, prefix: [...range(10, 50), 77], suffix: range(100, 30), infill, layout: 'spm' }, 1000);
    assert.equal(commonPrefixLength(before.tokens, after.tokens), before.tokens.length);
    const psmBefore = buildPrompt({ bos: BOS, prefix: range(10, 50), suffix: range(100, 30), infill, layout: 'psm' }, 1000);
    const psmAfter = buildPrompt({ bos: BOS, prefix: [...range(10, 50), 77], suffix: range(100, 30), infill, layout: 'psm' }, 1000);
    assert.equal(commonPrefixLength(psmBefore.tokens, psmAfter.tokens), 52); // BOS, PRE, the prefix: the suffix comes again
  });

  it('cuts the start of the prefix and the end of the suffix to the budget, the suffix keeping a quarter', () => {
    const prompt = buildPrompt({ bos: BOS, prefix: range(1000, 500), suffix: range(5000, 500), infill, layout: 'spm' }, 104);
    assert.equal(prompt.tokens.length, 104);
    assert.equal(prompt.suffixTokens, 25);
    assert.equal(prompt.prefixTokens, 75);
    assert.deepEqual(prompt.tokens.slice(3, 5), [5000, 5001]); // the suffix's start, next to the cursor
    assert.equal(prompt.tokens.at(-1), 1499); // the prefix's end, at the cursor
    assert.equal(prompt.prefixCut, 425);
    assert.equal(prompt.suffixCut, 475);
  });

  it('gives a short side what it does not use to the other', () => {
    const shortSuffix = buildPrompt({ prefix: range(1000, 500), suffix: [7, 8], infill, layout: 'psm' }, 53);
    assert.equal(shortSuffix.suffixTokens, 2);
    assert.equal(shortSuffix.prefixTokens, 48);
    const shortPrefix = buildPrompt({ prefix: [7, 8], suffix: range(1000, 500), infill, layout: 'psm' }, 53);
    assert.equal(shortPrefix.prefixTokens, 2);
    assert.equal(shortPrefix.suffixTokens, 48);
  });

  it('leaves room for generation: up to half the window', () => {
    assert.equal(promptBudget(4096, 64), 4032);
    assert.equal(promptBudget(512, 4096), 256);
    assert.equal(promptBudget(512, 0), 511);
  });

  it('uses psm for model families trained on it alone', () => {
    assert.equal(resolveLayout('qwen2', 'qwen2'), 'psm');
    assert.equal(resolveLayout('llama', 'deepseek-coder'), 'psm');
    assert.equal(resolveLayout('starcoder2', 'starcoder'), 'spm');
    assert.equal(resolveLayout('llama', undefined), 'spm');
  });
});

describe('gguf KV reuse plan', () => {
  it('keeps the shared start and erases the held tail', () => {
    const held = [1, 2, 3, 4, 5, 6];
    assert.deepEqual(planReuse(held, [1, 2, 3, 9, 9], { allowShift: true }), { erase: [{ start: 3, end: 6 }], keep: 3, shifted: 0 });
  });

  it('always leaves the last prompt token to evaluate', () => {
    assert.deepEqual(planReuse([1, 2, 3], [1, 2, 3], { allowShift: true }), { erase: [{ start: 2, end: 3 }], keep: 2, shifted: 0 });
    assert.deepEqual(planReuse([1, 2, 3, 4], [1, 2, 3], { allowShift: true }).keep, 2);
    assert.deepEqual(planReuse([], [1, 2], { allowShift: true }), { erase: [], keep: 0, shifted: 0 });
  });

  it('a slid window: erases the dropped run and keeps what follows it, shifted back', () => {
    const head = [1, 900, 901, 902];
    const dropped = range(100, 12);
    const kept = range(200, 80);
    const held = [...head, ...dropped, ...kept, 555, 556]; // 555, 556: generated last time
    const prompt = [...head, ...kept, 300, 301];
    const plan = planReuse(held, prompt, { allowShift: true });
    assert.deepEqual(plan.erase, [
      { start: 4, end: 16 },
      { start: 96, end: 98 },
    ]);
    assert.equal(plan.keep, 84);
    assert.equal(plan.shifted, 80);
    // Without shifting (a recurrent model), only the head is kept.
    assert.deepEqual(planReuse(held, prompt, { allowShift: false }), { erase: [{ start: 4, end: 98 }], keep: 4, shifted: 0 });
  });

  it('does not shift for a short match, a match that is not most of the prompt, or from position 0', () => {
    const held = [1, ...range(100, 5), ...range(200, 40), 7];
    assert.equal(planReuse(held, [1, ...range(200, 40), 8], { allowShift: true }).shifted, 0);
    // 70 tokens in common with another document, in a prompt of 300 past the shared start.
    const other = [1, ...range(100, 5), ...range(200, 70), ...range(2000, 50)];
    assert.equal(planReuse(other, [1, ...range(200, 70), ...range(3000, 230)], { allowShift: true }).shifted, 0);
    const fromZero = [...range(100, 5), ...range(200, 40)];
    assert.equal(planReuse(fromZero, [...range(200, 40), 8], { allowShift: true }).keep, 0);
  });

  it('stays linear on repetitive text', () => {
    const held = [1, ...new Array<number>(20_000).fill(5)];
    const prompt = [1, 6, ...new Array<number>(20_000).fill(5)];
    // Counted, not timed: every token read of either array. A quadratic scan would read
    // hundreds of millions; the proxies stop it at the bound instead of letting it run.
    const bound = 10 * (held.length + prompt.length);
    let reads = 0;
    const counted = (tokens: number[]) =>
      new Proxy(tokens, {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key) && ++reads > bound) throw new Error(`more than ${bound} token reads`);
          return Reflect.get(target, key, receiver);
        },
      });
    planReuse(counted(held), counted(prompt), { allowShift: true });
    assert.ok(reads <= bound, `${reads} reads`);
  });
});

describe('gguf sequence pool', () => {
  const fakeSequence = () => ({ disposed: false, id: Math.random(), dispose() {} });

  it('runs the jobs of one document one at a time, in order', async () => {
    const pool = new SequencePool(2, fakeSequence);
    const events: string[] = [];
    const firstMayEnd = new Gate();
    const job = (name: string, gate?: Gate) => async () => {
      events.push(`${name} start`);
      await gate?.pass();
      events.push(`${name} end`);
    };
    const both = Promise.all([pool.run('a', job('first', firstMayEnd)), pool.run('a', job('second'))]);
    await firstMayEnd.reached();
    await new Promise(setImmediate); // whatever else was ready to run has run
    assert.deepEqual(events, ['first start'], 'the second job waits while the first is under way');
    firstMayEnd.open();
    await both;
    assert.deepEqual(events, ['first start', 'first end', 'second start', 'second end']);
  });

  it('keeps a sequence per document and gives the least recently used one to a new document', async () => {
    const pool = new SequencePool(2, fakeSequence);
    const seen = (key: string) => pool.run(key, async (sequence) => sequence.id);
    const a = await seen('a');
    const b = await seen('b');
    assert.notEqual(a, b);
    assert.equal(await seen('a'), a);
    assert.equal(await seen('c'), b); // b was used least recently
    assert.equal(pool.size, 2);
  });

  it('a failed job does not block the next', async () => {
    const pool = new SequencePool(1, fakeSequence);
    await assert.rejects(pool.run('a', async () => Promise.reject(new Error('boom'))));
    assert.equal(await pool.run('a', async () => 'next'), 'next');
  });
});
