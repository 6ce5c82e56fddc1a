// The overlap rule (suffix-overlap.ts) through the engine, for each kind of provider as the
// servers build them (createCompletionEngine): the builtin model, an OpenAI-compatible server
// (the scripted one, streaming its answer in pieces; FIM and the chat fallback) and a GGUF model
// run by llama.cpp (a tiny random-weight one). Each answer is fitted to the text after the
// cursor, and so is the type-ahead cache's rest of it.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCompletionEngine } from '../../../src/compose/completion.ts';
import { BuiltinModel, BuiltinProvider } from '../../../src/core/completion/builtin/index.ts';
import type { CompletionConfig } from '../../../src/core/completion/config.ts';
import type { CompletionEngine, CompletionInput } from '../../../src/core/completion/engine.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../support/openai-fake.ts';
import { tempModelDir, writeTinyGguf } from '../../support/tiny-gguf.ts';

const models = tempModelDir('loom-suffix-');
after(models.remove);

const LIMITS = { timeoutMs: 60_000, maxTokens: 24, prefixChars: 8192, suffixChars: 2048 };

function engine(config: Partial<CompletionConfig>, builtin = new BuiltinModel()): CompletionEngine {
  const settings: CompletionConfig = { provider: 'builtin', ...LIMITS, ...config };
  return createCompletionEngine({ builtin: new BuiltinProvider(builtin), catalog: { models: [] }, modelsDir: models.dir }, () => settings);
}

/** The cursor: the editor closed the quote the user opened. */
const AUTO_CLOSED: CompletionInput = { prefix: "import fs from 'node:", suffix: "'\n", language: 'typescript', caller: 'u', filePath: 'src/index.ts' };

describe('every provider is fitted to the text after the cursor', () => {
  describe('openai (the scripted server, streamed in pieces)', () => {
    let fake: FakeOpenAi;
    let completions: CompletionEngine;
    before(async () => {
      fake = await startFakeOpenAi({ fimText: "fs';\nconst x = 1;", chunkChars: 2 });
      completions = engine({ provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'coder', fim: 'auto' } });
    });
    after(async () => {
      await completions.close();
      await fake.close();
    });

    it('does not repeat the auto-closed quote: `fs` at the cursor, `;` after the quote', async () => {
      const result = await completions.complete(AUTO_CLOSED);
      assert.deepEqual([result.completion, result.continuation], ['fs', { skip: 1, text: ';' }]);
      assert.equal(fake.requests.at(-1)!.body.suffix, "'\n", 'the model saw the suffix');
      // The type-ahead cache's rest is fitted the same way.
      const typed = await completions.complete({ ...AUTO_CLOSED, prefix: AUTO_CLOSED.prefix + 'f' });
      assert.deepEqual([typed.completion, typed.continuation, typed.cached], ['s', { skip: 1, text: ';' }, true]);
    });

    it('drops a closer the line has, keeps one of its own, and says nothing when it only repeats', async () => {
      let asked = 0;
      const ask = async (fimText: string, prefix: string, suffix: string) => {
        fake.set({ fimText });
        // A document each: the type-ahead cache would answer the same cursor again.
        return (await completions.complete({ prefix, suffix, language: 'typescript', caller: 'u', filePath: `src/ask${asked++}.ts` })).completion;
      };
      assert.equal(await ask('a, b)', 'foo(', ')\n'), 'a, b');
      assert.equal(await ask('bar(x)', 'foo(', ')\n'), 'bar(x)');
      assert.equal(await ask('hello</div>', '<div>', '</div>\n'), 'hello');
      assert.equal(await ask('value;', 'return ', 'value;\n'), '');
    });

    it('fits the chat fallback of a server without FIM, too', async () => {
      fake.set({ fim: false, chatText: "fs';" });
      try {
        const result = await completions.complete({ ...AUTO_CLOSED, filePath: 'src/chat.ts' });
        assert.deepEqual([result.completion, result.continuation], ['fs', { skip: 1, text: ';' }]);
        assert.equal(fake.requests.at(-1)!.path, '/v1/chat/completions');
      } finally {
        fake.set({ fim: true });
      }
    });
  });

  it('builtin: the model that learned `import fs from ...` does not repeat the quote', async () => {
    const model = new BuiltinModel();
    for (let i = 0; i < 12; i++) {
      model.updateFile(
        `src/m${i}.ts`,
        `import fs from 'node:fs';\nimport path from 'node:path';\n\nexport function read${i}(name: string) {\n  return fs.readFileSync(path.join('data', name), 'utf8');\n}\n`,
      );
    }
    const completions = engine({}, model);
    try {
      // Without the quote after the cursor, the model's answer as it is.
      assert.equal((await completions.complete({ ...AUTO_CLOSED, suffix: '\n', filePath: 'src/open.ts' })).completion, "fs';");
      const result = await completions.complete(AUTO_CLOSED);
      assert.deepEqual([result.completion, result.continuation, result.model], ['fs', { skip: 1, text: ';' }, 'builtin']);
    } finally {
      await completions.close();
    }
  });

  it('gguf: a model that cannot see the suffix (no FIM tokens) gets its repeat dropped', { timeout: 120_000 }, async () => {
    // Without FIM tokens the prompt is the prefix alone: the answer is the same whatever the
    // suffix, so the test can make the suffix repeat its end.
    const file = writeTinyGguf(path.join(models.dir, 'plain.gguf'), { seed: 3 }).file;
    const completions = engine({ provider: 'gguf', gguf: { model: file, gpu: 'off', contextSize: 512 } });
    try {
      const cursor: CompletionInput = { prefix: 'const total = ', suffix: '\n', language: 'typescript', caller: 'u' };
      const alone = (await completions.complete(cursor)).completion;
      const lastWord = /[\p{L}\p{N}_$]+$/u.exec(alone)?.[0];
      assert.ok(lastWord && lastWord.length < alone.trim().length, `the model's line ends with a word after others: ${JSON.stringify(alone)}`);
      const repeat = await completions.complete({ ...cursor, suffix: `${lastWord};\n` });
      assert.equal(repeat.model, 'plain');
      assert.equal(repeat.completion, alone.slice(0, alone.length - lastWord.length));
      assert.equal((await completions.complete({ ...cursor, suffix: `${alone.trim()}\n` })).completion, '', 'only a repeat: no completion');
    } finally {
      await completions.close();
    }
  });
});
