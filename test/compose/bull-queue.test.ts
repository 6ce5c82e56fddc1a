// BullJobQueue against a real Redis: one delivery per id, a killed worker's job delivered again
// after its lock lapses, and a shutdown that finishes or hands back what runs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BullJobQueue, type BullJobQueueOptions } from '../../src/compose/bull-queue.ts';
import type { Job } from '../../src/core/jobs/queue.ts';
import { redisClient } from '../support/services.ts';
import { Gate, waitFor } from '../support/wait.ts';

const HOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'bull-hold.ts');
/** Hang guard for waits that include a stall check or a child's start-up on a loaded machine. */
const LONG_WAIT_MS = 120_000;

async function setup(t: TestContext) {
  const redis = await redisClient(t);
  if (!redis) return null;
  const prefix = redis.prefix.replace(/:$/, '');
  const queues: BullJobQueue[] = [];
  const open = (options: Partial<BullJobQueueOptions> = {}) => {
    const queue = new BullJobQueue({ redisUrl: redis.url, prefix, ...options });
    queues.push(queue);
    return queue;
  };
  t.after(() => Promise.all(queues.map((queue) => queue.close({ graceMs: 0 }))));
  return { ...redis, prefix, open };
}

const job = (): Job => ({ kind: 'composer', id: randomUUID() });

test('an id enqueued twice is delivered once', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const producer = s.open();
  const first = job();
  const second = job();
  await producer.enqueue(first);
  await producer.enqueue(first);
  await producer.enqueue(second);
  const delivered: string[] = [];
  const consumer = s.open();
  consumer.process(
    async (j) => {
      delivered.push(j.id);
    },
    { concurrency: 2 },
  );
  await waitFor(() => delivered.length >= 2, LONG_WAIT_MS, 'two deliveries');
  // Both are done and removed: nothing is left that could still deliver the first one again.
  await waitFor(async () => Object.values(await producer.counts()).every((n) => n === 0), LONG_WAIT_MS, 'an empty queue');
  assert.deepEqual(delivered.sort(), [first.id, second.id].sort());
});

test('a finished id can be enqueued again', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const queue = s.open();
  const j = job();
  let runs = 0;
  queue.process(
    async () => {
      runs++;
    },
    { concurrency: 1 },
  );
  await queue.enqueue(j);
  await waitFor(() => runs === 1, LONG_WAIT_MS, 'the first run');
  await waitFor(async () => Object.values(await queue.counts()).every((n) => n === 0), LONG_WAIT_MS, 'the job removed');
  await queue.enqueue(j);
  await waitFor(() => runs === 2, LONG_WAIT_MS, 'the second run');
});

test('a handler that throws is retried', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const queue = s.open();
  const j = job();
  let calls = 0;
  queue.process(
    async () => {
      calls++;
      if (calls === 1) throw new Error('the store blinked');
    },
    { concurrency: 1 },
  );
  await queue.enqueue(j);
  await waitFor(() => calls === 2, LONG_WAIT_MS, 'the retry');
  await waitFor(async () => Object.values(await queue.counts()).every((n) => n === 0), LONG_WAIT_MS, 'an empty queue');
});

test('a job whose handler keeps throwing is reported and removed, so its id can be enqueued again', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const errors: string[] = [];
  const queue = s.open({ attempts: 2, onError: (message) => errors.push(message) });
  const j = job();
  let calls = 0;
  queue.process(
    async () => {
      calls++;
      throw new Error('the store is away');
    },
    { concurrency: 1 },
  );
  await queue.enqueue(j);
  await waitFor(() => errors.some((message) => message.startsWith(`job ${j.id} failed`) && message.endsWith('given up')), LONG_WAIT_MS, 'the failure reported');
  assert.equal(calls, 2);
  await waitFor(async () => Object.values(await queue.counts()).every((n) => n === 0), LONG_WAIT_MS, 'the job removed');
  await queue.enqueue(j);
  await waitFor(() => calls === 3, LONG_WAIT_MS, 'the id run again');
});

test('a worker killed mid-job: the job is delivered again once its lock lapses', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const lockMs = 2000;
  const holder = spawn(process.execPath, ['--import', 'tsx', HOLDER, s.url, s.prefix, String(lockMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => holder.kill('SIGKILL'));
  let out = '';
  holder.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  await waitFor(() => out.includes('ready\n'), LONG_WAIT_MS, 'the holder ready');
  const producer = s.open();
  const j = job();
  await producer.enqueue(j);
  await waitFor(() => out.includes(`started ${j.id}`), LONG_WAIT_MS, 'the holder took the job');
  holder.kill('SIGKILL');
  await new Promise((resolve) => holder.once('exit', resolve));

  const ran: string[] = [];
  const rescuer = s.open({ lockMs });
  rescuer.process(
    async (taken) => {
      ran.push(taken.id);
    },
    { concurrency: 1 },
  );
  await waitFor(() => ran.length === 1, LONG_WAIT_MS, 'the job delivered again');
  assert.deepEqual(ran, [j.id]);
});

test('close with grace: a job that finishes in time completes; one that does not is handed back, not failed', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const producer = s.open();
  const quick = job();
  const slow = job();

  // The first worker holds both jobs; the quick one finishes during the grace, the slow one only on abort.
  const quickGate = new Gate();
  let slowWaiting = false;
  const seen: string[] = [];
  let abortedSlow = false;
  const first = s.open();
  first.process(
    async (j, signal) => {
      seen.push(j.id);
      if (j.id === quick.id) return quickGate.pass();
      const aborted = new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      slowWaiting = true;
      await aborted;
      abortedSlow = true;
    },
    { concurrency: 2 },
  );
  await producer.enqueue(quick);
  await producer.enqueue(slow);
  await waitFor(() => seen.length === 2, LONG_WAIT_MS, 'both jobs running');
  await waitFor(() => slowWaiting, LONG_WAIT_MS, 'the slow job waiting');
  const closed = first.close({ graceMs: 1000 });
  quickGate.open();
  await closed;
  assert.equal(abortedSlow, true);
  const counts = await producer.counts();
  assert.equal(counts.failed, 0);
  assert.equal(counts.waiting, 1, 'the slow job is back in the waiting list');

  const second = s.open();
  const rerun: string[] = [];
  second.process(
    async (j) => {
      rerun.push(j.id);
    },
    { concurrency: 1 },
  );
  await waitFor(() => rerun.length === 1, LONG_WAIT_MS, 'the handed-back job run again');
  assert.deepEqual(rerun, [slow.id]);
});
