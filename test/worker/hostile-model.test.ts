// A hostile model against `loom worker` (startWorker, the function the command runs, in this
// process): a `loom hosted` on PostgreSQL enqueues composer sessions on Redis, the worker takes
// them and runs them in its own data dir, whose canaries must not reach the model and which must
// not change but for the store and the composer's working folders (test/support/hostile-session.ts
// has every check). Fewer seeds than on `loom hosted`: the runner is the same, this checks the
// worker's wiring of it. HOSTILE_SEED=<seed> replays one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startWorker } from '../../src/worker/worker.ts';
import { testConfig } from '../support/config.ts';
import { hostileSeeds } from '../support/hostile-checks.ts';
import { startHostileModel } from '../support/hostile-model.ts';
import { hostileSession, sessionKind } from '../support/hostile-session.ts';
import { signedInUser } from '../support/oauth.ts';
import { startTestHosted } from '../support/hosted.ts';
import { postgresUrl, redisClient } from '../support/services.ts';
import { COMPLETION_TIME_LIMIT_MS } from '../support/wait.ts';

const FILE = 'test/worker/hostile-model.test.ts';
const RUNS = 2;

test('a hostile model on loom worker: health answers, every session ends, nothing leaks or changes outside', async (t) => {
  const databaseUrl = await postgresUrl(t);
  if (!databaseUrl) return;
  const redis = await redisClient(t);
  if (!redis) return;
  const model = await startHostileModel();
  t.after(() => model.close());
  const jobs = { redisPrefix: redis.prefix.replace(/:$/, '') };
  const openai = { baseUrl: model.baseUrl, model: 'hostile', fim: 'off' as const };
  const hosted = await startTestHosted({
    databaseUrl,
    redisUrl: redis.url,
    redisPrefix: redis.prefix,
    jobs,
    completion: { provider: 'openai', openai },
    agents: { maxSteps: 12 },
  });
  t.after(() => hosted.close());
  const dataDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-worker-')));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const worker = await startWorker(
    testConfig(dataDir, {
      dataDir,
      databaseUrl,
      redisUrl: redis.url,
      jobs,
      logLevel: 'silent',
      agents: { maxSteps: 12 },
      completion: { provider: 'openai', timeoutMs: COMPLETION_TIME_LIMIT_MS },
      openai,
    }),
  );
  t.after(() => worker.close({ graceMs: 0 }));
  const user = await signedInUser(hosted, 'hostile@example.com');
  const key = (await hosted.identity.apiKeys.create(user.user.id, { name: 'cli', expiresInDays: 1 })).key;
  for (const seed of hostileSeeds(RUNS)) {
    await t.test(`seed ${seed} (${sessionKind(seed).label})`, (st) => hostileSession({ t: st, file: FILE, seed, model, hosted, key, dataDir }));
  }
});
