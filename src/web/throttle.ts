// Work the event stream may ask for often (a build writing files, a checkout of many): done at
// once, then at most once per pause, so that the window stays within the local API's shared
// rate limit whatever happens on disk.

/**
 * Wraps `work`: the first call runs it at once; calls during the next `ms` milliseconds are
 * gathered into one run at the end of that pause.
 *
 * @example
 *   const refreshSoon = throttle(() => void tree.refresh(), 2000);
 *   events.on('disk:change', refreshSoon);
 */
export function throttle(work: () => unknown, ms: number): () => void {
  let last = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    timer = undefined;
    last = performance.now();
    work();
  };
  return () => {
    if (timer !== undefined) return;
    const wait = last + ms - performance.now();
    if (wait <= 0) run();
    else timer = setTimeout(run, wait);
  };
}
