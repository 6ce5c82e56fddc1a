// Which provider a conversation (an agent's) goes to: ProviderSet.selectChat over stand-in
// providers; the real providers' chat has its tests in test/adapters/models.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CompletionConfig } from '../../../src/core/completion/config.ts';
import type { ChatRequest, ChatResult } from '../../../src/core/completion/chat.ts';
import type { CompletionProvider, ProviderKind } from '../../../src/core/completion/provider.ts';
import { ProviderSet } from '../../../src/core/completion/providers.ts';
import { LoomError } from '../../../src/core/errors.ts';

function standIn(kind: ProviderKind, name: string, chats: boolean): CompletionProvider {
  const provider: CompletionProvider = {
    kind,
    name,
    capabilities: { fim: true, chat: chats, tools: chats },
    complete: async () => ({ text: '', tokens: 0 }),
    close: async () => {},
  };
  if (chats) {
    provider.chat = async (request: ChatRequest): Promise<ChatResult> => ({
      text: `${name}: ${request.messages.length}`,
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 1, completionTokens: 1, source: 'estimate' },
      toolMode: 'none',
      timing: { totalMs: 0 },
      model: name,
    });
  }
  return provider;
}

const config = (over: Partial<CompletionConfig>): CompletionConfig => ({
  provider: 'builtin',
  timeoutMs: 1000,
  maxTokens: 64,
  prefixChars: 100,
  suffixChars: 50,
  ...over,
});
const openaiSettings = { baseUrl: 'http://127.0.0.1:1/v1', model: 'qwen2.5-coder:7b-instruct', fim: 'auto' as const };
const ggufSettings = { model: 'coder.gguf', gpu: 'off' as const, contextSize: 512 };

describe('ProviderSet.selectChat', () => {
  const builtin = standIn('builtin', 'builtin', false);
  const set = (over: Partial<CompletionConfig>) =>
    new ProviderSet(builtin, { gguf: (s) => standIn('gguf', s.model, true), openai: (s) => standIn('openai', s.model, true) }, config(over));

  it('takes the provider a request names, by name or kind', () => {
    const providers = set({ provider: 'gguf', gguf: ggufSettings, openai: openaiSettings });
    assert.equal(providers.selectChat('openai').name, 'qwen2.5-coder:7b-instruct');
    assert.equal(providers.selectChat('coder.gguf').kind, 'gguf');
    assert.throws(
      () => providers.selectChat('gpt-9'),
      (error: LoomError) => error.code === 'unknown_model',
    );
  });

  it('without a name, takes the default provider when it can chat, else the first that can', async () => {
    assert.equal(set({ provider: 'gguf', gguf: ggufSettings, openai: openaiSettings }).selectChat().kind, 'gguf');
    const chosen = set({ provider: 'builtin', openai: openaiSettings }).selectChat();
    assert.equal(chosen.kind, 'openai');
    assert.equal(
      (await chosen.chat({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 1, signal: new AbortController().signal })).text,
      'qwen2.5-coder:7b-instruct: 1',
    );
  });

  it('refuses a provider that cannot chat, saying which can', () => {
    assert.throws(
      () => set({ provider: 'builtin', openai: openaiSettings }).selectChat('builtin'),
      (error: LoomError) =>
        error.code === 'bad_request' &&
        /cannot chat/.test(error.message) &&
        error.hint!.startsWith('Models that can chat: qwen2.5-coder:7b-instruct. To add one: '),
    );
    assert.throws(
      () => set({ provider: 'builtin' }).selectChat(),
      (error: LoomError) => error.code === 'bad_request' && /openai\.baseUrl/.test(error.hint ?? ''),
    );
  });
});
