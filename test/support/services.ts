// Real PostgreSQL and Redis for tests. Under CI=true a missing service fails the test;
// elsewhere the test is skipped with a printed notice.
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';

const PG_URL = process.env.LOOM_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.LOOM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function unavailable(t: TestContext, service: string, error: unknown): null {
  const message = `${service} is not reachable (${(error as Error).message})`;
  if (process.env.CI === 'true') throw new Error(`${message}; CI must provide it`);
  console.log(`# notice: skipping "${t.name}": ${message}`);
  t.skip(message);
  return null;
}

/**
 * A PostgreSQL URL whose search_path is a fresh schema, dropped when the test ends,
 * or null when PostgreSQL is not there (the test is then skipped).
 */
export async function postgresUrl(t: TestContext): Promise<string | null> {
  const schema = `loom_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`create schema ${schema}`);
  } catch (error) {
    await admin.end().catch(() => {});
    return unavailable(t, 'PostgreSQL', error);
  }
  t.after(async () => {
    await admin.query(`drop schema ${schema} cascade`).catch(() => {});
    await admin.end();
  });
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** A connected Redis client (closed when the test ends) and a key prefix unique to the test. */
export async function redisClient(t: TestContext): Promise<{ url: string; redis: Redis; prefix: string } | null> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    return unavailable(t, 'Redis', error);
  }
  const prefix = `loom-test:${randomBytes(6).toString('hex')}:`;
  t.after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });
  return { url: REDIS_URL, redis, prefix };
}
