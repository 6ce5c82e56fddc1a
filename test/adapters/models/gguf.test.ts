// The gguf provider against real llama.cpp (node-llama-cpp, CPU) and tiny random-weight models
// written by the test: completion, the infill prompt, KV cache reuse, stop, abort, concurrency.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getLlama, LlamaLogLevel, type Llama, type LlamaModel, type Token } from 'node-llama-cpp';
import type { ProviderRequest } from '../../../src/core/completion/provider.ts';
import { buildPrompt, GgufProvider, promptBudget } from '../../../src/adapters/models/gguf.ts';
import { tempModelDir, writeTinyGguf, type TinyGguf } from '../../support/tiny-gguf.ts';

/** A guard against hangs: loading and running a model on a loaded 2-core machine can take many seconds. */
const TIMEOUT = { timeout: 60_000 };

function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    prefix: 'function add(a, b) {\n  return',
    suffix: '\n}\n',
    language: 'typescript',
    filePath: 'src/add.ts',
    mode: 'fim',
    maxTokens: 8,
    stop: () => undefined,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** A source file of `lines` lines of code, for prompts of a few hundred tokens. */
function source(lines: number, from = 0): string {
  return Array.from({ length: lines }, (_, i) => `  const value${from + i} = items.length + ${from + i};`).join('\n') + '\n';
}

const { dir, remove } = tempModelDir();
let fimModel: TinyGguf;
let plainModel: TinyGguf;
let llama: Llama;

/** Greedy tokens llama.cpp gives for `prompt`, straight through node-llama-cpp: the reference. */
async function greedyTokens(model: LlamaModel, prompt: Token[], count: number): Promise<Token[]> {
  const context = await model.createContext({ contextSize: 512, threads: 1 });
  try {
    const tokens: Token[] = [];
    for await (const token of context.getSequence().evaluate(prompt, { temperature: 0 })) {
      tokens.push(token);
      if (tokens.length >= count) break;
    }
    return tokens;
  } finally {
    await context.dispose();
  }
}

const tokenizeLikeLoom = (model: LlamaModel, text: string) => model.tokenize(text, false, 'trimLeadingSpace');

before(async () => {
  fimModel = writeTinyGguf(`${dir}/fim.gguf`, { fim: 'fim', seed: 7, neverEnd: true });
  plainModel = writeTinyGguf(`${dir}/plain.gguf`, { seed: 7 });
  llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
});

after(async () => {
  await llama.dispose();
  remove();
});

describe('gguf provider with an infill model', () => {
  let provider: GgufProvider;
  before(() => {
    provider = new GgufProvider({ file: fimModel.file, name: 'tiny-fim', gpu: 'off', contextSize: 1024, threads: 1, sequences: 2 });
  });
  after(() => provider.close());

  it('says fim before loading, then what the metadata says', TIMEOUT, async () => {
    assert.deepEqual(provider.capabilities, { fim: true, chat: false, tools: false });
    assert.equal(provider.kind, 'gguf');
    assert.equal(provider.name, 'tiny-fim');
    await provider.load();
    assert.equal(provider.capabilities.fim, true);
    const stats = provider.stats();
    assert.equal(stats.state, 'ready');
    assert.equal(stats.layout, 'spm');
    assert.equal(stats.gpu, false);
    assert.equal(stats.contextSize, 1024);
  });

  it('completes with the infill prompt: what llama.cpp generates for PRE SUF suffix MID prefix', TIMEOUT, async () => {
    const input = request({ filePath: 'reference.ts', maxTokens: 6 });
    const before = provider.stats();
    const result = await provider.complete(input);
    assert.equal(result.tokens, 6);
    assert.ok(result.text.length > 0);

    const model = await llama.loadModel({ modelPath: fimModel.file });
    try {
      const infill = { prefix: model.tokens.infill.prefix!, suffix: model.tokens.infill.suffix!, middle: model.tokens.infill.middle! };
      assert.deepEqual(infill, fimModel.fimTokens);
      const prefix = tokenizeLikeLoom(model, input.prefix);
      const suffix = tokenizeLikeLoom(model, input.suffix);
      const prompt = buildPrompt({ bos: model.tokens.bos!, prefix, suffix, infill, layout: 'spm' }, promptBudget(1024, 6));
      assert.deepEqual(prompt.tokens, [model.tokens.bos, infill.prefix, infill.suffix, ...suffix, infill.middle, ...prefix]);
      assert.equal(provider.stats().promptTokens - before.promptTokens, prompt.tokens.length);
      const expected = await greedyTokens(model, prompt.tokens, 6);
      assert.equal(result.text, model.detokenize(expected, false, prefix.slice(-8)).replace(/\uFFFD+$/, ''));
    } finally {
      await model.dispose();
    }
  });

  it('reuses the KV cache: a keystroke evaluates a few tokens, not the prompt again', TIMEOUT, async () => {
    const prefix = 'export function total(items) {\n' + source(20) + '  let sum = 0;\n  for (const item of items) {\n    sum';
    const first = provider.stats();
    await provider.complete(request({ filePath: 'reuse.ts', prefix }));
    const second = provider.stats();
    await provider.complete(request({ filePath: 'reuse.ts', prefix: prefix + ' +' }));
    const third = provider.stats();
    const cold = second.promptTokensEvaluated - first.promptTokensEvaluated;
    const warm = third.promptTokensEvaluated - second.promptTokensEvaluated;
    assert.ok(cold > 300, `cold request evaluated ${cold} tokens`);
    assert.ok(warm <= 4, `warm request evaluated ${warm} tokens`);
    assert.ok(third.promptTokensReused - second.promptTokensReused >= cold - 2);
  });

  it('reuses the KV cache when the prefix window slides (lines dropped at its start)', TIMEOUT, async () => {
    const base = source(30);
    const first = provider.stats();
    await provider.complete(request({ filePath: 'slide.ts', prefix: base + '  ret', suffix: '\n}\n' }));
    const second = provider.stats();
    // The engine's budget dropped the first two lines as the user typed.
    const slid = base.split('\n').slice(2).join('\n') + '  retu';
    await provider.complete(request({ filePath: 'slide.ts', prefix: slid, suffix: '\n}\n' }));
    const third = provider.stats();
    const warm = third.promptTokensEvaluated - second.promptTokensEvaluated;
    assert.ok(second.promptTokensEvaluated - first.promptTokensEvaluated > 400);
    assert.ok(warm <= 4, `slid request evaluated ${warm} tokens`);
    assert.ok(third.promptTokensShifted - second.promptTokensShifted > 400);
  });

  it('ends generation when stop says so, keeping the characters it says', TIMEOUT, async () => {
    const seen: string[] = [];
    const result = await provider.complete(
      request({
        filePath: 'stop.ts',
        maxTokens: 32,
        stop: (text) => {
          seen.push(text);
          return seen.length === 3 ? 1 : undefined;
        },
      }),
    );
    assert.equal(seen.length, 3);
    assert.ok(seen[1]!.startsWith(seen[0]!) && seen[2]!.startsWith(seen[1]!), 'stop sees the text so far, growing');
    assert.equal(result.text, seen[2]!.slice(0, 1));
    assert.ok(result.tokens >= 3 && result.tokens < 32);
  });

  it("rejects with the stop callback's own error when it throws", TIMEOUT, async () => {
    const failure = new Error('stop rule broke');
    await assert.rejects(
      provider.complete(
        request({
          filePath: 'throws.ts',
          stop: () => {
            throw failure;
          },
        }),
      ),
      (error) => error === failure,
    );
    assert.equal((await provider.complete(request({ filePath: 'throws.ts', maxTokens: 2 }))).tokens, 2);
  });

  it('respects maxTokens', TIMEOUT, async () => {
    // This model never picks a control token: generation runs to the limit.
    const result = await provider.complete(request({ filePath: 'max.ts', maxTokens: 2 }));
    assert.equal(result.tokens, 2);
    assert.equal((await provider.complete(request({ filePath: 'max.ts', maxTokens: 20 }))).tokens, 20);
  });

  it('stops promptly on abort, rejecting with the reason, and the document goes on', TIMEOUT, async () => {
    const controller = new AbortController();
    const reason = new Error('superseded');
    let calls = 0;
    await assert.rejects(
      provider.complete(
        request({
          filePath: 'abort.ts',
          maxTokens: 500,
          signal: controller.signal,
          stop: () => {
            if (++calls === 2) controller.abort(reason);
            return undefined;
          },
        }),
      ),
      (error) => error === reason,
    );
    assert.ok(calls <= 3, `generation went on for ${calls} tokens after the abort`);

    const already = new AbortController();
    already.abort(reason);
    await assert.rejects(provider.complete(request({ filePath: 'abort.ts', signal: already.signal })), (error) => error === reason);

    const next = await provider.complete(request({ filePath: 'abort.ts', maxTokens: 3 }));
    assert.ok(next.tokens <= 3);
  });

  it('a request queued behind another on its document rejects at once when aborted', TIMEOUT, async () => {
    // The long request notes, at each token, whether the queued one has already ended: it must
    // have ended while the long one was still generating, not after it.
    let queuedEnded = false;
    let tokensAfterQueuedEnded = 0;
    const long = provider.complete(
      request({
        filePath: 'queue.ts',
        prefix: source(40),
        maxTokens: 200,
        stop: () => {
          if (queuedEnded) tokensAfterQueuedEnded++;
          return undefined;
        },
      }),
    );
    const controller = new AbortController();
    const queued = provider.complete(request({ filePath: 'queue.ts', signal: controller.signal }));
    controller.abort(new Error('newer keystroke'));
    await assert.rejects(queued, /newer keystroke/);
    queuedEnded = true;
    const result = await long;
    assert.ok(result.tokens <= 200);
    assert.ok(tokensAfterQueuedEnded > 0, 'the queued request ended only once the long one had finished');
  });

  it('completes concurrent requests for two documents', TIMEOUT, async () => {
    const before = provider.stats().requests;
    const [a, b] = await Promise.all([
      provider.complete(request({ filePath: 'a.ts', prefix: source(10) + '  const', maxTokens: 12 })),
      provider.complete(request({ filePath: 'b.ts', prefix: 'def main():\n    print', suffix: '\n', language: 'python', maxTokens: 12 })),
    ]);
    assert.ok(a.tokens <= 12 && b.tokens <= 12);
    assert.equal(provider.stats().requests - before, 2);
  });

  it('cuts a prompt longer than the context to fit it', TIMEOUT, async () => {
    const before = provider.stats();
    const result = await provider.complete(request({ filePath: 'long.ts', prefix: source(200), suffix: source(100, 500), maxTokens: 16 }));
    const prompt = provider.stats().promptTokens - before.promptTokens;
    assert.ok(prompt <= 1024 - 16, `prompt of ${prompt} tokens`);
    assert.ok(prompt > 900);
    assert.ok(result.tokens <= 16);
  });

  it('answers instruct mode as a plain continuation of the prefix', TIMEOUT, async () => {
    const prefix = '// Sum the numbers in a list\n';
    const a = provider.stats();
    await provider.complete(request({ filePath: 'instruct.ts', prefix, suffix: '', mode: 'fim', maxTokens: 2 }));
    const b = provider.stats();
    await provider.complete(request({ filePath: 'instruct.ts', prefix, suffix: 'ignored', mode: 'instruct', maxTokens: 2 }));
    const c = provider.stats();
    // fim: BOS PRE SUF MID prefix; instruct: BOS prefix.
    assert.equal(b.promptTokens - a.promptTokens - (c.promptTokens - b.promptTokens), 3);
  });
});

describe('gguf provider with the psm layout', () => {
  it('reuses the prefix but evaluates the suffix again on each keystroke', TIMEOUT, async (t) => {
    const provider = new GgufProvider({ file: fimModel.file, name: 'tiny-psm', gpu: 'off', contextSize: 1024, threads: 1, sequences: 1, fimLayout: 'psm' });
    t.after(() => provider.close());
    const prefix = source(20) + '  const total = compu';
    const suffix = '(items);\n' + source(6, 100);
    const first = provider.stats();
    await provider.complete(request({ prefix, suffix }));
    const second = provider.stats();
    await provider.complete(request({ prefix: prefix + 't', suffix }));
    const third = provider.stats();
    assert.equal(third.layout, 'psm');
    const cold = second.promptTokensEvaluated - first.promptTokensEvaluated;
    const warm = third.promptTokensEvaluated - second.promptTokensEvaluated;
    const model = await llama.loadModel({ modelPath: fimModel.file });
    const suffixTokens = tokenizeLikeLoom(model, suffix).length;
    await model.dispose();
    // The suffix, SUF and MID come after the prefix: all evaluated again, and little else.
    assert.ok(warm >= suffixTokens + 2 && warm <= suffixTokens + 6, `warm ${warm}, suffix ${suffixTokens}`);
    assert.ok(cold > warm * 2);
  });
});

describe('gguf provider with a model without infill tokens', () => {
  it('says fim: false once loaded and continues the prefix', TIMEOUT, async (t) => {
    const provider = new GgufProvider({ file: plainModel.file, name: 'tiny-plain', gpu: 'off', contextSize: 512, threads: 1, sequences: 1 });
    t.after(() => provider.close());
    const result = await provider.complete(request({ maxTokens: 4 }));
    assert.equal(provider.capabilities.fim, false);
    assert.ok(result.tokens <= 4);
    assert.equal(provider.stats().fim, false);
  });

  it('ends on the end-of-sequence token', TIMEOUT, async (t) => {
    // Learn the greedy continuation, then write the same weights with one of those tokens as EOS.
    const input = request({ mode: 'instruct', prefix: 'const total = items.length', maxTokens: 12 });
    const model = await llama.loadModel({ modelPath: plainModel.file });
    let eosAt: number;
    let eos: Token;
    try {
      const greedy = await greedyTokens(model, [model.tokens.bos!, ...tokenizeLikeLoom(model, input.prefix)], 8);
      eosAt = greedy.findIndex((token, index) => index >= 1 && !greedy.slice(0, index).includes(token) && !model.getTokenAttributes(token).control);
      assert.ok(eosAt >= 1 && !greedy.slice(0, eosAt).some((token) => model.getTokenAttributes(token).control));
      eos = greedy[eosAt]!;
    } finally {
      await model.dispose();
    }
    const eosModel = writeTinyGguf(`${dir}/eos.gguf`, { seed: 7, eosTokenId: eos });
    const provider = new GgufProvider({ file: eosModel.file, name: 'tiny-eos', gpu: 'off', contextSize: 512, threads: 1, sequences: 1 });
    t.after(() => provider.close());
    const result = await provider.complete(input);
    assert.equal(result.tokens, eosAt);
  });
});
