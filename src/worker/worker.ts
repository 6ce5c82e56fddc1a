// Composition root of `loom worker`: the store, a composer runner over it, the BullMQ queue it
// takes sessions from, and the reconciler that enqueues what the store says is stranded. Any
// number of workers, on any machine with the same DATABASE_URL and REDIS_URL, share the work.
import { BullJobQueue, pingRedis } from '../compose/bull-queue.ts';
import { openComposerRunner, runSessions } from '../compose/composer.ts';
import { ResourceStack } from '../compose/resources.ts';
import { ConfigError, type LoomConfig } from '../config/load.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { recoverJobs } from '../core/composer/recovery.ts';
import { flushLog, type LogDestination } from '../http/log-destination.ts';
import { processLogger } from '../http/server-log.ts';

export interface WorkerOptions {
  /** Where the worker's log lines go (tests read them); stdout by default. */
  logDestination?: LogDestination;
  /** The runner's name in the store's claims; host, pid and a random part by default. */
  runnerId?: string;
  clock?: Clock;
}

export interface RunningWorker {
  /** The runner's name in claims. */
  runnerId: string;
  /** Where its store is, for the start-up line. */
  store: { dialect: string; location: string };
  concurrency: number;
  /** Stops taking sessions, gives the running ones `graceMs` (the `jobs.graceSeconds` setting by default), hands back the rest, closes the store. */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Starts a worker (`loom worker`): runs composer sessions from the BullMQ queue on
 * `config.redisUrl`, `config.composer.concurrency` at once, with the store on
 * `config.databaseUrl`. Both are required: a worker alone on a SQLite file would share nothing.
 *
 * BullMQ's lock on a running job lasts as long as the store's lease on its session
 * (`composer.leaseSeconds`): a worker killed mid-session has its job delivered again once both
 * have lapsed, and the next claim in the store takes the session over. The reconciler enqueues
 * again, on start and every few seconds, every session the store says is queued or running under
 * a lapsed lease: a job Redis lost (it keeps nothing on disk here) is found again, and enqueuing
 * an id that is still in the queue adds nothing.
 *
 * @example
 * const worker = await startWorker(loadConfig({ env: process.env }));
 * process.once('SIGTERM', () => void worker.close().then(() => process.exit(0)));
 */
export async function startWorker(config: LoomConfig, options: WorkerOptions = {}): Promise<RunningWorker> {
  if (!config.databaseUrl || !config.redisUrl) {
    const missing = [!config.databaseUrl && 'DATABASE_URL', !config.redisUrl && 'REDIS_URL'].filter(Boolean).join(' and ');
    throw new ConfigError(
      `a worker needs ${missing}: set DATABASE_URL (postgres://…) and REDIS_URL (redis://…) to the same values as the loom hosted processes it works for.`,
    );
  }
  await pingRedis(config.redisUrl);
  const clock = options.clock ?? systemClock;
  const log = processLogger({ level: config.logLevel, destination: options.logDestination });
  const resources = new ResourceStack();
  return resources.unwindOnFailure(async () => {
    resources.onClose(() => flushLog(options.logDestination));
    const opened = await openComposerRunner(config, { clock, ...(options.runnerId ? { runnerId: options.runnerId } : {}) });
    resources.push(opened);
    for (const warning of opened.store.warnings) log?.warn(warning);
    const leaseMs = config.composer.leaseSeconds * 1000;
    const queue = new BullJobQueue({
      redisUrl: config.redisUrl!,
      prefix: config.jobs.redisPrefix,
      lockMs: leaseMs,
      onError: (message, error) => log?.warn({ error }, message),
    });
    // Closed first on shutdown: the running sessions end or are handed back while the store is still open.
    let graceMs = config.jobs.graceSeconds * 1000;
    resources.onClose(() => queue.close({ graceMs }));
    const recovery = recoverJobs(opened.store.composerSessions, queue, {
      intervalMs: Math.min(5_000, leaseMs / 3),
      now: () => clock.now(),
      onError: (error) => log?.warn({ error }, 'the reconciler could not scan the store; it tries again'),
    });
    resources.onClose(() => recovery.stop());
    const { runner } = opened;
    queue.process(
      runSessions(runner, recovery, (job) => log?.debug({ session: job.id }, 'session delivered')),
      { concurrency: config.composer.concurrency },
    );
    await queue.ready();
    log?.info(
      { runner: runner.runnerId, concurrency: config.composer.concurrency, queue: `${config.jobs.redisPrefix}:composer` },
      'worker taking composer sessions',
    );
    return {
      runnerId: runner.runnerId,
      store: { dialect: opened.store.dialect, location: opened.store.location },
      concurrency: config.composer.concurrency,
      close: async (closeOptions = {}) => {
        if (closeOptions.graceMs !== undefined) graceMs = closeOptions.graceMs;
        log?.info({ graceMs, running: runner.running() }, 'worker stopping');
        await resources.close();
      },
    };
  });
}
