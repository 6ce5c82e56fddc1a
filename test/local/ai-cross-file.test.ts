// Cross-file context end to end: `loom serve` with its code index on and an OpenAI-compatible
// model on loopback that records its prompts. Completing in app.ts after `router.add(`, the FIM
// prompt the model gets starts with the definition of Router (its path, doc comment, signature
// and members) from router.ts, as comments, and still ends with the text before the cursor.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

const TOKEN = 'loom_test_token_0123456789abcdefghij';

const ROUTER = [
  '/** Routes requests to handlers by method and path. */',
  'export class Router {',
  '  add(method: string, path: string, handler: Handler): void {}',
  '}',
  'export type Handler = (request: Request) => Response;',
  '',
].join('\n');
const APP = "import { Router } from './router';\n\nconst router = new Router();\nrouter.add(";

describe('cross-file context in the FIM prompt (loom serve, code index on)', () => {
  let local: TestLocal;
  let fake: FakeOpenAi;

  before(async () => {
    fake = await startFakeOpenAi({ fimText: "'GET', '/', home);" });
    local = await startTestLocal({
      codeIndex: true,
      files: { 'src/router.ts': ROUTER, 'src/app.ts': `${APP}\n` },
      settings: { apiToken: TOKEN, completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'coder', fim: 'on' } } },
    });
    await waitFor(() => local.code.status().state === 'ready' && local.code.status().parsed >= 2, undefined, 'the code index');
  });
  after(async () => {
    await local.close();
    await fake.close();
  });

  it('puts the definition from the other file before the prefix', async () => {
    const res = await local.request('POST', '/api/ai/complete', { prompt: APP, suffix: '\n', language: 'typescript', filePath: 'src/app.ts' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.completion, "'GET', '/', home);");
    const prompt: string = fake.requests.at(-1)!.body.prompt;
    assert.ok(
      prompt.startsWith(
        '// Path: src/router.ts\n// Routes requests to handlers by method and path.\n// export class Router {\n//   add(method: string, path: string, handler: Handler): void {}\n',
      ),
      prompt,
    );
    assert.ok(prompt.endsWith(APP), prompt);
    assert.equal(fake.requests.at(-1)!.body.suffix, '\n');
  });

  it('gives none to a request without a file (what the file defines itself is not known)', async () => {
    const res = await local.request('POST', '/api/ai/complete', { prompt: `${APP}'POST'`, suffix: '\n', language: 'typescript' });
    assert.equal(res.status, 200, res.text);
    const prompt: string = fake.requests.at(-1)!.body.prompt;
    assert.equal(prompt, `${APP}'POST'`);
  });
});
