// The in-process job queue of `loom hosted` without Redis: at most `concurrency` jobs at once
// (composer.concurrency), an id enqueued twice runs once, and closing gives running jobs their
// grace, then aborts them so their runner hands them back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InProcessQueue } from '../../../src/core/jobs/in-process.ts';
import type { Job } from '../../../src/core/jobs/queue.ts';
import { waitFor } from '../../support/wait.ts';

/** A handler whose jobs run until the test ends them, one by one. */
function heldJobs() {
  const started: string[] = [];
  const aborted: string[] = [];
  const finish = new Map<string, () => void>();
  const handler = (job: Job, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      started.push(job.id);
      finish.set(job.id, resolve);
      signal.addEventListener('abort', () => {
        aborted.push(job.id);
        resolve();
      });
    });
  return { started, aborted, handler, end: (id: string) => finish.get(id)!() };
}

const job = (id: string): Job => ({ kind: 'composer', id });

describe('InProcessQueue', () => {
  it('runs at most `concurrency` jobs at once, the next as soon as one ends, in order', async () => {
    const queue = new InProcessQueue();
    const jobs = heldJobs();
    queue.process(jobs.handler, { concurrency: 2 });
    for (const id of ['a', 'b', 'c', 'd']) await queue.enqueue(job(id));
    await waitFor(() => jobs.started.length === 2, undefined, 'two jobs started');
    assert.deepEqual(queue.size(), { waiting: 2, running: 2 });
    assert.deepEqual(jobs.started, ['a', 'b']);
    jobs.end('a');
    await waitFor(() => jobs.started.length === 3, undefined, 'the third job started');
    assert.deepEqual(jobs.started, ['a', 'b', 'c']);
    assert.deepEqual(queue.size(), { waiting: 1, running: 2 });
    for (const id of ['b', 'c']) jobs.end(id);
    await waitFor(() => jobs.started.length === 4, undefined, 'the last job started');
    jobs.end('d');
    await waitFor(() => queue.size().running === 0, undefined, 'every job done');
  });

  it('runs an id enqueued again while it waits or runs once', async () => {
    const queue = new InProcessQueue();
    const jobs = heldJobs();
    queue.process(jobs.handler, { concurrency: 1 });
    await queue.enqueue(job('a'));
    await queue.enqueue(job('b'));
    await queue.enqueue(job('a'));
    await queue.enqueue(job('b'));
    assert.deepEqual(queue.size(), { waiting: 1, running: 1 });
    jobs.end('a');
    await waitFor(() => jobs.started.length === 2, undefined, 'b started');
    jobs.end('b');
    await waitFor(() => queue.size().running === 0, undefined, 'every job done');
    assert.deepEqual(jobs.started, ['a', 'b']);
  });

  it('close: a job that ends within the grace is not aborted; past it, running jobs are aborted and waiting ones dropped', async () => {
    const patient = new InProcessQueue();
    const first = heldJobs();
    patient.process(first.handler, { concurrency: 1 });
    await patient.enqueue(job('a'));
    await waitFor(() => first.started.length === 1, undefined, 'a started');
    const closing = patient.close({ graceMs: 3_600_000 });
    first.end('a');
    await closing;
    assert.deepEqual(first.aborted, []);

    const hasty = new InProcessQueue();
    const second = heldJobs();
    hasty.process(second.handler, { concurrency: 1 });
    await hasty.enqueue(job('b'));
    await hasty.enqueue(job('c'));
    await waitFor(() => second.started.length === 1, undefined, 'b started');
    await hasty.close({ graceMs: 0 });
    assert.deepEqual(second.aborted, ['b']);
    assert.deepEqual(second.started, ['b'], 'the waiting job is left to the store, not run');
    await hasty.enqueue(job('d'));
    assert.deepEqual(hasty.size(), { waiting: 0, running: 0 }, 'a closed queue takes nothing');
  });
});
