// Composer scaled out, as an operator runs it: two `loom hosted` and two `loom worker` processes
// (the real binary) on one PostgreSQL schema and one Redis key prefix, the model a scripted
// OpenAI-compatible server that counts its calls. Sessions run once each; a worker killed with
// SIGKILL mid-session has its sessions taken over and completed once; one sent SIGTERM lets its
// session finish within the grace, or hands it back past it; a hosted process killed right after
// its 201 loses nothing; a cancel asked of a hosted process stops a session running on a
// worker; a session whose job Redis never had runs all the same.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/store/index.ts';
import { cleanEnv, runLoom, startLoom, tempDir, type RunningLoom } from '../support/cli.ts';
import { startFakeOpenAi, type FakeOpenAi, type RecordedRequest } from '../support/openai-fake.ts';
import { postgresUrl, redisClient } from '../support/services.ts';
import { waitFor } from '../support/wait.ts';

const WORKER_READY = /Loom worker\s+(\S+)/;
/** Hang guard of waits on a loaded 2-core machine running 200 sessions through four processes. */
const LONG_WAIT_MS = 300_000;
/** The composer lease (and BullMQ lock) of the run: long enough that a loaded event loop keeps it, short enough to take over soon. */
const LEASE_SECONDS = 10;
const PLAN = JSON.stringify({ summary: 'Rename the helper.', steps: ['rename it', 'update callers'], files: ['a.ts'] });

interface Cluster {
  env: NodeJS.ProcessEnv;
  databaseUrl: string;
  db: pg.Client;
  fake: FakeOpenAi;
  key: string;
  hosted: RunningLoom[];
  workers: RunningLoom[];
  /** Starts one more `loom worker` in a data dir of its own, with `extra` in its environment. */
  startWorker(name: string, extra?: NodeJS.ProcessEnv): Promise<RunningLoom>;
}

async function startCluster(t: TestContext): Promise<Cluster | null> {
  const databaseUrl = await postgresUrl(t);
  if (!databaseUrl) return null;
  const redis = await redisClient(t);
  if (!redis) return null;
  const fake = await startFakeOpenAi();
  t.after(() => fake.close());
  const home = tempDir(t, 'loom-scale-');
  const env = cleanEnv(home, {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    LOOM_JOBS_REDIS_PREFIX: redis.prefix.replace(/:$/, ''),
    LOOM_DATA_DIR: path.join(home, 'data'),
    LOOM_HOSTED_PORT: '0',
    // Both hosted processes behind one address, as behind a load balancer: API keys name it as their audience.
    LOOM_PUBLIC_URL: 'http://loom.example',
    LOOM_LOG_LEVEL: 'warn',
    LOOM_RATE_LIMIT: '100000',
    LOOM_OPENAI_BASE_URL: fake.baseUrl,
    LOOM_OPENAI_MODEL: 'scripted',
    LOOM_COMPLETION_PROVIDER: 'openai',
    LOOM_COMPOSER_CONCURRENCY: '4',
    LOOM_COMPOSER_MAX_QUEUED_PER_USER: '1000',
    LOOM_COMPOSER_MAX_RUNNING_PER_USER: '64',
    LOOM_COMPOSER_LEASE_SECONDS: String(LEASE_SECONDS),
  });
  assert.equal((await runLoom(['admin', 'users', 'add', 'ada'], env)).code, 0);
  const created = await runLoom(['admin', 'keys', 'create', '--user', 'ada', '--scope', 'write:composer', '--json'], env);
  assert.equal(created.code, 0, created.stderr);
  const key = JSON.parse(created.stdout).key as string;
  // Each process its own data dir, as on its own machine: only the database and Redis are shared.
  const startWorker = (name: string, extra: NodeJS.ProcessEnv = {}) =>
    startLoom(t, ['worker'], { ...env, LOOM_DATA_DIR: path.join(home, name), ...extra }, 180_000, WORKER_READY);
  const [hostedA, hostedB, workerA, workerB] = await Promise.all([
    startLoom(t, ['hosted'], { ...env, LOOM_DATA_DIR: path.join(home, 'hosted-a') }),
    startLoom(t, ['hosted'], { ...env, LOOM_DATA_DIR: path.join(home, 'hosted-b') }),
    startWorker('worker-a'),
    startWorker('worker-b'),
  ]);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  t.after(() => db.end());
  return { env, databaseUrl, db, fake, key, hosted: [hostedA!, hostedB!], workers: [workerA!, workerB!], startWorker };
}

/** Creates a plan session marked `[session NAME]` on a hosted process; answers its id. */
async function createSession(cluster: Cluster, hosted: RunningLoom, name: string): Promise<string> {
  const response = await fetch(`${hosted.url}/api/v1/composer/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${cluster.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      prompt: `[session ${name}] Rename add to sum.`,
      files: ['a.ts'],
      mode: 'plan',
      attachments: [{ path: 'a.ts', content: 'export function add(a: number, b: number) {\n  return a + b;\n}\n' }],
    }),
  });
  const body = (await response.json()) as { sessionId: string };
  assert.equal(response.status, 201, JSON.stringify(body));
  return body.sessionId;
}

function chatCalls(fake: FakeOpenAi): RecordedRequest[] {
  return fake.requests.filter((request) => request.path.endsWith('/chat/completions'));
}

/** Model calls per session name, from the marker each prompt carries. */
function callsByName(fake: FakeOpenAi): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of chatCalls(fake)) {
    const marker = /\[session ([^\]]+)\]/.exec(JSON.stringify(request.body?.messages ?? []));
    if (marker) counts.set(marker[1]!, (counts.get(marker[1]!) ?? 0) + 1);
  }
  return counts;
}

async function statuses(db: pg.Client, ids: string[]): Promise<Map<string, string>> {
  const result = await db.query<{ id: string; status: string }>('select id, status from composer_sessions where id = any($1)', [ids]);
  return new Map(result.rows.map((row) => [row.id, row.status]));
}

async function waitCompleted(db: pg.Client, ids: string[], what: string): Promise<void> {
  await waitFor(
    async () => {
      const now = await statuses(db, ids);
      const failed = [...now].filter(([, status]) => status === 'failed' || status === 'cancelled');
      assert.deepEqual(failed, [], 'no session fails');
      return ids.every((id) => now.get(id) === 'completed');
    },
    LONG_WAIT_MS,
    what,
  );
}

/** Each session's plan event count: the result is written once per session. */
async function planEvents(db: pg.Client, ids: string[]): Promise<number[]> {
  const result = await db.query<{ session_id: string; n: string }>(
    "select session_id, count(*) as n from composer_events where type = 'plan' and session_id = any($1) group by session_id",
    [ids],
  );
  const counts = new Map(result.rows.map((row) => [row.session_id, Number(row.n)]));
  return ids.map((id) => counts.get(id) ?? 0);
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

test('composer scaled out: two hosted processes, two workers, PostgreSQL and Redis', { timeout: 20 * 60_000 }, async (t) => {
  const cluster = await startCluster(t);
  if (!cluster) return;
  const { db, fake } = cluster;
  fake.chat.respondWith(() => ({ kind: 'text', text: PLAN }));

  await t.test('200 sessions created across both hosted processes each run exactly once', async () => {
    const names = Array.from({ length: 200 }, (_, i) => `bulk-${i}`);
    const ids: string[] = [];
    await inBatches(names, 8, async (name) => {
      ids.push(await createSession(cluster, cluster.hosted[Number(name.split('-')[1]) % 2]!, name));
    });
    await waitCompleted(db, ids, '200 sessions completed');
    const calls = callsByName(fake);
    assert.deepEqual(
      names.filter((name) => calls.get(name) !== 1),
      [],
      'every session called the model exactly once',
    );
    assert.deepEqual(new Set(await planEvents(db, ids)), new Set([1]), 'every session wrote its plan once');
    // Both workers took part.
    const runners = await db.query<{ runner: string }>('select distinct runner from composer_sessions where id = any($1)', [ids]);
    assert.equal(runners.rows.length, 2, `sessions ran on ${runners.rows.map((row) => row.runner).join(', ')}`);
  });

  await t.test('a worker killed with SIGKILL mid-session: every session still completes, once', async () => {
    // Every first call of these sessions is held: both workers are provably mid-session.
    const firstCalls = new Set<string>();
    fake.chat.respondWith((body) => {
      const name = /\[session ([^\]]+)\]/.exec(JSON.stringify(body?.messages ?? []))?.[1] ?? '';
      const first = !firstCalls.has(name);
      firstCalls.add(name);
      return { kind: 'text', text: PLAN, hold: first };
    });
    const names = Array.from({ length: 6 }, (_, i) => `kill-${i}`);
    const ids: string[] = [];
    for (const [i, name] of names.entries()) ids.push(await createSession(cluster, cluster.hosted[i % 2]!, name));
    await waitFor(() => firstCalls.size === names.length, LONG_WAIT_MS, 'every session at the model');
    // The victim: a worker that holds sessions now (its pid is in the runner's name).
    const held = await db.query<{ id: string; runner: string }>("select id, runner from composer_sessions where id = any($1) and status = 'running'", [ids]);
    const victim = cluster.workers.find((worker) => held.rows.some((row) => row.runner.includes(`:${worker.child.pid}:`)))!;
    assert.ok(victim, 'a worker holds sessions');
    const survivor = cluster.workers.find((worker) => worker !== victim)!;
    const victimSessions = held.rows.filter((row) => row.runner.includes(`:${victim.child.pid}:`)).map((row) => row.id);
    victim.child.kill('SIGKILL');
    await victim.exited;
    fake.chat.release();
    await waitCompleted(db, ids, 'the killed worker’s sessions taken over and completed');
    const finished = await db.query<{ id: string; runner: string; attempt: number }>('select id, runner, attempt from composer_sessions where id = any($1)', [
      ids,
    ]);
    for (const row of finished.rows) {
      assert.ok(row.runner.includes(`:${survivor.child.pid}:`) || !victimSessions.includes(row.id), `session ${row.id} ended by the survivor`);
      if (victimSessions.includes(row.id)) assert.equal(row.attempt, 2, 'a taken-over session ran a second attempt');
    }
    const calls = callsByName(fake);
    for (const [i, id] of ids.entries()) {
      assert.equal(calls.get(names[i]!), victimSessions.includes(id) ? 2 : 1, `model calls of ${names[i]}: the killed attempt and the one that finished`);
    }
    assert.deepEqual(new Set(await planEvents(db, ids)), new Set([1]), 'every session wrote its plan once');
    // Back to two workers for what follows.
    cluster.workers = [survivor, await cluster.startWorker('worker-c')];
  });

  await t.test('SIGTERM: a worker lets its running session finish within the grace; past it, hands it back to another', async () => {
    const held = new Set<string>();
    fake.chat.respondWith((body) => {
      const name = /\[session ([^\]]+)\]/.exec(JSON.stringify(body?.messages ?? []))?.[1] ?? '';
      const first = !held.has(name);
      held.add(name);
      return { kind: 'text', text: PLAN, hold: first };
    });
    // One worker at a time from here, so that the session is provably the one being stopped.
    for (const worker of cluster.workers) worker.child.kill('SIGTERM');
    for (const worker of cluster.workers) assert.deepEqual(await worker.exited, { code: 0, signal: null });
    const stopping = (worker: RunningLoom) => waitFor(() => worker.stdout().includes('"msg":"worker stopping"'), LONG_WAIT_MS, 'the worker stopping');

    // A grace long enough for any loaded machine: the session at the model when SIGTERM comes ends on this worker.
    const patient = await cluster.startWorker('worker-patient', { LOOM_JOBS_GRACE_SECONDS: '3600', LOOM_LOG_LEVEL: 'info' });
    const finished = await createSession(cluster, cluster.hosted[0]!, 'sigterm-finish');
    await waitFor(() => held.has('sigterm-finish'), LONG_WAIT_MS, 'the session at the model');
    patient.child.kill('SIGTERM');
    await stopping(patient);
    fake.chat.release();
    assert.deepEqual(await patient.exited, { code: 0, signal: null });
    const [ended] = (
      await db.query<{ status: string; runner: string; attempt: number }>('select status, runner, attempt from composer_sessions where id = $1', [finished])
    ).rows;
    assert.equal(ended!.status, 'completed', 'finished before the worker exited');
    assert.ok(ended!.runner.includes(`:${patient.child.pid}:`), 'by the worker that was asked to stop');
    assert.equal(ended!.attempt, 1);

    // No grace: the session is handed back, queued, and another worker runs it from the start.
    const hasty = await cluster.startWorker('worker-hasty', { LOOM_JOBS_GRACE_SECONDS: '0', LOOM_LOG_LEVEL: 'info' });
    const handedBack = await createSession(cluster, cluster.hosted[1]!, 'sigterm-hand-back');
    await waitFor(() => held.has('sigterm-hand-back'), LONG_WAIT_MS, 'the session at the model');
    hasty.child.kill('SIGTERM');
    assert.deepEqual(await hasty.exited, { code: 0, signal: null });
    const [back] = (await db.query<{ status: string; runner: string | null }>('select status, runner from composer_sessions where id = $1', [handedBack])).rows;
    assert.deepEqual(back, { status: 'queued', runner: null }, 'handed back, not failed');
    cluster.workers = await Promise.all([cluster.startWorker('worker-d'), cluster.startWorker('worker-e')]);
    await waitCompleted(db, [handedBack], 'the handed-back session run by another worker');
    const [rerun] = (await db.query<{ runner: string; attempt: number }>('select runner, attempt from composer_sessions where id = $1', [handedBack])).rows;
    assert.ok(!rerun!.runner.includes(`:${hasty.child.pid}:`));
    assert.equal(rerun!.attempt, 2);
    const calls = callsByName(fake);
    assert.equal(calls.get('sigterm-finish'), 1);
    assert.equal(calls.get('sigterm-hand-back'), 2, 'the call cut off by the hand-back and the one that finished');
    assert.deepEqual(await planEvents(db, [finished, handedBack]), [1, 1]);
  });

  await t.test('a session running on a worker, cancelled through a hosted process: it stops and ends cancelled', async () => {
    const held = new Set<string>();
    fake.chat.respondWith((body) => {
      const name = /\[session ([^\]]+)\]/.exec(JSON.stringify(body?.messages ?? []))?.[1] ?? '';
      held.add(name);
      return { kind: 'text', text: PLAN, hold: true };
    });
    const id = await createSession(cluster, cluster.hosted[0]!, 'cancel-on-worker');
    await waitFor(() => held.has('cancel-on-worker'), LONG_WAIT_MS, 'the session at the model');
    const hangUp = fake.chat.nextHangUp();
    const response = await fetch(`${cluster.hosted[1]!.url}/api/v1/composer/session/${id}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cluster.key}` },
    });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { cancelRequested: boolean }).cancelRequested, true);
    // The worker reads the flag on its next heartbeat and stops the model call under way.
    await hangUp;
    await waitFor(async () => (await statuses(db, [id])).get(id) === 'cancelled', LONG_WAIT_MS, 'the session cancelled');
    fake.chat.release();
    assert.equal(callsByName(fake).get('cancel-on-worker'), 1);
    assert.deepEqual(await planEvents(db, [id]), [0], 'no plan written');
  });

  await t.test('a hosted process killed right after its 201: the session still runs', async () => {
    fake.chat.respondWith(() => ({ kind: 'text', text: PLAN }));
    const [doomed, other] = cluster.hosted;
    const id = await createSession(cluster, doomed!, 'after-201');
    doomed!.child.kill('SIGKILL');
    await doomed!.exited;
    await waitCompleted(db, [id], 'the session acknowledged by the killed process');
    const response = await fetch(`${other!.url}/api/v1/composer/session/${id}`, { headers: { authorization: `Bearer ${cluster.key}` } });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { status: string }).status, 'completed');
    assert.equal(callsByName(fake).get('after-201'), 1);
  });

  await t.test('a session whose job Redis never had is found by the reconciler and runs', async () => {
    // Written to the store the way a hosted process writes it, but never enqueued (Redis lost it).
    const store = await openStore({ databaseUrl: cluster.databaseUrl, dataDir: tempDir(t) });
    t.after(() => store.close());
    const model = (await db.query<{ id: string }>("select id from composer_sessions where prompt like '[session after-201]%'")).rows[0]!.id;
    const template = (await store.composerSessions.get(model))!;
    const id = randomUUID();
    await store.composerSessions.create({
      ...template,
      id,
      prompt: '[session lost-job] Rename add to sum.',
      status: 'queued',
      model: null,
      plan: null,
      summary: null,
      steps: 0,
      tokens: 0,
      createdAt: new Date().toISOString(),
      startedAt: null,
      endedAt: null,
      runner: null,
      attempt: 0,
      leaseUntil: null,
    });
    await waitCompleted(db, [id], 'the session Redis never had');
    assert.equal(callsByName(fake).get('lost-job'), 1);
  });
});
