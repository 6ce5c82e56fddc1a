// The job queue as core sees it: who runs which job, and when. It never holds a job's state:
// the store does (a composer session's row says queued, running, completed…), so a queue can
// lose or repeat a delivery and nothing runs twice — a runner claims a job in the store first.
// Two implementations: in-process (one machine, the default) and BullMQ on Redis (REDIS_URL),
// where hosted processes only enqueue and `loom worker` processes run.

/** A job to run, named by the id of what it runs (a composer session's id). */
export interface Job {
  kind: 'composer';
  id: string;
}

/** Runs one job. `signal` aborts when the queue closes or the job is taken back; the handler then stops soon. */
export type JobHandler = (job: Job, signal: AbortSignal) => Promise<void>;

/**
 * A queue of jobs.
 *
 * @example
 * await queue.enqueue({ kind: 'composer', id: sessionId }); // after the session's row is written
 * queue.process(async (job, signal) => runSession(job.id, signal), { concurrency: 2 });
 * await queue.close({ graceMs: 30_000 });
 */
export interface JobQueue {
  /** Hands a job over; resolves once it is delivered or durably queued. Enqueuing an id twice runs it once. */
  enqueue(job: Job): Promise<void>;
  /** Starts taking jobs, at most `concurrency` at once. A process that only enqueues never calls it. */
  process(handler: JobHandler, options: { concurrency: number }): void;
  /** Stops taking jobs; running ones get `graceMs` to finish, then are aborted and handed back to the queue. */
  close(options?: { graceMs?: number }): Promise<void>;
}
