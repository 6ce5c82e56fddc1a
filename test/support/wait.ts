// Waiting in tests: on a condition (polled), or at a gate the test opens by hand. Never for a
// fixed time: a shared 2-core CI machine makes every fixed delay too short one day.

/**
 * How long waitFor polls before it gives up. A guard against hangs, never a measurement: a
 * condition that holds at all holds long before this, even on a loaded machine.
 */
export const WAIT_LIMIT_MS = 30_000;

/**
 * The completion time limit of test servers (startTestHosted, startTestLocal). It includes
 * loading a model, real work that a loaded machine can make take many seconds, so it is a
 * generous guard against hangs; tests of the limit itself set their own.
 */
export const COMPLETION_TIME_LIMIT_MS = 60_000;

/**
 * Polls until `condition` holds (watchers, debounced work, background delivery), failing after
 * `timeoutMs` with `what` in the message. Polls often at first, then every 25 ms.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = WAIT_LIMIT_MS, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  let pause = 1;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 25);
  }
}

/**
 * A barrier the test opens by hand. Work that waits at it is provably still running until
 * `open()`: a test can check what happened meanwhile (an answer arrived, a newer request
 * superseded an older one) as an ordering instead of a duration.
 */
export class Gate {
  private release!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.release = resolve));
  private arrivals = 0;
  private arrivalWaiters: { count: number; resolve: () => void }[] = [];
  isOpen = false;

  /** Waits until the gate opens; rejects with the signal's reason if it aborts first. */
  pass(signal?: AbortSignal): Promise<void> {
    this.arrivals++;
    const due = this.arrivalWaiters.filter((waiter) => this.arrivals >= waiter.count);
    this.arrivalWaiters = this.arrivalWaiters.filter((waiter) => !due.includes(waiter));
    for (const waiter of due) waiter.resolve();
    if (!signal) return this.opened;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      void this.opened.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /** Resolves once `count` arrivals in all have come to the gate (the work is provably there). */
  reached(count = 1): Promise<void> {
    if (this.arrivals >= count) return Promise.resolve();
    return new Promise((resolve) => this.arrivalWaiters.push({ count, resolve }));
  }

  open(): void {
    this.isOpen = true;
    this.release();
  }
}
