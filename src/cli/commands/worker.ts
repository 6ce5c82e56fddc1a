import { Command } from 'commander';
import type { RunningWorker } from '../../worker/worker.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { print, printJson } from '../output.ts';
import { COMPLETION_SETTINGS } from './complete.ts';
import { closeOnSignal } from './hosted.ts';

/** What `loom worker` takes as flags; DATABASE_URL and REDIS_URL come from the environment or the config file. */
export const WORKER_SETTINGS = ['dataDir', 'composer.concurrency', 'logLevel', 'catalog', ...COMPLETION_SETTINGS] as const;

/**
 * `loom worker [--concurrency N]`: runs composer sessions from the BullMQ queue the hosted
 * processes fill (REDIS_URL), with their store (DATABASE_URL). SIGTERM or SIGINT lets running
 * sessions finish for `jobs.graceSeconds`, hands back the rest and exits 0.
 *
 * @example
 * // DATABASE_URL=postgres://… REDIS_URL=redis://… loom worker --concurrency 4
 */
export function workerCommand(): Command {
  const command = new Command('worker')
    .description('run composer sessions from the Redis job queue (needs DATABASE_URL and REDIS_URL); any number of workers share the work')
    .option('--json', 'once running, print one line of JSON: {worker: {runnerId, concurrency, queue, store}}');
  return addSettingOptions(command, WORKER_SETTINGS).action(async (options: { json?: boolean }, self: Command) => {
    const config = configFromOptions(self);
    // Loaded here, not at start: the worker brings the store, BullMQ and the servers' stack.
    const { startWorker } = await import('../../worker/worker.ts');
    const worker = await startWorker(config);
    // Signals are handled before the banner: whoever waits for it may send one at once.
    closeOnSignal([worker]);
    if (options.json) {
      const { runnerId, concurrency, store } = worker;
      printJson({ worker: { runnerId, concurrency, queue: `${config.jobs.redisPrefix}:composer`, store: `${store.dialect} ${store.location}` } }, 0);
    } else {
      printWorker(worker, config.jobs.redisPrefix);
    }
  });
}

function printWorker(worker: RunningWorker, prefix: string): void {
  print(
    `Loom worker       ${worker.runnerId}   (${worker.concurrency} at once; queue ${prefix}:composer; store: ${worker.store.dialect} ${worker.store.location})\n`,
  );
}
