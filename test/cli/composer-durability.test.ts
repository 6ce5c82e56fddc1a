// A composer session acknowledged with 201 runs even when `loom hosted` is killed with SIGKILL
// right after the answer: the restarted server finds it in the store (queued, or running under
// a lease that lapsed) and runs it; `loom admin workspaces` registers, lists and removes.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { startLoom, type RunningLoom, unusedPort } from '../support/cli.ts';
import { BACKENDS, install, type Install } from '../support/install.ts';
import { startFakeOpenAi } from '../support/openai-fake.ts';
import { waitFor } from '../support/wait.ts';

/** `loom hosted` on the install's fixed port (the key's audience names it), retried if another process took the port. */
async function hosted(t: TestContext, site: Install): Promise<RunningLoom> {
  for (let attempt = 1; ; attempt++) {
    site.env.LOOM_HOSTED_PORT ??= String(await unusedPort());
    try {
      return await startLoom(t, ['hosted', '--log-level', 'silent'], site.env);
    } catch (error) {
      if (attempt === 5 || !/EADDRINUSE/.test((error as Error).message)) throw error;
      site.env.LOOM_HOSTED_PORT = String(await unusedPort());
    }
  }
}

describe('composer sessions survive kill -9 of loom hosted', () => {
  for (const backend of BACKENDS) {
    it(`runs a session acknowledged just before the kill, after the restart (${backend})`, async (t) => {
      const fake = await startFakeOpenAi();
      t.after(() => fake.close());
      const site = await install(t, backend, {
        LOOM_COMPLETION_PROVIDER: 'openai',
        LOOM_OPENAI_BASE_URL: fake.baseUrl,
        LOOM_OPENAI_MODEL: 'fake-coder',
        LOOM_OPENAI_FIM: 'off',
        // A session left running by the killed process is taken over 3 s after its last heartbeat.
        LOOM_COMPOSER_LEASE_SECONDS: '3',
        LOOM_RATE_LIMIT: '100000',
      });
      if (!site) return;
      // A model call of the process to be killed is held: that process never ends the session itself.
      let firstAlive = true;
      fake.chat.respondWith(() => (firstAlive ? { kind: 'text', text: 'thinking…', hold: true } : { kind: 'text', text: 'Done after the restart.' }));

      const first = await hosted(t, site);
      assert.equal((await site.loom('admin', 'users', 'add', 'ada')).code, 0);
      const created = await site.loom('admin', 'keys', 'create', '--user', 'ada');
      assert.equal(created.code, 0, created.stderr);
      const key = created.stdout.trim();

      const res = await fetch(`${first.url}/api/v1/composer/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ prompt: 'Say done', files: ['a.txt'], attachments: [{ path: 'a.txt', content: 'a\n' }] }),
      });
      const answer = (await res.json()) as { sessionId: string };
      assert.equal(res.status, 201, JSON.stringify(answer));
      first.child.kill('SIGKILL');
      assert.equal((await first.exited).signal, 'SIGKILL');
      firstAlive = false;

      const second = await hosted(t, site);
      let session: any;
      await waitFor(
        async () => {
          const got = await fetch(`${second.url}/api/v1/composer/session/${answer.sessionId}`, { headers: { authorization: `Bearer ${key}` } });
          session = await got.json();
          return ['completed', 'failed', 'cancelled'].includes(session.status);
        },
        undefined,
        'the session to end after the restart',
      ).catch((error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(session)} ${second.stderr()}`);
      });
      assert.equal(session.status, 'completed', session.error);
      assert.equal(session.summary, 'Done after the restart.');
    });
  }

  it('loom admin workspaces add, list and rm', async (t) => {
    const site = await install(t, 'sqlite');
    if (!site) return;
    const added = await site.loom('admin', 'workspaces', 'add', 'app', '--repo', 'https://git.example.com/app.git', '--branch', 'main', '--push', '--json');
    assert.equal(added.code, 0, added.stderr);
    assert.deepEqual(
      { ...JSON.parse(added.stdout), createdAt: 'x' },
      { name: 'app', repo: 'https://git.example.com/app.git', branch: 'main', push: true, createdAt: 'x' },
    );
    for (const bad of [
      ['add', 'app', '--repo', '--upload-pack=touch /tmp/x'],
      ['add', 'app', '--repo', 'ext::sh -c touch% /tmp/x'],
      ['add', '-x', '--repo', 'https://git.example.com/app.git'],
      ['add', 'app', '--repo', 'https://git.example.com/app.git', '--branch', '-f'],
    ]) {
      const refused = await site.loom('admin', 'workspaces', ...bad);
      assert.notEqual(refused.code, 0, bad.join(' '));
    }
    const listed = await site.loom('admin', 'workspaces', 'list');
    assert.match(listed.stdout, /^app\s+main\s+yes\s+https:\/\/git\.example\.com\/app\.git$/m);
    assert.equal((await site.loom('admin', 'workspaces', 'rm', 'app')).code, 0);
    assert.notEqual((await site.loom('admin', 'workspaces', 'rm', 'app')).code, 0);
    assert.equal(JSON.parse((await site.loom('admin', 'workspaces', 'list', '--json')).stdout).length, 0);
  });
});
