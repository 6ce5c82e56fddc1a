// `loom worker` as an operator starts and stops it: refused without DATABASE_URL and REDIS_URL
// (exit 2) or with a Redis that does not answer (exit 1, no password in the message); started,
// it says so (as text, or one JSON line with --json), and SIGTERM ends it with 0.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanEnv, hasStackTrace, runLoom, startLoom, tempDir } from '../support/cli.ts';
import { postgresUrl, redisClient } from '../support/services.ts';

const WORKER_READY = /Loom worker\s+(\S+)/;

test('loom worker without DATABASE_URL or REDIS_URL: exit 2 naming what is missing', async (t) => {
  const env = cleanEnv(tempDir(t));
  const neither = await runLoom(['worker'], env);
  assert.equal(neither.code, 2);
  assert.match(neither.stderr, /^loom: a worker needs DATABASE_URL and REDIS_URL/);
  const noRedis = await runLoom(['worker'], { ...env, DATABASE_URL: 'postgres://loom@127.0.0.1:5432/loom' });
  assert.equal(noRedis.code, 2);
  assert.match(noRedis.stderr, /needs REDIS_URL:/);
  assert.equal(hasStackTrace(noRedis.stderr), false);
});

test('loom worker with a Redis that does not answer: exit 1, its password never shown', async (t) => {
  const databaseUrl = await postgresUrl(t);
  if (!databaseUrl) return;
  const home = tempDir(t);
  const result = await runLoom(['worker'], cleanEnv(home, { DATABASE_URL: databaseUrl, REDIS_URL: 'redis://:hunter2@127.0.0.1:1', LOOM_DATA_DIR: home }));
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^loom: Redis at 127\.0\.0\.1:1 is not reachable/);
  assert.doesNotMatch(result.stdout + result.stderr, /hunter2/);
});

test('loom worker starts, prints its name and concurrency, and exits 0 on SIGTERM', async (t) => {
  const databaseUrl = await postgresUrl(t);
  if (!databaseUrl) return;
  const redis = await redisClient(t);
  if (!redis) return;
  const home = tempDir(t);
  const env = cleanEnv(home, { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, LOOM_JOBS_REDIS_PREFIX: redis.prefix.replace(/:$/, ''), LOOM_DATA_DIR: home });
  const worker = await startLoom(t, ['worker', '--concurrency', '3'], env, 180_000, WORKER_READY);
  assert.match(worker.stdout(), new RegExp(`\\(3 at once; queue ${redis.prefix.replace(/:$/, '')}:composer; store: postgres `));
  worker.child.kill('SIGTERM');
  let exit = await worker.exited;
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.match(worker.stdout(), /"msg":"worker stopping"/);

  // --json: the same, as one JSON line (log lines, JSON too, may come around it).
  const json = await startLoom(t, ['worker', '--json'], env, 180_000, /\{"worker":\{"runnerId":"([^"]+)"/);
  const started = JSON.parse(
    json
      .stdout()
      .split('\n')
      .find((line) => line.startsWith('{"worker"'))!,
  );
  assert.equal(started.worker.concurrency, 2);
  assert.equal(started.worker.queue, `${redis.prefix.replace(/:$/, '')}:composer`);
  assert.match(started.worker.store, /^postgres /);
  json.child.kill('SIGTERM');
  exit = await json.exited;
  assert.deepEqual(exit, { code: 0, signal: null });
});
