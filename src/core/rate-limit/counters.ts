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

export class MemoryCounter implements Counter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly clock: Clock,
    /** Most clients tracked at once; the least recently seen are forgotten first. */
    private readonly capacity = 50_000,
  ) {}

  count(key: string, windowMs: number): CountResult {
    const now = this.clock.now();
    let entry = this.windows.get(key);
    if (!entry || entry.resetAt <= now) entry = { count: 0, resetAt: now + windowMs };
    else this.windows.delete(key); // re-inserted below: Map order doubles as recency order
    entry.count += 1;
    this.windows.set(key, entry);
    if (this.windows.size > this.capacity) {
      const oldest = this.windows.keys().next().value;
      if (oldest !== undefined) this.windows.delete(oldest);
    }
    return { current: entry.count, ttl: entry.resetAt - now };
  }
}
