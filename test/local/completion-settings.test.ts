// settings.json `completion`: what it accepts (the config schema's own limits) and how it
// overrides the configuration.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CompletionConfig } from '../../src/core/completion/config.ts';
import { effectiveCompletion } from '../../src/local/completion-settings.ts';
import { parseSettings } from '../../src/local/settings.ts';

const token = 'loom_test_token_0123456789abcdefghij';
const parse = (completion: unknown) => parseSettings(JSON.stringify({ apiToken: token, completion }));

describe('settings.json completion', () => {
  it('accepts what the config schema accepts', () => {
    for (const completion of [
      { provider: 'gguf', gguf: { model: 'Qwen2.5-Coder-1.5B', gpu: 'off', contextSize: 2048 } },
      { provider: 'openai', openai: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'coder', apiKey: '', fim: 'auto' } },
      { timeoutMs: 100, maxTokens: 4096, prefixChars: 64, suffixChars: 0 },
    ])
      assert.deepEqual(parse(completion).problems, [], JSON.stringify(completion));
  });

  it('refuses what it does not, naming the field', () => {
    for (const [completion, field] of [
      [{ provider: 'gpt' }, '/completion/provider'],
      [{ timeoutMs: 99 }, '/completion/timeoutMs'],
      [{ maxTokens: 4097 }, '/completion/maxTokens'],
      [{ gguf: { model: 'm', gpu: 'tpu' } }, '/completion/gguf/gpu'],
      [{ gguf: { model: '' } }, '/completion/gguf/model'],
      [{ openai: { baseUrl: 'ftp://host/v1', model: 'm' } }, '/completion/openai/baseUrl'],
      [{ openai: { baseUrl: 'http://host/v1', model: 'm'.repeat(201) } }, '/completion/openai/model'],
      [{ openai: { baseUrl: 'http://host/v1' } }, '/completion/openai'],
      [{ unknown: 1 }, '/completion'],
    ] as const) {
      const { settings, problems } = parse(completion);
      assert.equal(settings, undefined, JSON.stringify(completion));
      assert.ok(
        problems.some((p) => p.startsWith(field)),
        `${JSON.stringify(completion)}: ${problems.join('; ')}`,
      );
    }
  });

  it('overrides the configuration key by key', () => {
    const base: CompletionConfig = {
      provider: 'builtin',
      timeoutMs: 10_000,
      maxTokens: 64,
      prefixChars: 8192,
      suffixChars: 2048,
      gguf: { model: 'a.gguf', gpu: 'cuda', contextSize: 8192 },
    };
    assert.equal(effectiveCompletion(base, undefined), base);
    assert.deepEqual(effectiveCompletion(base, { provider: 'gguf', timeoutMs: 500, gguf: { model: 'b.gguf' } }), {
      ...base,
      provider: 'gguf',
      timeoutMs: 500,
      gguf: { model: 'b.gguf', gpu: 'cuda', contextSize: 8192 },
      openai: undefined,
    });
    assert.deepEqual(effectiveCompletion(base, { openai: { baseUrl: 'http://h/v1/', model: 'm' } }).openai, {
      baseUrl: 'http://h/v1',
      model: 'm',
      fim: 'auto',
    });
  });
});
