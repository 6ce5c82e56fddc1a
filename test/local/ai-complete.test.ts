// POST /api/ai/complete end to end in the desktop app's server: the builtin model learns the
// workspace at start, every edit and every change on disk; ai:complete is emitted; providers
// switch through settings.json without a restart; failures are clear errors.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LoomEvent } from '../../src/core/events/bus.ts';
import { captureLog } from '../support/log-lines.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';
import { tempModelDir, writeTinyGguf } from '../support/tiny-gguf.ts';
import { copyRealCode, lineCursors, scoreCompletions } from '../support/real-code.ts';
import { waitFor } from '../support/wait.ts';

const TOKEN = 'loom_test_token_0123456789abcdefghij';

describe('local AI completion (POST /api/ai/complete)', () => {
  let local: TestLocal;
  let fake: FakeOpenAi;
  let vendor: string[];
  let workspace: string;
  const events: LoomEvent[] = [];

  before(async () => {
    fake = await startFakeOpenAi({ fimText: 'fromServer();' });
    // A workspace of realistic size: a model that learned three lines knows little.
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-ws-'));
    vendor = copyRealCode(workspace);
    local = await startTestLocal({ workspace, settings: { apiToken: TOKEN, rateLimits: { aiComplete: 10_000 } } });
    local.events.subscribe((event) => void events.push(event));
    await local.completion.learner.ready;
  });
  after(async () => {
    await local.close();
    await fake.close();
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  const complete = (body: unknown) => local.request('POST', '/api/ai/complete', body);

  it('completes lines of a workspace file from what it learned of the workspace, and counts the tokens', async () => {
    // Every line of one file, typed anew (its stored copy is not used for itself).
    const file = vendor.find((f) => f.endsWith('.js') && fs.statSync(path.join(local.workspace, f)).size > 6000)!;
    const text = fs.readFileSync(path.join(local.workspace, file), 'utf8');
    const cursors = lineCursors(text).slice(0, 150);
    let tokens = 0;
    const score = await scoreCompletions(cursors, async (cursor) => {
      const res = await complete({ prompt: cursor.typed, context: cursor.context, language: 'javascript', filePath: file });
      assert.equal(res.status, 200, res.text);
      tokens = Math.max(tokens, res.json.tokens);
      return res.json.completion;
    });
    assert.ok(score.triggered >= 0.2, `suggests at ${(score.triggered * 100).toFixed(0)}% of lines`);
    assert.ok(score.precision >= 0.8, `right ${(score.precision * 100).toFixed(0)}% of the time`);
    assert.ok(tokens > 0);
    const event = events.find((e) => e.type === 'ai:complete');
    assert.ok(event, 'ai:complete emitted');
    assert.deepEqual(Object.keys(event.data).sort(), ['cached', 'characters', 'filePath', 'language', 'latencyMs', 'mode', 'model', 'tokens']);
    assert.equal(event.data.model, 'builtin');
  });

  it('learns what is typed in the editor', async () => {
    const word = 'reconcileLedgerEntries';
    const line = `const ${word}Result = await ${word}(ledger, { strict: true, currency: 'EUR' });\n`;
    local.write('src/ledger.ts', '// ledger\n');
    assert.equal((await local.request('POST', '/api/editor/open', { path: 'src/ledger.ts' })).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await local.request('POST', '/api/editor/insert', { text: line })).status, 200);
    let attempt = 0;
    await waitFor(async () => {
      const res = await complete({ prompt: `const ${word}Result = await `, language: 'typescript', context: '', filePath: `src/other-${attempt++}.ts` });
      return res.json.completion?.startsWith(`${word}(ledger`);
    });
  });

  it('refuses invalid requests with the local error envelope', async () => {
    for (const body of [
      { language: 'ts' },
      { prompt: 'x' },
      { prompt: 1, language: 'ts' },
      { prompt: 'x', language: 'ts', extra: 1 },
      { prompt: 'x', language: 'ts', mode: 'shout' },
    ]) {
      const res = await complete(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.json.error.code, 'VALIDATION_ERROR');
    }
    const unknown = await complete({ prompt: 'x', language: 'ts', model: 'gpt-9' });
    assert.deepEqual([unknown.status, unknown.json.error.code], [400, 'UNKNOWN_MODEL']);
    const instruct = await complete({ prompt: 'Write a sorting function please', language: 'ts', mode: 'instruct' });
    assert.deepEqual([instruct.status, instruct.json.error.code], [400, 'BAD_REQUEST']);
    assert.equal((await local.request('POST', '/api/ai/complete', { prompt: 'x', language: 'ts' }, { authorization: '' })).status, 401);
  });

  it('switches provider through settings.json without a restart, and back', async () => {
    const file = path.join(local.configDir, 'settings.json');
    const base = JSON.parse(fs.readFileSync(file, 'utf8'));
    const models = tempModelDir();
    try {
      fs.writeFileSync(file, JSON.stringify({ ...base, completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'coder' } } }));
      await waitFor(() => local.completion.engine.models()[0] === 'coder');
      const viaServer = await complete({ prompt: 'let x = ', language: 'typescript', filePath: 'a.ts' });
      assert.deepEqual([viaServer.status, viaServer.json.model, viaServer.json.completion], [200, 'coder', 'fromServer();']);
      // An instruction reaches a chat-capable model as one.
      const instructed = await complete({ prompt: 'Write a function that adds two numbers', language: 'typescript', context: '' });
      assert.equal(instructed.status, 200, instructed.text);
      assert.equal(fake.requests.at(-1)!.path, '/v1/chat/completions');

      const gguf = writeTinyGguf(path.join(models.dir, 'tiny.gguf'), { fim: 'fim', seed: 5 }).file;
      // The first request loads the model, inside the completion time limit (startTestLocal's
      // is a generous one for that reason).
      fs.writeFileSync(file, JSON.stringify({ ...base, completion: { provider: 'gguf', maxTokens: 4, gguf: { model: gguf, gpu: 'off', contextSize: 512 } } }));
      await waitFor(() => local.completion.engine.models()[0] === 'tiny');
      const viaGguf = await complete({ prompt: 'let y = ', language: 'typescript', filePath: 'b.ts' });
      assert.deepEqual([viaGguf.status, viaGguf.json.model], [200, 'tiny'], viaGguf.text);

      fs.writeFileSync(file, JSON.stringify(base));
      await waitFor(() => local.completion.engine.models()[0] === 'builtin');
    } finally {
      fs.writeFileSync(file, JSON.stringify(base));
      models.remove();
    }
  });

  it('a model that cannot be reached is a clear error, not a hang', async () => {
    const file = path.join(local.configDir, 'settings.json');
    const base = JSON.parse(fs.readFileSync(file, 'utf8'));
    try {
      fs.writeFileSync(file, JSON.stringify({ ...base, completion: { provider: 'gguf', gguf: { model: '/nowhere/model.gguf' } } }));
      await waitFor(() => local.completion.engine.models()[0] === 'model');
      const res = await complete({ prompt: 'x', language: 'ts' });
      assert.deepEqual([res.status, res.json.error.code], [503, 'MODEL_UNAVAILABLE']);
      assert.match(res.json.error.message, /nowhere\/model\.gguf/);
    } finally {
      fs.writeFileSync(file, JSON.stringify(base));
      await waitFor(() => local.completion.engine.models()[0] === 'builtin');
    }
  });
});

describe('local AI completion never repeats the text after the cursor', () => {
  it("the builtin model's `fs';` before an auto-closed quote: `fs`, its `;` after the quote", async (t) => {
    const files = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [
        `src/m${i}.ts`,
        `import fs from 'node:fs';\nimport path from 'node:path';\n\nexport function read${i}(name: string) {\n  return fs.readFileSync(path.join('data', name), 'utf8');\n}\n`,
      ]),
    );
    const local = await startTestLocal({ files, settings: { apiToken: TOKEN } });
    t.after(() => local.close());
    await local.completion.learner.ready;
    // The window's request: the text before the cursor, and the file with the editor's quote after it.
    const typed = "import fs from 'node:";
    const res = await local.request('POST', '/api/ai/complete', { prompt: typed, context: `${typed}'\n`, language: 'typescript', filePath: 'src/new.ts' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.json.completion, res.json.continuation, res.json.model], ['fs', { skip: 1, text: ';' }, 'builtin']);
    // The window's way: the text before the cursor and the text after it.
    const split = await local.request('POST', '/api/ai/complete', { prompt: typed, suffix: "'\n", language: 'typescript', filePath: 'src/split.ts' });
    assert.deepEqual([split.status, split.json.completion, split.json.continuation], [200, 'fs', { skip: 1, text: ';' }]);
    const both = await local.request('POST', '/api/ai/complete', { prompt: typed, suffix: "'", context: `${typed}'`, language: 'typescript' });
    assert.deepEqual([both.status, both.json.error.code], [400, 'BAD_REQUEST']);
    // Without the quote there, the same model's answer as it is.
    const open = await local.request('POST', '/api/ai/complete', { prompt: typed, context: `${typed}\n`, language: 'typescript', filePath: 'src/open.ts' });
    assert.deepEqual([open.json.completion, open.json.continuation], ["fs';", undefined]);
  });
});

describe('local AI completion rate limit', () => {
  it('is 60 per minute by default and follows settings.json rateLimits.aiComplete', async (t) => {
    const local = await startTestLocal({ settings: { apiToken: TOKEN, rateLimits: { aiComplete: 2 } } });
    t.after(() => local.close());
    const body = { prompt: 'x', language: 'ts' };
    assert.equal((await local.request('POST', '/api/ai/complete', body)).status, 200);
    assert.equal((await local.request('POST', '/api/ai/complete', body)).status, 200);
    const limited = await local.request('POST', '/api/ai/complete', body);
    assert.equal(limited.status, 429);
    assert.equal(limited.json.error.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal((await local.request('GET', '/api/health')).status, 200, 'other routes have their own budget');
  });
});

describe('local AI completion whose client goes away', () => {
  it('stops the model call, answers nothing and logs 499', async (t) => {
    const fake = await startFakeOpenAi({ holdAfterChunks: 0 });
    t.after(() => fake.close());
    const log = captureLog();
    const local = await startTestLocal({
      log,
      settings: { apiToken: TOKEN, completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'coder' } } },
    });
    t.after(() => local.close());
    const emitted: string[] = [];
    local.events.subscribe((event) => void emitted.push(event.type));
    const request = http.request({
      host: '127.0.0.1',
      port: local.port,
      method: 'POST',
      path: '/api/ai/complete',
      headers: { host: `127.0.0.1:${local.port}`, authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    });
    request.on('error', () => {});
    request.end(JSON.stringify({ prompt: 'let x = ', language: 'typescript' }));
    await fake.nextHold();
    const cut = fake.nextCut();
    request.destroy();
    await cut;
    await waitFor(() => log.lines().some((line) => line.route === '/api/ai/complete' && line.status === 499), undefined, 'a 499 line');
    assert.ok(!log.lines().some((line) => line.level === 50), 'no error logged');
    assert.deepEqual(emitted, [], 'no ai:complete for a completion no one waits for');
  });
});
