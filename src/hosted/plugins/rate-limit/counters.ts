// Fixed-window request counters: in memory, or in Redis so that every process shares one
// limit. A Redis failure falls back to counting in memory for that request, so the limit
// still holds (per process) and nothing answers 5xx.
import type { Redis } from 'ioredis';
import type { Clock } from '../../../core/clock.ts';

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

export class RedisCounter implements Counter {
  constructor(private readonly options: RedisCounterOptions) {}

  async count(key: string, windowMs: number): Promise<CountResult> {
    const { redis, prefix, fallback, onFallback } = this.options;
    try {
      const [current, ttl] = (await redis.eval(INCREMENT_SCRIPT, 1, prefix + key, windowMs)) as [number, number];
      return { current, ttl };
    } catch (error) {
      onFallback?.(error as Error);
      return fallback.count(key, windowMs);
    }
  }
}
