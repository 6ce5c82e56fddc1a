// Fixed-window request counters behind @fastify/rate-limit's store interface: in memory, or
// in Redis so that every process shares one limit. A Redis failure falls back to counting in
// memory for that request, so the limit still holds (per process) and nothing answers 5xx.
import type { Redis } from 'ioredis';
import type { Clock } from '../../../core/clock.ts';

export interface CountResult {
  current: number;
  /** Milliseconds until the window resets. */
  ttl: number;
}

type Callback = (error: Error | null, result?: CountResult) => void;

/** The store contract of @fastify/rate-limit. */
export interface RateLimitStore {
  incr(key: string, callback: Callback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): RateLimitStore;
}

export class MemoryCounter implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly clock: Clock,
    /** Most clients tracked at once; the least recently seen are forgotten first. */
    private readonly capacity = 50_000,
  ) {}

  count(key: string, timeWindow: number): CountResult {
    const now = this.clock.now();
    let entry = this.windows.get(key);
    if (!entry || entry.resetAt <= now) entry = { count: 0, resetAt: now + timeWindow };
    else this.windows.delete(key); // re-inserted below: Map order doubles as recency order
    entry.count += 1;
    this.windows.set(key, entry);
    if (this.windows.size > this.capacity) {
      const oldest = this.windows.keys().next().value;
      if (oldest !== undefined) this.windows.delete(oldest);
    }
    return { current: entry.count, ttl: entry.resetAt - now };
  }

  incr(key: string, callback: Callback, timeWindow: number): void {
    callback(null, this.count(key, timeWindow));
  }

  child(): RateLimitStore {
    return this;
  }
}

const INCREMENT_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if current == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`;

export interface RedisCounterOptions {
  redis: Redis;
  prefix: string;
  fallback: MemoryCounter;
  onFallback?: (error: Error) => void;
}

export class RedisCounter implements RateLimitStore {
  constructor(private readonly options: RedisCounterOptions) {}

  incr(key: string, callback: Callback, timeWindow: number): void {
    const { redis, prefix, fallback, onFallback } = this.options;
    redis
      .eval(INCREMENT_SCRIPT, 1, prefix + key, timeWindow)
      .then((reply) => {
        const [current, ttl] = reply as [number, number];
        callback(null, { current, ttl });
      })
      .catch((error: Error) => {
        onFallback?.(error);
        callback(null, fallback.count(key, timeWindow));
      });
  }

  child(): RateLimitStore {
    return this;
  }
}
