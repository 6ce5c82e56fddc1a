// The job queue on Redis, through BullMQ: hosted processes enqueue, `loom worker` processes run.
// BullMQ only delivers ids. What a job means lives in the store (a composer session's row), and
// a runner claims the row before it runs, so the at-least-once delivery of BullMQ (a stalled
// job is delivered again) never becomes a second run.
import { Queue, WaitingError, Worker, type Job as BullJob } from 'bullmq';
import { Redis } from 'ioredis';
import type { LoomConfig } from '../config/load.ts';
import type { Job, JobHandler, JobQueue } from '../core/jobs/queue.ts';

/** The name of the one BullMQ queue composer sessions go through (keys `<prefix>:composer:…`). */
export const COMPOSER_QUEUE_NAME = 'composer';

/** The reason a job's signal aborts with when the queue closes: the processor then hands the job back. */
const SHUTDOWN = 'shutdown';

export interface BullJobQueueOptions {
  /** `redis://…` or `rediss://…` (LOOM_REDIS_URL). */
  redisUrl: string;
  /** Prefix of every key the queue writes (LOOM_REDIS_PREFIX); installations or test runs sharing a Redis keep apart with it. */
  prefix?: string;
  /**
   * How long a worker's hold (BullMQ's lock) on a running job lasts without being renewed, in ms.
   * A worker renews it every half of this while it runs the job; a worker killed with `kill -9`
   * stops renewing, and the stall check (every half of this) hands the job to another worker
   * about 1 to 2 times this after the kill. 30 s by default (BullMQ's own default); `loom worker`
   * uses the composer lease (`composer.leaseSeconds`), so that a job delivered again finds its
   * session's lease lapsed too and takes it over.
   */
  lockMs?: number;
  /** Times a job may stall (its worker died or froze) before BullMQ gives it up; the reconciler still finds its session. */
  maxStalledCount?: number;
  /** Runs of a job whose handler throws (1 s, 2 s, 4 s… apart) before it is given up; 5 by default. */
  attempts?: number;
  /** Time an enqueue may take before it fails (Redis down): a hosted request must not hang on it. 5 s by default. */
  enqueueTimeoutMs?: number;
  /** Called with what went wrong in the background (a lost Redis connection, a failed lock renewal); logged by the caller. */
  onError?: (message: string, error?: Error) => void;
}

/**
 * A `JobQueue` on BullMQ. `enqueue` adds a job whose BullMQ id is the session's id, so enqueuing
 * an id that is still waiting or running adds nothing; finished and failed jobs are removed at
 * once (the store keeps the outcome), so an id can be enqueued again later (the reconciler does,
 * for a session the store says is stranded). `process` runs a BullMQ worker with stall detection on.
 * `close({graceMs})` stops taking jobs, lets running ones finish for `graceMs`, then aborts them
 * and hands them back to the waiting list: they are run again, never failed by the shutdown.
 *
 * @example
 * const queue = new BullJobQueue({ redisUrl: 'redis://127.0.0.1:6379', prefix: 'loom' });
 * await queue.enqueue({ kind: 'composer', id: sessionId });
 * queue.process(async (job, signal) => runner.run(job.id, signal), { concurrency: 2 });
 * await queue.close({ graceMs: 30_000 });
 */
export class BullJobQueue implements JobQueue {
  private readonly prefix: string;
  private readonly lockMs: number;
  private readonly maxStalledCount: number;
  private readonly enqueueTimeoutMs: number;
  private readonly onError: (message: string, error?: Error) => void;
  private readonly producerConnection: Redis;
  private readonly queue: Queue;
  private worker?: Worker;
  private workerConnection?: Redis;
  /** The running jobs' abort controllers, by job id. */
  private readonly running = new Map<string, AbortController>();
  private closing?: Promise<void>;
  private readonly lastReported = new Map<string, number>();

  constructor(private readonly options: BullJobQueueOptions) {
    this.prefix = options.prefix ?? 'loom';
    this.lockMs = options.lockMs ?? 30_000;
    this.maxStalledCount = options.maxStalledCount ?? 5;
    this.enqueueTimeoutMs = options.enqueueTimeoutMs ?? 5000;
    this.onError = options.onError ?? (() => {});
    // A producer fails fast when Redis is away rather than queueing commands without end.
    this.producerConnection = new Redis(options.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 5000 });
    this.producerConnection.on('error', (error) => this.reportConnectionError('redis connection (enqueue)', error));
    this.queue = new Queue(COMPOSER_QUEUE_NAME, {
      connection: this.producerConnection,
      prefix: this.prefix,
      defaultJobOptions: {
        // Finished jobs are gone at once: the store has the outcome, and the id is free for a later re-enqueue.
        removeOnComplete: true,
        // A job fails only when its handler threw five times (the store unreachable…); the failure is logged
        // (onError) and the job removed, so that the reconciler can enqueue the id again once the store answers.
        removeOnFail: true,
        attempts: options.attempts ?? 5,
        backoff: { type: 'exponential', delay: 1000 },
      },
    });
    this.queue.on('error', (error) => this.reportConnectionError('job queue', error));
  }

  async enqueue(job: Job): Promise<void> {
    await withTimeout(this.queue.add(job.kind, { kind: job.kind }, { jobId: job.id }), this.enqueueTimeoutMs, 'enqueue');
  }

  /** Counts of jobs by state (waiting, active, delayed, failed), for logs and tests. */
  async counts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
  }

  process(handler: JobHandler, options: { concurrency: number }): void {
    if (this.worker) throw new Error('This queue is already processing.');
    if (this.closing) throw new Error('This queue is closed.');
    // BullMQ's worker blocks on its connection while it waits for jobs: it must retry without end.
    this.workerConnection = new Redis(this.options.redisUrl, { maxRetriesPerRequest: null });
    this.workerConnection.on('error', (error) => this.reportConnectionError('redis connection (worker)', error));
    this.worker = new Worker(COMPOSER_QUEUE_NAME, (job, token) => this.run(handler, job, token), {
      connection: this.workerConnection,
      prefix: this.prefix,
      concurrency: options.concurrency,
      lockDuration: this.lockMs,
      lockRenewTime: Math.floor(this.lockMs / 2),
      stalledInterval: Math.floor(this.lockMs / 2),
      maxStalledCount: this.maxStalledCount,
    });
    this.worker.on('error', (error) => this.reportConnectionError('job worker', error));
    // BullMQ reports every failed attempt; the message says whether the job will run again.
    this.worker.on('failed', (job, error) => {
      const made = job?.attemptsMade ?? 0;
      const allowed = job?.opts.attempts ?? 1;
      this.onError(`job ${job?.id ?? '?'} failed (attempt ${made} of ${allowed})${made < allowed ? ', to be retried' : ', given up'}`, error);
    });
    // A lost lock (a frozen event loop, Redis away) does not stop the job: BullMQ may deliver it
    // again, but the store's claim, renewed by the runner, keeps the second delivery from running it.
    this.worker.on('lockRenewalFailed', (ids) => this.onError(`could not renew the lock of job(s) ${ids.join(', ')}; the store's claim still holds them`));
  }

  /** Resolves once the worker is connected and taking jobs (tests wait for it). */
  async ready(): Promise<void> {
    await this.queue.waitUntilReady();
    await this.worker?.waitUntilReady();
  }

  close(options: { graceMs?: number } = {}): Promise<void> {
    this.closing ??= this.closeAll(options.graceMs ?? 30_000);
    return this.closing;
  }

  /** While Redis is away every connection retries and reports each failure: one line per source every 30 s is enough. */
  private reportConnectionError(source: string, error: Error): void {
    const now = Date.now();
    if (now - (this.lastReported.get(source) ?? -Infinity) < 30_000) return;
    this.lastReported.set(source, now);
    this.onError(source, error);
  }

  private async run(handler: JobHandler, bullJob: BullJob, token: string | undefined): Promise<void> {
    const id = bullJob.id!;
    const controller = new AbortController();
    this.running.set(id, controller);
    try {
      await handler({ kind: 'composer', id }, controller.signal);
    } catch (error) {
      if (controller.signal.reason !== SHUTDOWN) throw error;
    } finally {
      this.running.delete(id);
    }
    if (controller.signal.reason === SHUTDOWN) {
      // Handed back: the next worker runs it again, and the attempt does not count as a failure.
      await bullJob.moveToWait(token);
      throw new WaitingError();
    }
  }

  private async closeAll(graceMs: number): Promise<void> {
    const worker = this.worker;
    if (worker) {
      // Stops fetching at once and resolves when the running jobs are done (or handed back).
      const closed = worker.close();
      if (!(await settlesWithin(closed, graceMs))) {
        for (const controller of this.running.values()) controller.abort(SHUTDOWN);
        // A handler that ignores its signal keeps its job; its lock lapses and another worker takes it up.
        await settlesWithin(closed, Math.min(10_000, Math.max(1000, graceMs)));
      }
      this.workerConnection?.disconnect();
    }
    await this.queue.close().catch(() => {});
    this.producerConnection.disconnect();
  }
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms (is Redis reachable?)`)), ms)),
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The composer jobs of a `loom hosted` with Redis: a BullMQ queue it only enqueues on, never
 * runs; `loom worker` processes run the sessions (src/worker/).
 *
 * @example
 * const jobs = enqueueOnly(config, (error) => log.error(error));
 * await jobs.queue.enqueue({ kind: 'composer', id: sessionId });
 * await jobs.close();
 */
export function enqueueOnly(config: Pick<LoomConfig, 'redisUrl' | 'jobs'>, onError?: (error: unknown) => void): { queue: JobQueue; close(): Promise<void> } {
  const queue = new BullJobQueue({
    redisUrl: config.redisUrl!,
    prefix: config.jobs.redisPrefix,
    onError: (message, error) => onError?.(new Error(`${message}${error ? `: ${error.message}` : ''}`)),
  });
  return { queue, close: () => queue.close({ graceMs: 0 }) };
}

/**
 * Checks that Redis answers, failing fast: a worker that cannot reach it should say so and
 * exit, not wait without end. The error's message names the host and port only (never the
 * URL's password) and its code is ECONNREFUSED, which the CLI reports as a failed start.
 *
 * @example
 * await pingRedis('redis://127.0.0.1:6379'); // throws when nothing answers within 5 s
 */
export async function pingRedis(redisUrl: string, timeoutMs = 5000): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await withTimeout(
      redis.connect().then(() => redis.ping()),
      timeoutMs,
      'connecting to Redis',
    );
  } catch (error) {
    const { host, port } = new URL(redisUrl);
    const failure = new Error(`Redis at ${host}${port ? '' : ':6379'} is not reachable (${(error as Error).message}).`) as NodeJS.ErrnoException;
    failure.code = 'ECONNREFUSED';
    throw failure;
  } finally {
    redis.disconnect();
  }
}
