// `loom hosted` with LOOM_CORPUS_DIR: the shared builtin model learns the operator's corpus at
// start, and never what requests carry.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import { createIdentity } from '../../src/core/identity/index.ts';
import { MutableServiceUrls } from '../../src/core/urls.ts';
import { startHosted } from '../../src/hosted/server.ts';
import { tempDir } from '../support/cli.ts';
import { copyRealCode, lineCursors, scoreCompletions } from '../support/real-code.ts';

describe('hosted builtin model and its corpus', () => {
  it('learns LOOM_CORPUS_DIR at start and nothing from requests', async (t) => {
    const home = tempDir(t);
    const corpus = path.join(home, 'corpus');
    const files = copyRealCode(corpus);
    const config = loadConfig({
      env: { LOOM_DATA_DIR: path.join(home, 'data'), LOOM_CORPUS_DIR: corpus, LOOM_HOSTED_PORT: '0', LOOM_LOG_LEVEL: 'silent', LOOM_RATE_LIMIT: '100000' },
    });
    const hosted = await startHosted(config);
    t.after(() => hosted.close());
    const identity = await createIdentity(hosted.store, { urls: new MutableServiceUrls(hosted.publicUrl), providers: [], clock: { now: () => Date.now() } });
    const user = await identity.users.signIn({ provider: 'test', subject: 'ops', login: 'ops', name: 'Ops', email: 'ops@example.com', emailVerified: true });
    const { key } = await identity.apiKeys.create(user.id, { name: 'editor', expiresInDays: 1 });
    const complete = async (body: object) => {
      const res = await fetch(`${hosted.url}/api/v1/tab/complete`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 200);
      return ((await res.json()) as { completion: string }).completion;
    };
    // Lines of a corpus file typed anew (a request for a file never uses the stored copy of it).
    await hosted.corpusLearned;
    const file = files.find((f) => fs.statSync(path.join(corpus, f)).size > 6000)!;
    const cursors = lineCursors(fs.readFileSync(path.join(corpus, file), 'utf8')).slice(0, 120);
    const score = await scoreCompletions(cursors, (c) => complete({ language: 'javascript', prefix: c.prefix, suffix: c.suffix, filePath: file }));
    assert.ok(score.triggered >= 0.2 && score.precision >= 0.8, JSON.stringify(score));

    // A request's own text helps that request (the current-file cache)...
    const secret = 'const vaultToken = unsealVault(clusterKeys, { threshold: 3, shares: 5 });\n';
    const withContext = await complete({ language: 'typescript', prefix: secret.repeat(2) + 'const vaultToken = ', suffix: '', filePath: 'mine.ts' });
    assert.match(withContext, /^unsealVault/);
    // ...and is not learned for anyone else.
    assert.doesNotMatch(await complete({ language: 'typescript', prefix: 'const vaultToken = ', suffix: '', filePath: 'theirs.ts' }), /unsealVault/);
  });

  it('refuses a corpus folder that does not exist', async (t) => {
    const home = tempDir(t);
    const config = loadConfig({
      env: { LOOM_DATA_DIR: path.join(home, 'data'), LOOM_CORPUS_DIR: path.join(home, 'none'), LOOM_HOSTED_PORT: '0', LOOM_LOG_LEVEL: 'silent' },
    });
    await assert.rejects(startHosted(config), /corpus folder .*none.* is not a folder/);
  });
});
