// The feedback repository against both stores it ships with: the same tests run on SQLite
// (a temporary data dir) and on PostgreSQL (a fresh schema per test).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import { LoomError } from '../../src/core/errors.ts';
import { FeedbackService, type FeedbackRecord } from '../../src/core/feedback/feedback.ts';
import { openStore, type StoreOptions } from '../../src/store/index.ts';
import { postgresUrl } from '../support/services.ts';
import { openTestStore as open } from '../support/store.ts';

interface DialectUnderTest {
  name: 'sqlite' | 'postgres';
  /** Options of a fresh, empty database for this test, or null when the test was skipped. */
  fresh(t: TestContext): Promise<StoreOptions | null>;
  /** Options of a database that cannot be reached. */
  unreachable(t: TestContext): StoreOptions;
}

function tempDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-store-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const DIALECTS: DialectUnderTest[] = [
  {
    name: 'sqlite',
    fresh: async (t) => ({ dataDir: tempDir(t) }),
    // The data dir is a file, so the database file cannot be created.
    unreachable: (t) => {
      const file = path.join(tempDir(t), 'not-a-folder');
      fs.writeFileSync(file, '');
      return { dataDir: file };
    },
  },
  {
    name: 'postgres',
    fresh: async (t) => {
      const databaseUrl = await postgresUrl(t);
      return databaseUrl ? { dataDir: tempDir(t), databaseUrl } : null;
    },
    // Nothing listens on port 1.
    unreachable: (t) => ({ dataDir: tempDir(t), databaseUrl: 'postgres://postgres@127.0.0.1:1/test' }),
  },
];

function record(n: number, overrides: Partial<FeedbackRecord> = {}): FeedbackRecord {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    name: `Person ${n}`,
    email: `person${n}@example.com`,
    subject: `Subject ${n}`,
    message: `Message ${n}`,
    createdAt: new Date(Date.UTC(2026, 0, 1, 12, 0, n)).toISOString(),
    clientIp: '203.0.113.7',
    userAgent: 'loom-test/1',
    ...overrides,
  };
}

/** The rejection of `promise`; fails if it resolves, or if it is still pending after `ms` (a hang). */
function rejectsWithin<T>(promise: Promise<T>, ms = 30_000): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  return Promise.race([
    promise.then(
      () => assert.fail('expected a rejection'),
      (error: unknown) => error,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

function assertStoreUnavailable(error: unknown): void {
  assert.ok(error instanceof LoomError, `expected a LoomError, got ${String(error)}`);
  assert.equal(error.code, 'store_unavailable');
}

const ISO_8601_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const dialect of DIALECTS) {
  describe(`SqlFeedbackRepository on ${dialect.name}`, () => {
    it('runs its migrations again on every open without harm, keeping the data', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const first = await open(t, options);
      assert.equal(first.dialect, dialect.name);
      await first.feedback.add(record(1));
      await first.close();

      const second = await open(t, options);
      await second.feedback.add(record(2));
      await second.close();

      const third = await open(t, options);
      assert.deepEqual(await third.feedback.list({ limit: 10 }), [record(2), record(1)]);
    });

    it('lists records newest first, every field as it was written', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      const written = [
        record(1, {
          name: 'Zoë 👩🏽‍💻 Đặng',
          email: 'zoe+loom@example.com',
          subject: 'שלום, مرحبا — right to left',
          message: 'Combining marks stay as sent: e\u0301 a\u0308 n\u0303 (not NFC).\nSecond line\twith a tab, "quotes", \\ and \'; drop table feedback; --',
          userAgent: null,
        }),
        record(2, { message: '🧵'.repeat(1000) + 'x'.repeat(3000), clientIp: '::1' }),
        record(3, { message: 'm'.repeat(5000), userAgent: 'Mozilla/5.0 (X11; Linux x86_64) ' + 'ü'.repeat(400) }),
      ];
      for (const r of written) await store.feedback.add(r);

      const listed = await store.feedback.list({ limit: 100 });
      assert.deepEqual(listed, [...written].reverse());
      assert.equal(listed[2]!.message.normalize('NFC') === listed[2]!.message, false, 'text was normalized');
      assert.equal(listed[1]!.message.length, 5000);
    });

    it('pages with limit and before', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      for (let n = 1; n <= 5; n++) await store.feedback.add(record(n));
      const ids = async (page: { limit: number; before?: string }) => (await store.feedback.list(page)).map((r) => r.name);

      assert.deepEqual(await ids({ limit: 2 }), ['Person 5', 'Person 4']);
      assert.deepEqual(await ids({ limit: 2, before: record(4).id }), ['Person 3', 'Person 2']);
      assert.deepEqual(await ids({ limit: 2, before: record(2).id }), ['Person 1']);
      assert.deepEqual(await ids({ limit: 2, before: record(1).id }), []);
      assert.deepEqual(await ids({ limit: 1000 }), ['Person 5', 'Person 4', 'Person 3', 'Person 2', 'Person 1']);
      await assert.rejects(ids({ limit: 2, before: 'no-such-id' }), { name: 'LoomError', code: 'not_found' });
    });

    it('gives createdAt back as ISO 8601 in UTC, to the millisecond', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      const clock = new ManualClock(Date.UTC(2026, 1, 28, 23, 59, 59, 987));
      const service = new FeedbackService(store.feedback, clock);
      const submitted = await service.submit({ name: 'Ada', email: 'ada@example.com', subject: 'Clock', message: 'What time is it?' }, { ip: '127.0.0.1' });
      await store.feedback.add(record(9, { createdAt: '1999-12-31T23:59:59.999Z' }));

      const [older, newer] = (await service.list()).reverse();
      assert.equal(newer!.createdAt, '1999-12-31T23:59:59.999Z');
      assert.equal(older!.createdAt, '2026-02-28T23:59:59.987Z');
      assert.equal(older!.createdAt, submitted.createdAt);
      for (const r of [older!, newer!]) assert.match(r.createdAt, ISO_8601_UTC);
    });

    it('refuses a second record with the same id, keeping the first', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      await store.feedback.add(record(1));
      assert.ok(await rejectsWithin(store.feedback.add(record(1, { name: 'Impostor' }))));
      assert.deepEqual(await store.feedback.list({ limit: 10 }), [record(1)]);
    });

    it('rejects add and list with store_unavailable once the store is closed', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      await store.close();
      const error = await rejectsWithin(store.feedback.add(record(1)));
      assertStoreUnavailable(error);
      assert.equal((error as LoomError).message, 'The database is not available; nothing was written.');
      assert.ok((error as Error & { cause?: unknown }).cause, 'the underlying failure is kept as the cause');
      assertStoreUnavailable(await rejectsWithin(store.feedback.list({ limit: 1 })));
    });

    it('fails to open an unreachable database promptly, with store_unavailable', async (t) => {
      const error = await rejectsWithin(openStore(dialect.unreachable(t)));
      assertStoreUnavailable(error);
      assert.match((error as Error).message, /^cannot open the database: /);
    });
  });
}
