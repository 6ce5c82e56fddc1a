// What makes a session acknowledged with 201 run even when the delivery of its job was lost
// (the process was killed between the write and the run): the store is scanned for sessions
// queued, or running under a lapsed lease, and each is enqueued (enqueuing twice runs once;
// the claim settles who runs it).
import type { Job } from '../jobs/queue.ts';
import type { ComposerSessionRepository } from './records.ts';

/** Sessions enqueued per scan. */
const SCAN_LIMIT = 200;

export interface Recovery {
  /** Scans now (after a session ends, a queued one of the same user may run). */
  scan(): Promise<void>;
  stop(): void;
}

/**
 * Scans at once, then every `intervalMs`.
 *
 * @example
 * const recovery = recoverJobs(store.composerSessions, queue, { intervalMs: 2000, now: () => Date.now() });
 * // on shutdown
 * recovery.stop();
 */
export function recoverJobs(
  sessions: ComposerSessionRepository,
  queue: { enqueue(job: Job): Promise<void> },
  options: { intervalMs: number; now: () => number; onError?: (error: unknown) => void },
): Recovery {
  let scanning: Promise<void> | undefined;
  const scan = () =>
    (scanning ??= (async () => {
      try {
        for (const id of await sessions.runnable(options.now(), SCAN_LIMIT)) await queue.enqueue({ kind: 'composer', id });
      } catch (error) {
        options.onError?.(error);
      } finally {
        scanning = undefined;
      }
    })());
  const timer = setInterval(() => void scan(), options.intervalMs);
  timer.unref?.();
  void scan();
  return {
    scan,
    stop: () => clearInterval(timer),
  };
}
