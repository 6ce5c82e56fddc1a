// The sessions `loom hosted` runs itself (no Redis), as startComposerJobs wires them: a user at
// composer.maxRunningPerUser with a slot free in the process keeps the next session queued,
// and it runs once the first ends. The held-back session's claim is refused once per look, not
// over and over: a rescan after a refused claim used to enqueue it again at once, round and
// round, without the event loop ever answering anything else (SQLite answers synchronously).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { startComposerJobs } from '../../src/compose/composer.ts';
import type { ComposerSessionRepository } from '../../src/core/composer/records.ts';
import { queuedSession } from '../../src/core/composer/types.ts';
import { OpenAiProvider } from '../../src/adapters/models/openai.ts';
import { tempDir } from '../support/cli.ts';
import { testConfig } from '../support/config.ts';
import { startFakeOpenAi } from '../support/openai-fake.ts';
import { openTestStore } from '../support/store.ts';
import { waitFor } from '../support/wait.ts';

/** More claims of one session than a look per scan can explain: it is going round. */
const GOING_ROUND = 25;

/**
 * The repository, counting claims per session. Past GOING_ROUND claims of one session, each
 * further claim waits for a macrotask first, so that a loop of them slows down instead of
 * starving the test, and the test sees the count.
 */
function countingClaims(sessions: ComposerSessionRepository): { sessions: ComposerSessionRepository; claims: Map<string, number> } {
  const claims = new Map<string, number>();
  const counted: ComposerSessionRepository = Object.create(sessions);
  counted.claim = async (id, ...rest) => {
    const count = (claims.get(id) ?? 0) + 1;
    claims.set(id, count);
    if (count > GOING_ROUND) await new Promise((resolve) => setImmediate(resolve));
    return sessions.claim(id, ...rest);
  };
  return { sessions: counted, claims };
}

describe('composer sessions run in loom hosted (startComposerJobs)', () => {
  it("holds a user's next session back while one runs, without going round, and runs it once the first ends", async (t) => {
    const fake = await startFakeOpenAi();
    t.after(() => fake.close());
    const dataDir = tempDir(t, 'loom-composer-jobs-');
    const store = await openTestStore(t, { dataDir });
    const { sessions, claims } = countingClaims(store.composerSessions);
    const config = testConfig(dataDir, { dataDir, composer: { concurrency: 3, maxRunningPerUser: 1 } });
    const provider = new OpenAiProvider({ baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' });
    const jobs = startComposerJobs(config, { store: { ...store, composerSessions: sessions }, providers: { selectChat: () => provider } });
    t.after(() => jobs.close());
    let asked = 0;
    fake.chat.respondWith(() => {
      asked++;
      return { kind: 'text', text: '{"summary": "s", "steps": ["x"], "files": ["a"]}', hold: true };
    });
    t.after(() => fake.chat.release());

    const create = async () => {
      const id = randomUUID();
      await store.composerSessions.create(
        queuedSession({
          id,
          userId: 'ada',
          prompt: 'Plan it',
          files: ['a'],
          mode: 'plan',
          workspace: null,
          attachments: [{ path: 'a', content: 'a\n' }],
          budgets: { maxSteps: 5, maxTokens: 100_000, timeoutSeconds: 60 },
          createdAt: new Date().toISOString(),
        }),
      );
      await jobs.queue.enqueue({ kind: 'composer', id });
      return id;
    };
    const first = await create();
    await waitFor(() => asked === 1, undefined, 'the first session at the model');
    const second = await create();
    await waitFor(() => (claims.get(second) ?? 0) >= 1, undefined, "the second session's delivery");
    assert.equal((await store.composerSessions.get(second))!.status, 'queued', 'held back: ada has one running');

    fake.chat.release();
    await waitFor(async () => (await store.composerSessions.get(first))!.status === 'completed', undefined, 'the first session ended');
    await waitFor(() => asked === 2, undefined, 'the second session at the model');
    fake.chat.release();
    await waitFor(async () => (await store.composerSessions.get(second))!.status === 'completed', undefined, 'the second session ended');
    assert.ok((claims.get(second) ?? 0) < GOING_ROUND, `the held-back session was claimed ${claims.get(second)} times: it went round`);
  });
});
