// The Redis counter: every process shares one limit. A Redis failure falls back to counting in
// memory for that request, so the limit still holds (per process) and nothing answers 5xx.
import type { Redis } from 'ioredis';
import type { Counter, CountResult, MemoryCounter } from '../../../core/rate-limit/counters.ts';

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
