// `loom up` as a user runs it, in a workspace of real code: both endpoints complete lines of a
// workspace file from the builtin model, which the hosted API shares with the desktop app's.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { systemClock } from '../../src/core/clock.ts';
import { createIdentity } from '../../src/core/identity/index.ts';
import { MutableServiceUrls } from '../../src/core/urls.ts';
import { openStore } from '../../src/store/index.ts';
import { cleanEnv, hasStackTrace, LOCAL_READY, runLoom, startLoom, tempDir, unusedPort } from '../support/cli.ts';
import { copyRealCode, lineCursors, scoreCompletions } from '../support/real-code.ts';
import { waitFor, WAIT_LIMIT_MS } from '../support/wait.ts';

type Score = Awaited<ReturnType<typeof scoreCompletions>>;

describe('loom up', () => {
  it('serves useful completions from the workspace on both endpoints', async (t) => {
    const home = tempDir(t);
    const workspace = path.join(home, 'ws');
    const files = copyRealCode(workspace);
    // The desktop app's settings: a budget of AI completions large enough for the test.
    fs.mkdirSync(path.join(home, 'config', 'loom'), { recursive: true });
    fs.writeFileSync(
      path.join(home, 'config', 'loom', 'settings.json'),
      JSON.stringify({ apiToken: 'loom_up_test_token_0123456789abcdef', rateLimits: { aiComplete: 100_000 } }),
      { mode: 0o600 },
    );
    const env = cleanEnv(home, { LOOM_HOSTED_PORT: '0', LOOM_LOCAL_PORT: '0', LOOM_LOG_LEVEL: 'warn', LOOM_RATE_LIMIT: '100000' });
    const loom = await startLoom(t, ['up', '--workspace', workspace], env);
    await waitFor(() => /Token\s+(\S+)/.test(loom.stdout()), WAIT_LIMIT_MS, 'the token line');
    const localUrl = /Loom local API\s+(http:\/\/127\.0\.0\.1:\d+)\/api/.exec(loom.stdout())![1]!;
    const token = /Token\s+(\S+)/.exec(loom.stdout())![1]!;
    assert.match(loom.stdout(), /AI completion\s+http:\/\/127\.0\.0\.1:\d+\/api\/ai\/complete\s+\(models: builtin/);

    // An API key for the hosted side, made in the same data dir the server uses.
    const store = await openStore({ dataDir: path.join(home, 'data', 'loom') });
    t.after(() => store.close());
    const identity = await createIdentity(store, { urls: new MutableServiceUrls(loom.url), providers: [], clock: systemClock });
    const user = await identity.users.signIn({ provider: 'test', subject: 'ada', login: 'ada', name: 'Ada', email: 'ada@example.com', emailVerified: true });
    const { key } = await identity.apiKeys.create(user.id, { name: 'editor', expiresInDays: 1 });

    const file = files.find((f) => fs.statSync(path.join(workspace, f)).size > 6000)!;
    const cursors = lineCursors(fs.readFileSync(path.join(workspace, file), 'utf8')).slice(0, 100);
    const post = async (url: string, auth: string, body: object) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${auth}` },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 200, await res.clone().text());
      return ((await res.json()) as { completion: string }).completion;
    };
    const useful = (score: Score) => score.triggered >= 0.2 && score.precision >= 0.8 && score.meanLength >= 5;
    // The first pass over the workspace runs in the background and nothing over HTTP says when
    // it is over: the local endpoint is scored until its completions are useful (the model only
    // gets there by learning the workspace), then the hosted one, which shares the model.
    let local: Score | undefined;
    const scoreLocal = async () =>
      (local = await scoreCompletions(cursors, (c) =>
        post(`${localUrl}/api/ai/complete`, token, { prompt: c.typed, context: c.context, language: 'javascript', filePath: file }),
      ));
    await waitFor(async () => useful(await scoreLocal()), 90_000, 'useful local completions').catch((error: Error) =>
      assert.fail(`${error.message}: ${JSON.stringify(local)}`),
    );
    const hosted = await scoreCompletions(cursors, (c) =>
      post(`${loom.url}/api/v1/tab/complete`, key, { language: 'javascript', prefix: c.prefix, suffix: c.suffix, filePath: file }),
    );
    assert.ok(useful(hosted), `hosted: ${JSON.stringify(hosted)}`);
  });

  it("takes each server's port by what it is: --hosted-port and --local-port", async (t) => {
    const home = tempDir(t);
    const workspace = path.join(home, 'ws');
    fs.mkdirSync(workspace);
    for (let attempt = 1; ; attempt++) {
      const [hosted, local] = [await unusedPort(), await unusedPort()];
      const env = cleanEnv(fs.mkdtempSync(path.join(home, 'attempt-')), { LOOM_LOG_LEVEL: 'warn' });
      try {
        const loom = await startLoom(t, ['up', '--hosted-port', String(hosted), '--local-port', String(local), '--workspace', workspace], env);
        await waitFor(() => /Token\s+\S+/.test(loom.stdout()), WAIT_LIMIT_MS, 'the token line');
        assert.equal(loom.url, `http://127.0.0.1:${hosted}`);
        assert.equal(LOCAL_READY.exec(loom.stdout())![1], `http://127.0.0.1:${local}`);
        const token = /Token\s+(\S+)/.exec(loom.stdout())![1]!;
        assert.equal((await fetch(`http://127.0.0.1:${local}/api/health`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
        return;
      } catch (error) {
        // Another process may take a port between unusedPort() and the start.
        if (attempt === 3 || !/EADDRINUSE/.test((error as Error).message)) throw error;
      }
    }
  });

  it('refuses a bare --port, which would not say which server it is for, naming both flags (exit 2)', async (t) => {
    const result = await runLoom(['up', '--port', '9000'], cleanEnv(tempDir(t)));
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /--hosted-port 9000 sets the hosted API's port, --local-port 9000 the local API's/);
    assert.ok(!hasStackTrace(result.stderr), result.stderr);
  });
});
