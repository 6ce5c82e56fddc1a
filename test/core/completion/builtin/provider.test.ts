import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderRequest } from '../../../../src/core/completion/provider.ts';
import { BuiltinModel, BuiltinProvider } from '../../../../src/core/completion/builtin/index.ts';

const LINE = 'logger.info("request finished", { status: response.status, ms: elapsed });\n';

function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    prefix: LINE.repeat(3) + 'logger',
    suffix: '',
    language: 'javascript',
    filePath: 'server.js',
    mode: 'fim',
    maxTokens: 64,
    stop: () => undefined,
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe('BuiltinProvider', () => {
  it('is the builtin kind, named builtin, fill-in-the-middle only', () => {
    const provider = new BuiltinProvider(new BuiltinModel());
    assert.equal(provider.kind, 'builtin');
    assert.equal(provider.name, 'builtin');
    assert.deepEqual(provider.capabilities, { fim: true, chat: false, tools: false });
  });

  it('completes from the model', async () => {
    const provider = new BuiltinProvider(new BuiltinModel());
    const result = await provider.complete(request());
    assert.equal(result.text, LINE.slice('logger'.length).trimEnd());
    assert.ok(result.tokens > 0);
  });

  it('passes the stop rule and the token budget through', async () => {
    const provider = new BuiltinProvider(new BuiltinModel());
    const stopped = await provider.complete(request({ stop: (text) => (text.includes('(') ? text.indexOf('(') : undefined) }));
    assert.equal(stopped.text, '.info');
    const short = await provider.complete(request({ maxTokens: 2 }));
    assert.equal(short.text, '.info');
    assert.equal(short.tokens, 2);
  });

  it('rejects with the reason of an aborted signal', async () => {
    const provider = new BuiltinProvider(new BuiltinModel());
    const controller = new AbortController();
    const reason = new Error('superseded');
    controller.abort(reason);
    await assert.rejects(provider.complete(request({ signal: controller.signal })), (error) => error === reason);
  });

  it('answers an instruction with nothing: it is not a chat model', async () => {
    const provider = new BuiltinProvider(new BuiltinModel());
    assert.deepEqual(await provider.complete(request({ mode: 'instruct', prefix: 'write a function that adds two numbers' })), { text: '', tokens: 0 });
  });

  it('closes', async () => {
    await new BuiltinProvider(new BuiltinModel()).close();
  });
});
