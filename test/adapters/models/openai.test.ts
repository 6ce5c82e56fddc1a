// The openai provider against a fake OpenAI-compatible server: request shapes, the FIM → chat
// fallback, stopping and aborting streams, and the errors the engine turns into 502/503.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { ProviderRequest } from '../../../src/core/completion/provider.ts';
import { LoomError } from '../../../src/core/errors.ts';
import { OpenAiProvider, stripMarkdownFences, streamingView, type OpenAiProviderOptions } from '../../../src/adapters/models/openai.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../support/openai-fake.ts';

const KEY = 'sk-test-0123456789abcdef';

function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    prefix: 'function add(a, b) {\n  ',
    suffix: '\n\nexport { add };\n',
    language: 'javascript',
    filePath: 'src/add.js',
    mode: 'fim',
    maxTokens: 32,
    stop: () => undefined,
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe('OpenAiProvider', () => {
  let fake: FakeOpenAi;
  before(async () => {
    fake = await startFakeOpenAi();
  });
  after(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.release();
    fake.set({
      fim: true,
      stream: true,
      holdAfterChunks: undefined,
      usageTokens: undefined,
      fail: undefined,
      rawStream: undefined,
      requireKey: undefined,
      chatText: 'return a + b;',
      fimText: 'return a + b;\n}',
      chunkChars: 4,
    });
  });
  const provider = (options: Partial<OpenAiProviderOptions> = {}) =>
    new OpenAiProvider({ baseUrl: fake.baseUrl, model: 'qwen2.5-coder:1.5b', fim: 'auto', ...options });

  it('sends FIM to /completions with prompt, suffix, max_tokens, temperature 0 and stream', async () => {
    const openai = provider({ apiKey: KEY });
    assert.equal(openai.kind, 'openai');
    assert.equal(openai.name, 'qwen2.5-coder:1.5b');
    assert.deepEqual(openai.capabilities, { fim: true, chat: true, tools: true });
    fake.set({ usageTokens: 7 });
    const result = await openai.complete(request());
    assert.deepEqual(result, { text: 'return a + b;\n}', tokens: 7 });
    assert.equal(fake.requests.length, 1);
    const [sent] = fake.requests;
    assert.equal(sent!.path, '/v1/completions');
    assert.equal(sent!.headers.authorization, `Bearer ${KEY}`);
    assert.equal(sent!.headers['content-type'], 'application/json');
    assert.deepEqual(sent!.body, {
      model: 'qwen2.5-coder:1.5b',
      prompt: 'function add(a, b) {\n  ',
      suffix: '\n\nexport { add };\n',
      max_tokens: 32,
      temperature: 0,
      stream: true,
    });
  });

  it('sends no Authorization header without a key, and counts chunks when the server gives no usage', async () => {
    const result = await provider().complete(request());
    assert.equal(fake.requests[0]!.headers.authorization, undefined);
    assert.equal(result.text, 'return a + b;\n}');
    assert.equal(result.tokens, Math.ceil('return a + b;\n}'.length / 4));
  });

  it('in auto, falls back to chat when the server refuses FIM, and stays with chat', async () => {
    fake.set({ fim: false });
    const openai = provider();
    const result = await openai.complete(request());
    assert.equal(result.text, 'return a + b;');
    assert.deepEqual(
      fake.requests.map((r) => r.path),
      ['/v1/completions', '/v1/chat/completions'],
    );
    const chat = fake.requests[1]!.body;
    assert.equal(chat.model, 'qwen2.5-coder:1.5b');
    assert.equal(chat.stream, true);
    assert.equal(chat.temperature, 0);
    assert.equal(chat.max_tokens, 32);
    assert.equal(chat.messages[0].role, 'system');
    assert.match(chat.messages[0].content, /only the code/);
    assert.equal(chat.messages[1].role, 'user');
    assert.ok(chat.messages[1].content.includes('function add(a, b) {\n  <CURSOR>\n\nexport { add };\n'), chat.messages[1].content);
    assert.ok(chat.messages[1].content.includes('src/add.js'));
    assert.deepEqual(openai.capabilities, { fim: false, chat: true, tools: true });

    fake.requests.length = 0;
    await openai.complete(request());
    assert.deepEqual(
      fake.requests.map((r) => r.path),
      ['/v1/chat/completions'],
      'no second FIM attempt',
    );
  });

  it('treats a 404 on /completions (a chat-only model) as a refusal too', async () => {
    fake.set({ fim: false, fimRefusal: { status: 404, message: 'This is a chat model and not supported in the v1/completions endpoint.' } });
    const result = await provider().complete(request());
    assert.equal(result.text, 'return a + b;');
    fake.set({ fimRefusal: { status: 400, message: 'suffix is not currently supported' } });
  });

  it('with fim off uses chat only; with fim on reports the refusal as model_failed', async () => {
    await provider({ fim: 'off' }).complete(request());
    assert.deepEqual(
      fake.requests.map((r) => r.path),
      ['/v1/chat/completions'],
    );
    assert.equal(provider({ fim: 'off' }).capabilities.fim, false);

    fake.set({ fim: false });
    await assert.rejects(provider({ fim: 'on' }).complete(request()), (error: LoomError) => {
      assert.ok(error instanceof LoomError);
      assert.equal(error.code, 'model_failed');
      assert.match(error.message, /answered HTTP 400: suffix is not currently supported/);
      return true;
    });
  });

  it('strips markdown fences from chat answers, also while streaming', async () => {
    fake.set({ chatText: '```javascript\nreturn a + b;\n```\n', chunkChars: 3 });
    const seen: string[] = [];
    const result = await provider({ fim: 'off' }).complete(request({ stop: (text) => (seen.push(text), undefined) }));
    assert.equal(result.text, 'return a + b;');
    assert.ok(
      seen.every((text) => !text.includes('`')),
      `stop saw ${JSON.stringify(seen)}`,
    );
    fake.set({ chunkChars: 4 });

    assert.equal(stripMarkdownFences('Here you go:\n```ts\nconst x = 1;\n```\nThat is all.'), 'const x = 1;');
    assert.equal(stripMarkdownFences('const x = 1;'), 'const x = 1;');
    assert.deepEqual(streamingView('```ts'), { text: '', closed: false });
    assert.deepEqual(streamingView('```ts\nconst x\n`'), { text: 'const x', closed: false });
    assert.deepEqual(streamingView('```ts\nconst x\n```'), { text: 'const x', closed: true });
  });

  it('sends an instruction with its file as chat', async () => {
    const result = await provider().complete(request({ mode: 'instruct', prefix: 'Write a function that adds two numbers.', suffix: 'const x = 1;\n' }));
    assert.equal(result.text, 'return a + b;');
    assert.deepEqual(
      fake.requests.map((r) => r.path),
      ['/v1/chat/completions'],
    );
    const user = fake.requests[0]!.body.messages[1].content as string;
    assert.ok(user.startsWith('Write a function that adds two numbers.'));
    assert.ok(user.includes('const x = 1;'));
    assert.ok(!user.includes('<CURSOR>'));
  });

  it('reads a server that answers one JSON body instead of a stream', async () => {
    fake.set({ stream: false, usageTokens: 5 });
    assert.deepEqual(await provider().complete(request()), { text: 'return a + b;\n}', tokens: 5 });
    assert.deepEqual(await provider({ fim: 'off' }).complete(request()), { text: 'return a + b;', tokens: 5 });
  });

  it('stops reading once the stop callback cuts, and hangs up on the server', async () => {
    // The server sends the first lines, then holds the stream open: only the provider hanging
    // up ends it.
    fake.set({ fimText: 'x = 1;\ny = 2;\nz = 3;\n'.repeat(50), chunkChars: 2, holdAfterChunks: 5 });
    const cut = fake.nextCut();
    const result = await provider().complete(request({ stop: (text) => (text.includes('\n') ? text.indexOf('\n') : undefined) }));
    assert.equal(result.text, 'x = 1;');
    assert.ok(result.tokens <= 5, `read ${result.tokens} chunks`);
    await cut;
    assert.ok(fake.cutStreams >= 1);
  });

  it('ends when the request is aborted mid-stream, rejecting with the reason', async () => {
    // The server holds the stream after a few chunks and never finishes it on its own: the
    // rejection can only come from the abort.
    fake.set({ fimText: 'a'.repeat(2000), chunkChars: 1, holdAfterChunks: 3 });
    const controller = new AbortController();
    const reason = new LoomError('model_timeout', 'too slow');
    const cut = fake.nextCut();
    const holding = fake.nextHold();
    const pending = provider().complete(request({ signal: controller.signal }));
    await holding;
    controller.abort(reason);
    await assert.rejects(pending, (error) => error === reason);
    await cut;

    const gone = new AbortController();
    gone.abort(new Error('already gone'));
    await assert.rejects(provider().complete(request({ signal: gone.signal })), /already gone/);
  });

  it('aborts while waiting for headers too', async () => {
    const controller = new AbortController();
    const reason = new Error('superseded');
    // Accepts, never answers; the abort comes once the request is provably waiting for headers.
    const silent = http.createServer(() => controller.abort(reason));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const openai = new OpenAiProvider({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`, model: 'm', fim: 'auto' });
      await assert.rejects(openai.complete(request({ signal: controller.signal })), (error) => error === reason);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('reports a server that cannot be reached as model_unavailable', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const openai = new OpenAiProvider({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', fim: 'auto', apiKey: KEY });
    await assert.rejects(openai.complete(request()), (error: LoomError) => {
      assert.ok(error instanceof LoomError);
      assert.equal(error.code, 'model_unavailable');
      assert.match(error.message, new RegExp(`^The OpenAI-compatible server at http://127\\.0\\.0\\.1:${port}/v1 cannot be reached: .*ECONNREFUSED`));
      assert.ok(!error.message.includes(KEY));
      return true;
    });
    assert.equal(openai.capabilities.fim, true, 'an unreachable server teaches nothing about FIM');
  });

  it('reports a server error as model_failed with its message, never the API key', async () => {
    fake.set({ fail: { status: 500, body: JSON.stringify({ error: { message: `internal error while serving key ${KEY}` } }) } });
    const openai = provider({ apiKey: KEY });
    await assert.rejects(openai.complete(request()), (error: LoomError) => {
      assert.ok(error instanceof LoomError);
      assert.equal(error.code, 'model_failed');
      assert.match(error.message, /answered HTTP 500: internal error while serving key \*\*\*$/);
      assert.ok(!error.message.includes(KEY) && !(error.hint ?? '').includes(KEY));
      return true;
    });
    assert.equal(openai.capabilities.fim, true, 'a 500 is not a FIM refusal');
    assert.equal(fake.requests.length, 1);

    fake.set({ fail: { status: 503, body: `<html>${'x'.repeat(2000)}</html>`, contentType: 'text/html' } });
    await assert.rejects(openai.complete(request()), (error: LoomError) => {
      assert.equal(error.code, 'model_failed');
      assert.ok(error.message.length < 500, 'the message is truncated');
      return true;
    });
  });

  it('reports a refused key with a hint, and after the chat fallback fails too, the chat error', async () => {
    fake.set({ requireKey: KEY });
    await assert.rejects(provider({ apiKey: 'sk-wrong-key' }).complete(request()), (error: LoomError) => {
      assert.equal(error.code, 'model_failed');
      assert.match(error.message, /HTTP 401: Incorrect API key provided\./);
      assert.match(error.hint ?? '', /openai\.apiKey/);
      assert.ok(!error.message.includes('sk-wrong-key'));
      return true;
    });
    fake.set({ requireKey: undefined, fail: { status: 404, body: JSON.stringify({ error: 'model "nope" not found, try pulling it first' }) } });
    const openai = provider({ model: 'nope' });
    await assert.rejects(openai.complete(request()), (error: LoomError) => {
      assert.equal(error.code, 'model_failed');
      assert.match(error.message, /HTTP 404: model "nope" not found/);
      assert.match(error.hint ?? '', /openai\.model/);
      return true;
    });
    assert.deepEqual(
      fake.requests.map((r) => r.path),
      ['/v1/completions', '/v1/completions', '/v1/chat/completions'],
    );
    assert.equal(openai.capabilities.fim, true, 'FIM is not given up when chat fails as well');
  });

  it('checks the stop rule in linear time however small the pieces: every piece while short, then each time the text grew by a quarter', async () => {
    const text = 'x'.repeat(40_000);
    fake.set({ fimText: text, chunkChars: 1 });
    let shown = 0;
    const result = await provider().complete(request({ maxTokens: 4096, stop: (seen) => void (shown += seen.length) }));
    assert.equal(result.text, text);
    // Reading it all after each of 40 000 pieces would show the rule 800 million characters.
    const short = (4096 * 4097) / 2;
    assert.ok(shown <= short + 6 * text.length, `the stop rule read ${shown} characters`);
  });

  it("cuts the completion of a server that ignores max_tokens at 32 characters a token, and a stop rule's cut still applies there", async () => {
    fake.set({ fimText: 'y'.repeat(5000), chunkChars: 7 });
    assert.equal((await provider().complete(request({ maxTokens: 10 }))).text, 'y'.repeat(320));
    fake.set({ stream: false });
    assert.equal((await provider().complete(request({ maxTokens: 10, stop: (seen) => (seen.length >= 100 ? 100 : undefined) }))).text, 'y'.repeat(100));
  });

  it('reports an unreadable stream or an error inside it as model_failed', async () => {
    fake.set({ rawStream: 'data: {not json\n\n' });
    await assert.rejects(provider().complete(request()), (error: LoomError) => {
      assert.equal(error.code, 'model_failed');
      assert.match(error.message, /sent something that is not JSON/);
      return true;
    });
    fake.set({ rawStream: `data: ${JSON.stringify({ error: { message: 'out of memory' } })}\n\n` });
    await assert.rejects(provider().complete(request()), (error: LoomError) => {
      assert.equal(error.code, 'model_failed');
      assert.match(error.message, /out of memory/);
      return true;
    });
  });
});
