// The job queue of one machine (the default, without REDIS_URL): jobs run in this process,
// at most `concurrency` at once. It holds only ids in memory; what makes a session survive a
// crash is its row in the store, which `recoverJobs` (core/composer/recovery.ts) scans on
// start and every few seconds after, enqueuing what is queued or whose runner's lease lapsed.
import type { Job, JobHandler, JobQueue } from './queue.ts';

/**
 * A queue whose jobs run in this process.
 *
 * @example
 * const queue = new InProcessQueue();
 * queue.process((job, signal) => runner.run(job.id, signal), { concurrency: 2 });
 * await queue.enqueue({ kind: 'composer', id });
 * await queue.close({ graceMs: 10_000 });
 */
export class InProcessQueue implements JobQueue {
  /** Waiting, in order, by id (a Map keeps insertion order and dedupes). */
  private readonly waiting = new Map<string, Job>();
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private handler: JobHandler | undefined;
  private concurrency = 1;
  private closed = false;
  /** Failures of handlers (a store that did not answer); the job stays in the store and is recovered. */
  onError: (error: unknown, job: Job) => void = () => {};

  async enqueue(job: Job): Promise<void> {
    if (this.closed) return;
    const key = `${job.kind}:${job.id}`;
    // Already waiting or running: enqueuing again runs it once.
    if (this.waiting.has(key) || this.running.has(key)) return;
    this.waiting.set(key, job);
    this.pump();
  }

  process(handler: JobHandler, options: { concurrency: number }): void {
    this.handler = handler;
    this.concurrency = Math.max(1, options.concurrency);
    this.pump();
  }

  /** Jobs waiting and running. */
  size(): { waiting: number; running: number } {
    return { waiting: this.waiting.size, running: this.running.size };
  }

  async close(options: { graceMs?: number } = {}): Promise<void> {
    this.closed = true;
    this.waiting.clear();
    const all = () => Promise.all([...this.running.values()].map((entry) => entry.done));
    if (this.running.size > 0 && (options.graceMs ?? 0) > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all(), new Promise((resolve) => (timer = setTimeout(resolve, options.graceMs)))]);
      clearTimeout(timer);
    }
    for (const entry of this.running.values()) entry.controller.abort(new Error('the queue is closing'));
    await all();
  }

  private pump(): void {
    const handler = this.handler;
    if (!handler || this.closed) return;
    while (this.running.size < this.concurrency && this.waiting.size > 0) {
      const [key, job] = this.waiting.entries().next().value as [string, Job];
      this.waiting.delete(key);
      const controller = new AbortController();
      const done = Promise.resolve()
        .then(() => handler(job, controller.signal))
        .catch((error: unknown) => this.onError(error, job))
        .finally(() => {
          this.running.delete(key);
          this.pump();
        });
      this.running.set(key, { controller, done });
    }
  }
}
