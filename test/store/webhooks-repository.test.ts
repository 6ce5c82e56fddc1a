// The webhook repository against both stores it ships with: the same tests on SQLite (a
// temporary data dir) and on PostgreSQL (a fresh schema per test).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NewDeliveryRecord } from '../../src/core/webhooks/records.ts';
import { openTestStore as open, STORE_DIALECTS } from '../support/store.ts';

const T0 = Date.UTC(2026, 0, 1);

function delivery(n: number, overrides: Partial<NewDeliveryRecord> = {}): NewDeliveryRecord {
  return {
    id: `msg_${String(n).padStart(26, '0')}`,
    url: `https://hooks.example.com/${n % 2 ? 'odd' : 'even'}`,
    eventType: 'git:commit',
    payload: JSON.stringify({ type: 'git:commit', timestamp: new Date(T0).toISOString(), data: { n, text: 'ünï 🧵 "q" \\' } }),
    createdAt: new Date(T0 + n).toISOString(),
    nextAttemptAt: T0 + n,
    ...overrides,
  };
}

for (const dialect of STORE_DIALECTS) {
  describe(`SqlWebhookRepository on ${dialect.name}`, () => {
    it('claims due deliveries in due order, counting the attempt, and completes them', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      await store.webhooks.enqueue([delivery(3), delivery(1), delivery(2, { nextAttemptAt: T0 + 10 * 60_000 })]);
      assert.equal(await store.webhooks.nextDueAt(), T0 + 1);

      const claimed = await store.webhooks.claimDue({ now: T0 + 5, leaseUntil: T0 + 60_000, limit: 10, claimToken: 'w1' });
      assert.deepEqual(
        claimed.map((c) => [c.id, c.attempts, c.claimToken]),
        [
          [delivery(1).id, 1, 'w1'],
          [delivery(3).id, 1, 'w1'],
        ],
      );
      assert.deepEqual(
        { ...claimed[0]!, attempts: 0, claimToken: '' },
        {
          id: delivery(1).id,
          url: delivery(1).url,
          eventType: 'git:commit',
          payload: delivery(1).payload,
          createdAt: delivery(1).createdAt,
          attempts: 0,
          claimToken: '',
        },
      );
      // Leased: nothing more to claim now; the next due time is the earlier of lease end and row 2.
      assert.deepEqual(await store.webhooks.claimDue({ now: T0 + 5, leaseUntil: T0 + 60_000, limit: 10, claimToken: 'w2' }), []);
      assert.equal(await store.webhooks.nextDueAt(), T0 + 60_000);

      assert.equal(
        await store.webhooks.complete(delivery(1).id, 'w2', { status: 'delivered', lastStatus: 200, deliveredAt: new Date(T0 + 6).toISOString() }),
        false,
        'wrong token',
      );
      assert.equal(
        await store.webhooks.complete(delivery(1).id, 'w1', { status: 'delivered', lastStatus: 200, deliveredAt: new Date(T0 + 6).toISOString() }),
        true,
      );
      assert.equal(await store.webhooks.complete(delivery(1).id, 'w1', { status: 'failed', lastError: 'x' }), false, 'finished rows stay finished');
      const retryAt = T0 + 5 * 60_000;
      assert.equal(
        await store.webhooks.complete(delivery(3).id, 'w1', { status: 'pending', nextAttemptAt: retryAt, lastStatus: 503, lastError: 'HTTP 503' }),
        true,
      );
      assert.equal(await store.webhooks.nextDueAt(), retryAt);

      // Newest first is insertion order reversed: 3, 1, 2 were inserted in that order.
      const log = await store.webhooks.list({ limit: 10 });
      assert.deepEqual(log, [
        {
          id: delivery(2).id,
          event: 'git:commit',
          url: delivery(2).url,
          status: 'pending',
          attempts: 0,
          lastStatus: null,
          lastError: null,
          createdAt: delivery(2).createdAt,
          deliveredAt: null,
          nextAttemptAt: new Date(T0 + 10 * 60_000).toISOString(),
        },
        {
          id: delivery(1).id,
          event: 'git:commit',
          url: delivery(1).url,
          status: 'delivered',
          attempts: 1,
          lastStatus: 200,
          lastError: null,
          createdAt: delivery(1).createdAt,
          deliveredAt: new Date(T0 + 6).toISOString(),
          nextAttemptAt: null,
        },
        {
          id: delivery(3).id,
          event: 'git:commit',
          url: delivery(3).url,
          status: 'pending',
          attempts: 1,
          lastStatus: 503,
          lastError: 'HTTP 503',
          createdAt: delivery(3).createdAt,
          deliveredAt: null,
          nextAttemptAt: new Date(retryAt).toISOString(),
        },
      ]);
    });

    it('keeps failed, disabled and abandoned outcomes, with attempts and last status as asked', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      await store.webhooks.enqueue([delivery(1), delivery(2), delivery(3)]);
      await store.webhooks.claimDue({ now: T0 + 10, leaseUntil: T0 + 1000, limit: 10, claimToken: 'w' });
      await store.webhooks.complete(delivery(1).id, 'w', { status: 'failed', lastStatus: 500, lastError: 'HTTP 500; no attempts left' });
      await store.webhooks.complete(delivery(2).id, 'w', { status: 'disabled', lastError: 'gone', attempts: 0 });
      await store.webhooks.complete(delivery(3).id, 'w', { status: 'abandoned', lastStatus: null, lastError: 'removed' });
      const byId = new Map((await store.webhooks.list({ limit: 10 })).map((e) => [e.id, e]));
      assert.deepEqual(
        [1, 2, 3].map((n) => {
          const e = byId.get(delivery(n).id)!;
          return [e.status, e.attempts, e.lastStatus, e.lastError, e.nextAttemptAt];
        }),
        [
          ['failed', 1, 500, 'HTTP 500; no attempts left', null],
          ['disabled', 0, null, 'gone', null],
          ['abandoned', 1, null, 'removed', null],
        ],
      );
      assert.equal(await store.webhooks.nextDueAt(), null);
      assert.deepEqual(await store.webhooks.claimDue({ now: T0 + 10 ** 9, leaseUntil: T0 + 10 ** 10, limit: 10, claimToken: 'x' }), []);
    });

    it('makes a row claimable again when its lease expires, and refuses the old lease afterwards', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      await store.webhooks.enqueue([delivery(1)]);
      assert.equal((await store.webhooks.claimDue({ now: T0 + 1, leaseUntil: T0 + 100, limit: 1, claimToken: 'dead' })).length, 1);
      assert.deepEqual(await store.webhooks.claimDue({ now: T0 + 99, leaseUntil: T0 + 200, limit: 1, claimToken: 'next' }), []);
      const [again] = await store.webhooks.claimDue({ now: T0 + 100, leaseUntil: T0 + 200, limit: 1, claimToken: 'next' });
      assert.equal(again!.attempts, 2);
      assert.equal(await store.webhooks.complete(delivery(1).id, 'dead', { status: 'delivered', lastStatus: 200, deliveredAt: 'x' }), false);
      assert.equal(
        await store.webhooks.complete(delivery(1).id, 'next', { status: 'delivered', lastStatus: 200, deliveredAt: new Date(T0).toISOString() }),
        true,
      );
    });

    it('gives a leased row back unattempted on release', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      await store.webhooks.enqueue([delivery(1)]);
      await store.webhooks.claimDue({ now: T0 + 1, leaseUntil: T0 + 100, limit: 1, claimToken: 'w' });
      assert.equal(await store.webhooks.release(delivery(1).id, 'other'), false);
      assert.equal(await store.webhooks.release(delivery(1).id, 'w'), true);
      assert.equal(await store.webhooks.release(delivery(1).id, 'w'), false);
      assert.equal((await store.webhooks.list({ limit: 1 }))[0]!.attempts, 0);
      assert.equal(await store.webhooks.nextDueAt(), T0 + 1);
      const [again] = await store.webhooks.claimDue({ now: T0 + 1, leaseUntil: T0 + 100, limit: 1, claimToken: 'w2' });
      assert.equal(again!.attempts, 1);
    });

    it('queues more deliveries than one statement may bind, all of them or none', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      // 5,100 rows of 13 columns: 66,300 values, over PostgreSQL's 65,535 and SQLite's 32,766.
      const rows = Array.from({ length: 5_100 }, (_, i) => delivery(i + 1));
      await store.webhooks.enqueue(rows);
      assert.equal((await store.webhooks.list({ limit: 10_000 })).length, 5_100);
      // A duplicate id in the last batch: the batches before it are not kept either.
      const more = Array.from({ length: 5_100 }, (_, i) => delivery(10_001 + i));
      more.push(delivery(1));
      await assert.rejects(store.webhooks.enqueue(more), { code: 'store_unavailable' });
      assert.equal((await store.webhooks.list({ limit: 20_000 })).length, 5_100);
    });

    it('never hands one row to two concurrent claims, even from separate connections', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const first = await open(t, options);
      const second = await open(t, options);
      const rows = Array.from({ length: 60 }, (_, i) => delivery(i + 1, { nextAttemptAt: T0 }));
      await first.webhooks.enqueue(rows);
      const claims = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? first : second).webhooks.claimDue({ now: T0, leaseUntil: T0 + 60_000, limit: 7, claimToken: `w${i}` })),
      );
      const ids = claims.flat().map((c) => c.id);
      assert.equal(new Set(ids).size, ids.length, 'a row was claimed twice');
      // Whatever was not claimed in the race is still claimable, once.
      const rest = await first.webhooks.claimDue({ now: T0, leaseUntil: T0 + 60_000, limit: 100, claimToken: 'rest' });
      assert.equal(ids.length + rest.length, 60);
      assert.equal(new Set([...ids, ...rest.map((c) => c.id)]).size, 60);
    });

    it('pages the log by id, filters by status, refuses an unknown cursor', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      for (let n = 1; n <= 5; n++) await store.webhooks.enqueue([delivery(n)]);
      await store.webhooks.claimDue({ now: T0 + 2, leaseUntil: T0 + 100, limit: 10, claimToken: 'w' });
      await store.webhooks.complete(delivery(2).id, 'w', { status: 'delivered', lastStatus: 204, deliveredAt: new Date(T0).toISOString() });
      const ids = async (options: { limit: number; before?: string; status?: 'pending' | 'delivered' }) =>
        (await store.webhooks.list(options)).map((e) => e.id);
      assert.deepEqual(await ids({ limit: 2 }), [delivery(5).id, delivery(4).id]);
      assert.deepEqual(await ids({ limit: 2, before: delivery(4).id }), [delivery(3).id, delivery(2).id]);
      assert.deepEqual(await ids({ limit: 10, before: delivery(1).id }), []);
      assert.deepEqual(await ids({ limit: 10, status: 'delivered' }), [delivery(2).id]);
      assert.deepEqual(await ids({ limit: 10, status: 'pending', before: delivery(3).id }), [delivery(1).id]);
      await assert.rejects(ids({ limit: 1, before: 'msg_nope' }), { name: 'LoomError', code: 'not_found' });
    });

    it('prunes finished deliveries older than a time, keeping pending ones', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      await store.webhooks.enqueue([delivery(1), delivery(2), delivery(3)]);
      await store.webhooks.claimDue({ now: T0 + 1, leaseUntil: T0 + 100, limit: 1, claimToken: 'w' });
      await store.webhooks.complete(delivery(1).id, 'w', { status: 'delivered', lastStatus: 200, deliveredAt: new Date(T0).toISOString() });
      assert.equal(await store.webhooks.prune(new Date(T0 + 1).toISOString()), 0, 'created at T0+1 is not before T0+1');
      assert.equal(await store.webhooks.prune(new Date(T0 + 10).toISOString()), 1);
      assert.deepEqual(
        (await store.webhooks.list({ limit: 10 })).map((e) => e.id),
        [delivery(3).id, delivery(2).id],
      );
    });

    it('records disabled endpoints, replaces them, enables them', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      const url = 'https://hooks.example.com/gone';
      assert.equal(await store.webhooks.getDisabledEndpoint(url), undefined);
      await store.webhooks.disableEndpoint({ url, secretFingerprint: 'fp1', disabledAt: new Date(T0).toISOString(), reason: '410 Gone in answer to msg_1' });
      await store.webhooks.disableEndpoint({
        url,
        secretFingerprint: 'fp2',
        disabledAt: new Date(T0 + 1).toISOString(),
        reason: '410 Gone in answer to msg_2',
      });
      await store.webhooks.disableEndpoint({ url: `${url}/2`, secretFingerprint: 'fp3', disabledAt: new Date(T0 + 2).toISOString(), reason: 'r' });
      assert.deepEqual(await store.webhooks.getDisabledEndpoint(url), {
        url,
        secretFingerprint: 'fp2',
        disabledAt: new Date(T0 + 1).toISOString(),
        reason: '410 Gone in answer to msg_2',
      });
      assert.deepEqual(
        (await store.webhooks.listDisabledEndpoints()).map((d) => d.url),
        [url, `${url}/2`],
      );
      assert.equal(await store.webhooks.enableEndpoint(url), true);
      assert.equal(await store.webhooks.enableEndpoint(url), false);
      assert.deepEqual(
        (await store.webhooks.listDisabledEndpoints()).map((d) => d.url),
        [`${url}/2`],
      );
    });

    it('keeps its rows across reopening, with epoch-ms times exact past 2^32', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const first = await open(t, options);
      const far = Date.UTC(2100, 0, 1, 0, 0, 0, 123);
      await first.webhooks.enqueue([delivery(1, { nextAttemptAt: far })]);
      await first.close();
      const second = await open(t, options);
      assert.equal(await second.webhooks.nextDueAt(), far);
      const [entry] = await second.webhooks.list({ limit: 1 });
      assert.equal(entry!.nextAttemptAt, new Date(far).toISOString());
      assert.deepEqual(await second.webhooks.claimDue({ now: far - 1, leaseUntil: far + 1, limit: 1, claimToken: 'w' }), []);
      assert.equal((await second.webhooks.claimDue({ now: far, leaseUntil: far + 1, limit: 1, claimToken: 'w' })).length, 1);
    });

    it('rejects with store_unavailable once the store is closed, writing nothing', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const store = await open(t, options);
      await store.close();
      await assert.rejects(store.webhooks.enqueue([delivery(1)]), { name: 'LoomError', code: 'store_unavailable' });
      await assert.rejects(store.webhooks.claimDue({ now: T0, leaseUntil: T0 + 1, limit: 1, claimToken: 'w' }), { code: 'store_unavailable' });
    });
  });
}
