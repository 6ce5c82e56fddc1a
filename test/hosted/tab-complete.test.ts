// POST /api/v1/tab/complete end to end: auth as the spec's table says, validation, the
// builtin engine's answers, and each provider's failure as a clear error (never a hang).
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BuiltinModel } from '../../src/core/completion/builtin/index.ts';
import { startTestHosted, type TestHosted } from '../support/hosted.ts';
import { captureLog } from '../support/log-lines.ts';
import { assertError, bearer, registerClient, signedInUser, signInWithCode } from '../support/oauth.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';
import { tempModelDir, writeNotGguf, writeTinyGguf } from '../support/tiny-gguf.ts';
import { waitFor } from '../support/wait.ts';

const loader = (name: string) =>
  `export async function load${name}(url: string) {\n  const result = await fetchJson(url, { method: 'POST', headers: jsonHeaders });\n  return result.items.map((item) => normalize${name}(item));\n}\n`;

function trainedModel(): BuiltinModel {
  const model = new BuiltinModel();
  model.updateFile('lib/loaders.ts', ['User', 'Team', 'Project', 'Invoice'].map(loader).join('\n'));
  return model;
}

function complete(hosted: TestHosted, body: unknown, headers: Record<string, string>) {
  return fetch(`${hosted.url}/api/v1/tab/complete`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const cursor = {
  language: 'typescript',
  prefix: 'export async function loadOrder(url: string) {\n  const result = await ',
  suffix: '\n}\n',
  filePath: 'lib/orders.ts',
};

describe('tabComplete (POST /api/v1/tab/complete)', () => {
  let hosted: TestHosted;
  let apiKey: string;
  let tabToken: string;
  let modelsToken: string;

  before(async () => {
    hosted = await startTestHosted({ builtinModel: trainedModel() });
    const { client } = await registerClient(hosted);
    const session = await signedInUser(hosted, 'tab@example.com');
    tabToken = (await signInWithCode(hosted, client, 'read:tab', session.cookie)).access_token;
    modelsToken = (await signInWithCode(hosted, client, 'read:models', session.cookie)).access_token;
    apiKey = (await hosted.identity.apiKeys.create(session.user!.id, { name: 'editor', expiresInDays: 30 })).key;
  });
  after(() => hosted.close());

  it('completes from the builtin model with an OAuth token carrying read:tab', async () => {
    const res = await complete(hosted, cursor, bearer(tabToken));
    assert.equal(res.status, 200);
    const body = (await res.json()) as { completion: string; latencyMs: number; model: string };
    assert.equal(body.completion, "fetchJson(url, { method: 'POST', headers: jsonHeaders });");
    assert.equal(body.model, 'builtin');
    assert.ok(Number.isInteger(body.latencyMs) && body.latencyMs >= 0);
  });

  it('accepts an API key (bearerAuth)', async () => {
    const res = await complete(hosted, cursor, bearer(apiKey));
    assert.equal(res.status, 200);
  });

  it('says nothing rather than something wrong on code it has never seen', async () => {
    const res = await complete(hosted, { language: 'python', prefix: 'zq = xv.', suffix: '' }, bearer(apiKey));
    assert.deepEqual(((await res.json()) as { completion: string }).completion, '');
  });

  it('needs a token, and one with read:tab', async () => {
    await assertError(await complete(hosted, cursor, {}), 401, 'unauthorized');
    await assertError(await complete(hosted, cursor, bearer(modelsToken)), 403, 'insufficient_scope');
  });

  it('refuses an invalid request with 400 and the failing fields', async () => {
    const cases: [unknown, string][] = [
      [{ prefix: 'a', suffix: '' }, 'language'],
      [{ language: 'ts', prefix: 1, suffix: '' }, 'prefix'],
      [{ language: 'ts', prefix: 'a' }, 'suffix'],
      [{ ...cursor, extra: true }, 'extra'],
      [{ ...cursor, language: 'type script' }, 'language'],
      [{ ...cursor, filePath: '' }, 'filePath'],
    ];
    for (const [body, field] of cases) {
      const error = await assertError(await complete(hosted, body, bearer(apiKey)), 400, 'validation_error');
      assert.match(JSON.stringify(error.details), new RegExp(field), JSON.stringify(body));
    }
    await assertError(await complete(hosted, '{"language":', bearer(apiKey)), 400, 'invalid_json');
    const unknown = await assertError(await complete(hosted, { ...cursor, model: 'gpt-9' }, bearer(apiKey)), 400, 'unknown_model');
    assert.match(String(unknown.hint), /builtin/);
  });

  it('answers a user typing the suggestion from the type-ahead cache', async () => {
    const first = (await (await complete(hosted, { ...cursor, filePath: 'lib/typed.ts' }, bearer(tabToken))).json()) as { completion: string };
    const typed = (await (await complete(hosted, { ...cursor, filePath: 'lib/typed.ts', prefix: cursor.prefix + 'fetchJson(' }, bearer(tabToken))).json()) as {
      completion: string;
    };
    assert.equal(typed.completion, first.completion.slice('fetchJson('.length));
  });

  it('is in the OpenAPI document with its security', async () => {
    const doc = (await (await fetch(`${hosted.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; security: unknown[] }>>;
    };
    const operation = doc.paths['/tab/complete']!.post!;
    assert.equal(operation.operationId, 'tabComplete');
    assert.deepEqual(operation.security, [{ oAuth2: ['read:tab'] }, { bearerAuth: [] }]);
  });
});

describe('tabComplete with other providers', () => {
  it('runs a GGUF model file, and says clearly when the file is missing or not a model', async (t) => {
    const models = tempModelDir();
    t.after(models.remove);
    const file = writeTinyGguf(path.join(models.dir, 'tiny-coder.gguf'), { fim: 'fim', seed: 3 }).file;
    const hosted = await startTestHosted({ completion: { provider: 'gguf', gguf: { model: file, gpu: 'off', contextSize: 512 }, maxTokens: 8 } });
    t.after(() => hosted.close());
    const { user } = await signedInUser(hosted, 'gguf@example.com');
    const key = (await hosted.identity.apiKeys.create(user!.id, { name: 'k', expiresInDays: 1 })).key;
    const res = await complete(hosted, cursor, bearer(key));
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { completion: string; model: string };
    assert.equal(body.model, 'tiny-coder');
    assert.equal(typeof body.completion, 'string');
    // The builtin model stays available by name.
    assert.equal((await complete(hosted, { ...cursor, model: 'builtin' }, bearer(key))).status, 200);

    const missing = await startTestHosted({
      completion: { provider: 'gguf', gguf: { model: path.join(models.dir, 'gone.gguf'), gpu: 'off', contextSize: 512 } },
    });
    t.after(() => missing.close());
    const other = (await missing.identity.apiKeys.create((await signedInUser(missing, 'm@example.com')).user!.id, { name: 'k', expiresInDays: 1 })).key;
    const error = await assertError(await complete(missing, cursor, bearer(other)), 503, 'model_unavailable');
    assert.match(String(error.message), /gone\.gguf/);
    // Every user of a hosted server reads its hints: they name the key and "the server's config file", never its path.
    assert.match(String(error.hint), /gguf\.model is "gguf": \{"model": …\} in the server's config file, or LOOM_GGUF_MODEL/);
    assert.doesNotMatch(String(error.hint), /config\.json|<data dir>/);

    const notModel = writeNotGguf(path.join(models.dir, 'notes.gguf'));
    const bad = await startTestHosted({ completion: { provider: 'gguf', gguf: { model: notModel, gpu: 'off', contextSize: 512 } } });
    t.after(() => bad.close());
    const third = (await bad.identity.apiKeys.create((await signedInUser(bad, 'b@example.com')).user!.id, { name: 'k', expiresInDays: 1 })).key;
    await assertError(await complete(bad, cursor, bearer(third)), 503, 'model_unavailable');
  });

  describe('an OpenAI-compatible server', () => {
    let fake: FakeOpenAi;
    let hosted: TestHosted;
    let key: string;
    before(async () => {
      fake = await startFakeOpenAi({ fimText: 'fetchJson(url);\nreturn 1;' });
      hosted = await startTestHosted({ completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'coder-7b', fim: 'auto' } } });
      key = (await hosted.identity.apiKeys.create((await signedInUser(hosted, 'o@example.com')).user!.id, { name: 'k', expiresInDays: 1 })).key;
    });
    after(async () => {
      await hosted.close();
      await fake.close();
    });

    it('completes through it, cut at the end of the line', async () => {
      const res = await complete(hosted, cursor, bearer(key));
      assert.equal(res.status, 200, await res.clone().text());
      const body = (await res.json()) as { completion: string; model: string };
      assert.deepEqual([body.completion, body.model], ['fetchJson(url);', 'coder-7b']);
      const sent = fake.requests.at(-1)!;
      assert.equal(sent.path, '/v1/completions');
      assert.equal(sent.body.suffix, cursor.suffix);
    });

    it("never repeats the suffix: an auto-closed quote is not written again; the model's `;` comes as the continuation", async () => {
      fake.set({ fimText: "fs';\nconst x = 1;" });
      try {
        const body = { language: 'typescript', prefix: "import fs from 'node:", suffix: "'", filePath: 'src/index.ts' };
        const res = await complete(hosted, body, bearer(key));
        assert.equal(res.status, 200, await res.clone().text());
        const answer = (await res.json()) as { completion: string; continuation?: { skip: number; text: string } };
        assert.deepEqual(answer.continuation, { skip: 1, text: ';' });
        assert.equal(answer.completion, 'fs', "not `fs';`: the quote is already there");
        // Accepted as the docs say: the line reads right.
        const line = body.prefix + answer.completion + body.suffix.slice(0, 1) + answer.continuation.text + body.suffix.slice(1);
        assert.equal(line, "import fs from 'node:fs';");
        // A closer the line has, and a completion that is only the suffix.
        fake.set({ fimText: 'a, b)' });
        const call = (await (await complete(hosted, { language: 'typescript', prefix: 'foo(', suffix: ')', filePath: 'src/call.ts' }, bearer(key))).json()) as {
          completion: string;
          continuation?: unknown;
        };
        assert.deepEqual(call, { ...call, completion: 'a, b' });
        assert.equal(call.continuation, undefined);
        fake.set({ fimText: ')' });
        const only = (await (
          await complete(hosted, { language: 'typescript', prefix: 'foo(a', suffix: ')', filePath: 'src/only.ts' }, bearer(key))
        ).json()) as {
          completion: string;
        };
        assert.equal(only.completion, '');
      } finally {
        fake.set({ fimText: 'fetchJson(url);\nreturn 1;' });
      }
    });

    it('a slow server is stopped at the time limit: 504 model_timeout', async (t) => {
      // A server with a short time limit; the fake holds the stream open until released, after
      // the answer: the 504 comes from the time limit, not from the server finishing.
      const limited = await startTestHosted({
        completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'coder-7b', fim: 'auto' }, timeoutMs: 300 },
      });
      t.after(() => limited.close());
      const limitedKey = (await limited.identity.apiKeys.create((await signedInUser(limited, 's@example.com')).user!.id, { name: 'k', expiresInDays: 1 })).key;
      fake.set({ holdAfterChunks: 0 });
      const cut = fake.nextCut();
      try {
        await assertError(await complete(limited, { ...cursor, filePath: 'slow.ts' }, bearer(limitedKey)), 504, 'model_timeout');
        await cut; // and the provider hung up on the server it stopped waiting for
      } finally {
        fake.set({ holdAfterChunks: undefined });
        fake.release();
      }
    });

    it('a server that errors is 502 model_failed; one that is down is 503 model_unavailable', async () => {
      fake.set({ fail: { status: 500, body: '{"error":{"message":"out of memory"}}', contentType: 'application/json' } });
      // Another document: the first test's suggestion would come from the type-ahead cache.
      const failing = { ...cursor, filePath: 'failing.ts' };
      const failed = await assertError(await complete(hosted, failing, bearer(key)), 502, 'model_failed');
      assert.match(String(failed.message), /out of memory/);
      fake.set({ fail: undefined });
      await fake.close();
      await assertError(await complete(hosted, failing, bearer(key)), 503, 'model_unavailable');
    });
  });
});

describe('tabComplete whose client goes away', () => {
  it('stops the model call, answers nothing and logs 499', async (t) => {
    const fake = await startFakeOpenAi({ holdAfterChunks: 0 });
    t.after(() => fake.close());
    const log = captureLog();
    const hosted = await startTestHosted({ log, completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'coder-7b', fim: 'auto' } } });
    t.after(() => hosted.close());
    const key = (await hosted.identity.apiKeys.create((await signedInUser(hosted, 'gone@example.com')).user!.id, { name: 'k', expiresInDays: 1 })).key;
    const { port, hostname } = new URL(hosted.url);
    const request = http.request({
      host: hostname,
      port,
      method: 'POST',
      path: '/api/v1/tab/complete',
      headers: { 'content-type': 'application/json', ...bearer(key) },
    });
    request.on('error', () => {});
    request.end(JSON.stringify(cursor));
    await fake.nextHold();
    const cut = fake.nextCut();
    request.destroy();
    await cut; // the server hung up on the model it no longer needs
    await waitFor(() => log.lines().some((line) => line.route === '/api/v1/tab/complete' && line.status === 499), undefined, 'a 499 line');
    assert.ok(!log.lines().some((line) => (line.level as number) >= 50), 'no error logged');
  });
});
