// Fixed-window request counters. The in-memory one lives here; the hosted API adds one in Redis.
import type { Clock } from '../clock.ts';

export interface CountResult {
  /** Requests counted in the current window, this one included. */
  current: number;
  /** Milliseconds until the window resets. */
  ttl: number;
}

export interface Counter {
  count(key: string, windowMs: number): CountResult | Promise<CountResult>;
}

/** One client's window, threaded on the recency list (older / newer). */
class Window {
  older: Window | undefined;
  newer: Window | undefined;

  constructor(
    readonly key: string,
    public count: number,
    public resetAt: number,
  ) {}
}

/**
 * Counts in this process's memory, for at most `capacity` clients: the least recently seen are
 * forgotten first. Recency is a doubly linked list through the windows themselves, so a request
 * from a known client moves two pointers and allocates nothing (re-inserting into a Map to keep
 * its order made the Map rehash under load).
 *
 * @example
 *   const counter = new MemoryCounter(systemClock);
 *   counter.count('203.0.113.7', 60_000); // { current: 1, ttl: 60000 }
 */
export class MemoryCounter implements Counter {
  private readonly windows = new Map<string, Window>();
  private oldest: Window | undefined;
  private newest: Window | undefined;

  constructor(
    private readonly clock: Clock,
    /** Most clients tracked at once; the least recently seen are forgotten first. */
    private readonly capacity = 50_000,
  ) {}

  count(key: string, windowMs: number): CountResult {
    const now = this.clock.now();
    let window = this.windows.get(key);
    if (window === undefined) {
      window = new Window(key, 0, now + windowMs);
      this.windows.set(key, window);
      this.append(window);
      if (this.windows.size > this.capacity) this.forget(this.oldest!);
    } else {
      if (window.resetAt <= now) {
        window.count = 0;
        window.resetAt = now + windowMs;
      }
      if (window !== this.newest) {
        this.unlink(window);
        this.append(window);
      }
    }
    window.count += 1;
    return { current: window.count, ttl: window.resetAt - now };
  }

  private append(window: Window): void {
    window.older = this.newest;
    window.newer = undefined;
    if (this.newest) this.newest.newer = window;
    else this.oldest = window;
    this.newest = window;
  }

  private unlink(window: Window): void {
    if (window.older) window.older.newer = window.newer;
    else this.oldest = window.newer;
    if (window.newer) window.newer.older = window.older;
    else this.newest = window.older;
  }

  private forget(window: Window): void {
    this.unlink(window);
    this.windows.delete(window.key);
  }
}
