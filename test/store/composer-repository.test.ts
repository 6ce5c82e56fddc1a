// The composer repositories against both stores Loom ships with: the same tests on SQLite and
// on PostgreSQL (a fresh schema per test). Claims are what keep a session from running twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queuedSession, type ComposerSessionRecord } from '../../src/core/composer/types.ts';
import { openTestStore as open, STORE_DIALECTS } from '../support/store.ts';

function session(n: number, overrides: Partial<ComposerSessionRecord> = {}): ComposerSessionRecord {
  return {
    ...queuedSession({
      id: `00000000-0000-4000-8000-00000000000${n}`,
      userId: 'user_1',
      prompt: `Rename add to sum ${n} — ünï 🧵 "q" \\`,
      files: ['src/**'],
      mode: 'edit',
      workspace: null,
      attachments: [{ path: 'src/a.ts', content: 'export const a = 1;\n' }],
      budgets: { maxSteps: 40, maxTokens: 500_000, timeoutSeconds: 900 },
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    }),
    ...overrides,
  };
}

for (const dialect of STORE_DIALECTS) {
  describe(`composer repositories on ${dialect.name}`, () => {
    it('creates and reads a session; one of two claims wins; writes need the claim', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const { composerSessions: sessions } = await open(t, options);
      await sessions.create(session(1));
      assert.deepEqual(await sessions.get(session(1).id), session(1));
      assert.equal(await sessions.get('nope'), undefined);
      assert.deepEqual(await sessions.countActive('user_1'), { queued: 1, running: 0 });

      const [a, b] = await Promise.all([sessions.claim(session(1).id, 'runner-a', 1000, 61_000), sessions.claim(session(1).id, 'runner-b', 1000, 61_000)]);
      const winner = a ?? b;
      assert.ok(winner, 'one claim wins');
      assert.ok(!(a && b), 'only one claim wins');
      assert.equal(winner.claim.attempt, 1);
      assert.equal(winner.record.status, 'running');
      assert.deepEqual(await sessions.countActive('user_1'), { queued: 0, running: 1 });
      const loser = { runner: winner.claim.runner === 'runner-a' ? 'runner-b' : 'runner-a', attempt: 1 };

      assert.equal(await sessions.update(session(1).id, loser, { summary: 'no' }), false);
      assert.equal(await sessions.appendEvent(session(1).id, { type: 'step', data: {}, at: 'x' }, loser), undefined);
      assert.equal(await sessions.update(session(1).id, winner.claim, { steps: 2, tokens: 3_000_000_000, summary: 'yes' }), true);
      assert.equal(await sessions.appendEvent(session(1).id, { type: 'status', data: { status: 'running' }, at: 'a' }, winner.claim), 1);
      assert.equal(await sessions.appendEvent(session(1).id, { type: 'step', data: { text: 'ü' }, at: 'b' }, winner.claim), 2);
      assert.deepEqual(await sessions.renew(session(1).id, winner.claim, 90_000), { cancelRequested: false });
      assert.equal(await sessions.renew(session(1).id, loser, 90_000), undefined);

      // Still leased at 60 s: nobody takes it over; past the lease, a second runner does.
      assert.deepEqual(await sessions.runnable(60_000, 10), []);
      assert.equal(await sessions.claim(session(1).id, 'runner-c', 60_000, 120_000), undefined);
      assert.deepEqual(await sessions.runnable(100_000, 10), [session(1).id]);
      const takeover = await sessions.claim(session(1).id, 'runner-c', 100_000, 160_000);
      assert.equal(takeover?.claim.attempt, 2);
      assert.equal(await sessions.update(session(1).id, winner.claim, { summary: 'late' }), false, 'the first runner lost its claim');

      const edits = [{ file: 'src/a.ts', action: 'modified' as const, diff: '--- a\n+++ b\n', baseHash: 'ab', content: 'x' }];
      assert.equal(
        await sessions.update(session(1).id, takeover!.claim, { edits, status: 'completed', endedAt: '2026-01-01T00:10:00.000Z', error: null }),
        true,
      );
      const ended = await sessions.get(session(1).id);
      assert.equal(ended?.status, 'completed');
      assert.deepEqual(ended?.edits, edits);
      assert.equal(ended?.tokens, 3_000_000_000);
      assert.equal(ended?.leaseUntil, null);
      assert.deepEqual(
        (await sessions.events(session(1).id, 1, 10)).map((e) => [e.seq, e.type, e.data]),
        [[2, 'step', { text: 'ü' }]],
      );
    });

    it('continues an ended session with a message, once: its edits kept to start from, the message and how the work ended kept, its events appended', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const { composerSessions: sessions } = await open(t, options);
      const id = session(1).id;
      await sessions.create(session(1));
      const budgets = { maxSteps: 5, maxTokens: 1000, timeoutSeconds: 60 };
      assert.deepEqual(
        await sessions.continueWith(id, { message: 'more', at: 'x' }, budgets),
        { record: await sessions.get(id), continued: false },
        'queued: not ended',
      );
      assert.equal(await sessions.continueWith('nope', { message: 'more', at: 'x' }, budgets), undefined);

      const { claim } = (await sessions.claim(id, 'runner-a', 1000, 61_000))!;
      const edits = [{ file: 'src/a.ts', action: 'modified' as const, diff: '--- a\n+++ b\n', baseHash: 'ab', content: 'x' }];
      await sessions.update(id, claim, { edits, base: 'c0ffee', steps: 3, tokens: 40, summary: 'Did it.', pushed: true });
      assert.equal(await sessions.appendEvent(id, { type: 'status', data: { status: 'completed' }, at: 'a' }, claim), 1);
      await sessions.update(id, claim, { status: 'completed', endedAt: '2026-01-01T00:10:00.000Z' });

      // Two messages at once: one continues the session, the other finds it queued.
      const at = '2026-01-01T00:11:00.000Z';
      const [a, b] = await Promise.all([
        sessions.continueWith(id, { message: 'one', at }, budgets),
        sessions.continueWith(id, { message: 'two', at }, budgets),
      ]);
      assert.equal([a, b].filter((answer) => answer?.continued).length, 1);
      const record = (await sessions.get(id))!;
      const said = a!.continued ? 'one' : 'two';
      assert.equal(record.status, 'queued');
      assert.deepEqual(record.conversation, [
        { message: said, at, seq: 2, earlier: { status: 'completed', error: null, summary: 'Did it.', plan: null, steps: 3, tokens: 40 } },
      ]);
      assert.deepEqual(record.startEdits, edits);
      assert.deepEqual(record.edits, edits, 'the edits stay readable until the next run');
      assert.deepEqual(record.budgets, budgets);
      assert.equal(record.base, 'c0ffee');
      assert.equal(record.pushed, false);
      assert.equal(record.endedAt, null);
      assert.deepEqual(
        (await sessions.events(id, 1, 10)).map((e) => [e.seq, e.type, e.data]),
        [
          [2, 'message', { message: said }],
          [3, 'status', { status: 'queued' }],
        ],
      );
      assert.deepEqual(await sessions.runnable(2000, 10), [id]);
    });

    it('cancels a queued session at once and flags a running one; hands a session back', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const { composerSessions: sessions } = await open(t, options);
      await sessions.create(session(1));
      await sessions.create(session(2));
      const cancelled = await sessions.requestCancel(session(1).id, '2026-01-01T00:00:09.000Z');
      assert.equal(cancelled?.cancelled, true);
      assert.equal(cancelled?.record.status, 'cancelled');
      assert.equal(await sessions.claim(session(1).id, 'r', 0, 1), undefined);
      assert.deepEqual(
        (await sessions.events(session(1).id, 0, 10)).map((e) => e.data),
        [{ status: 'cancelled' }],
      );

      const claimed = await sessions.claim(session(2).id, 'r', 0, 60_000);
      const flagged = await sessions.requestCancel(session(2).id, 'now');
      assert.equal(flagged?.cancelled, false);
      assert.equal(flagged?.record.status, 'running');
      assert.deepEqual(await sessions.renew(session(2).id, claimed!.claim, 60_000), { cancelRequested: true });
      assert.equal(await sessions.release(session(2).id, claimed!.claim), true);
      assert.equal((await sessions.get(session(2).id))?.status, 'queued');
      assert.equal(await sessions.requestCancel('nope', 'now'), undefined);
    });

    it('holds a session back while its user has enough running', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const { composerSessions: sessions } = await open(t, options);
      await sessions.create(session(1));
      await sessions.create(session(2));
      await sessions.create(session(3, { userId: 'user_2' }));
      assert.ok(await sessions.claim(session(1).id, 'r', 0, 60_000, { maxRunningPerUser: 1 }));
      assert.equal(await sessions.claim(session(2).id, 'r', 0, 60_000, { maxRunningPerUser: 1 }), undefined);
      assert.ok(await sessions.claim(session(3).id, 'r', 0, 60_000, { maxRunningPerUser: 1 }), 'another user is not held back');
      assert.deepEqual(await sessions.runnable(0, 10), [session(2).id]);
    });

    it('adds, replaces, lists and removes workspaces', async (t) => {
      const options = await dialect.fresh(t);
      if (!options) return;
      const { composerWorkspaces: workspaces } = await open(t, options);
      const app = { name: 'app', repo: '/srv/git/app.git', branch: null, push: false, createdAt: '2026-01-01T00:00:00.000Z' };
      await workspaces.put(app);
      await workspaces.put({ ...app, name: 'api', branch: 'main', push: true });
      assert.deepEqual(await workspaces.get('app'), app);
      await workspaces.put({ ...app, push: true });
      assert.deepEqual(
        (await workspaces.list()).map((w) => [w.name, w.push, w.branch]),
        [
          ['api', true, 'main'],
          ['app', true, null],
        ],
      );
      assert.equal(await workspaces.remove('app'), true);
      assert.equal(await workspaces.remove('app'), false);
      assert.equal(await workspaces.get('app'), undefined);
    });
  });
}
