// The builtin model with the code index end to end: `loom serve` with its index on gives the
// builtin provider the names in scope, so a name imported from another file that the workspace
// never used in this place is finished as it is typed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const TOKEN = 'loom_test_token_0123456789abcdefghij';

const URL_TS = 'export function parseRequestPath(url: string): string {\n  return url;\n}\n';
const APP = "import { parseRequestPath } from './url';\n\nexport function route(request: string) {\n  const path = parseR";

describe('the builtin model reads the names in scope (loom serve, code index on)', () => {
  let local: TestLocal;

  before(async () => {
    local = await startTestLocal({
      codeIndex: true,
      // On disk the file does not use the name yet: no occurrence in the workspace continues `parseR`.
      files: { 'src/url.ts': URL_TS, 'src/app.ts': "import { parseRequestPath } from './url';\n\nexport function route(request: string) {\n}\n" },
      settings: { apiToken: TOKEN, completion: { provider: 'builtin' } },
    });
    await waitFor(() => local.code.status().state === 'ready' && local.code.status().parsed >= 2, undefined, 'the code index');
  });
  after(async () => {
    await local.close();
  });

  it('finishes a name the file imports as it is typed', async () => {
    const complete = async () => {
      const res = await local.request('POST', '/api/ai/complete', { prompt: APP, suffix: '\n}\n', language: 'typescript', filePath: 'src/app.ts' });
      assert.equal(res.status, 200, res.text);
      return res.json.completion as string;
    };
    // The workspace is learned in the background: asked until it is.
    await waitFor(async () => (await complete()).startsWith('equestPath'), undefined, 'the completion from the names in scope');
  });
});
