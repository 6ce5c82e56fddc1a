// Webhook delivery end to end: a durable outbox in a real SQLite file, the deliverer driven by
// a ManualClock, and a real HTTP receiver on 127.0.0.1 that checks every signature itself.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ManualClock } from '../../../src/core/clock.ts';
import { WebhookDeliverer, WebhookOutbox, type WebhookDelivererOptions, type WebhookEndpoint, type WebhookEvent } from '../../../src/core/webhooks/index.ts';
import type { Store } from '../../../src/store/index.ts';
import { waitFor } from '../../support/wait.ts';
import { independentlyVerified, openTestStore, startReceiver, tempDir, type Receiver } from './support.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

interface Rig {
  store: Store;
  clock: ManualClock;
  receiver: Receiver;
  outbox: WebhookOutbox;
  deliverer: WebhookDeliverer;
  /** The settings' webhook entries, as the deliverer reads them; tests change them. */
  settings: { webhooks: WebhookEndpoint[] };
  dataDir: string;
}

async function rig(t: TestContext, options: Partial<WebhookDelivererOptions> & { events?: string[]; secret?: string } = {}): Promise<Rig> {
  const { events = ['*'], secret = SECRET, ...delivererOptions } = options;
  const dataDir = tempDir(t);
  const store = await openTestStore(t, { dataDir });
  const clock = new ManualClock();
  const receiver = await startReceiver(t);
  const settings = { webhooks: [{ url: `${receiver.url}/hook`, events, secret }] };
  const outbox = new WebhookOutbox(store.webhooks, clock);
  const deliverer = new WebhookDeliverer({ repository: store.webhooks, endpoints: () => settings.webhooks, clock, random: () => 0.5, ...delivererOptions });
  return { store, clock, receiver, outbox, deliverer, settings, dataDir };
}

function event(type = 'git:commit', data: Record<string, unknown> = { sha: 'abc123' }): WebhookEvent {
  return { type, time: '2026-01-01T00:00:00.000Z', data, seq: 1 };
}

async function only(store: Store) {
  const entries = await store.webhooks.list({ limit: 10 });
  assert.equal(entries.length, 1);
  return entries[0]!;
}

describe('webhook delivery', () => {
  it('POSTs the event once, signed per Standard Webhooks, and logs it delivered', async (t) => {
    const { store, clock, receiver, outbox, deliverer, settings } = await rig(t);
    const [queued] = await outbox.enqueue(
      { type: 'git:commit', time: '2026-01-01T00:00:00.000Z', data: { sha: 'abc123', message: 'ünï 🧵' }, seq: 42 },
      settings.webhooks,
    );
    assert.match(queued!.id, /^msg_[0-9A-Z]{26}$/);
    assert.equal(receiver.requests.length, 0, 'nothing is sent before the worker runs');

    assert.equal(await deliverer.runDue(), 1);
    assert.equal(receiver.requests.length, 1);
    const request = receiver.requests[0]!;
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/hook');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['user-agent'], 'Loom-Webhooks/1');
    assert.equal(request.headers['webhook-id'], queued!.id);
    assert.equal(request.headers['webhook-timestamp'], String(Math.floor(clock.now() / 1000)));
    assert.match(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.ok(independentlyVerified(SECRET, request), 'the receiver verifies the signature');
    assert.ok(!independentlyVerified('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', request));
    assert.deepEqual(JSON.parse(request.body), {
      type: 'git:commit',
      timestamp: '2026-01-01T00:00:00.000Z',
      data: { sha: 'abc123', message: 'ünï 🧵' },
      seq: 42,
    });

    assert.deepEqual(await outbox.listDeliveries(), [
      {
        id: queued!.id,
        event: 'git:commit',
        url: `${receiver.url}/hook`,
        status: 'delivered',
        attempts: 1,
        lastStatus: 204,
        lastError: null,
        createdAt: new Date(clock.now()).toISOString(),
        deliveredAt: new Date(clock.now()).toISOString(),
        nextAttemptAt: null,
      },
    ]);
    assert.equal(await deliverer.runDue(), 0, 'a delivered event is not sent again');
    assert.equal(await store.webhooks.nextDueAt(), null);
  });

  it('retries a 500 with the same webhook-id on 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±20 %), then fails', async (t) => {
    let jitter = 0.5;
    const { store, clock, receiver, outbox, deliverer, settings } = await rig(t, { random: () => jitter });
    receiver.reply = () => ({ status: 500 });
    const [queued] = await outbox.enqueue(event(), settings.webhooks);
    const start = clock.now();

    const expected = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
    const factors = [1, 0.8, 1.1, 1, 0.8, 1.1, 1]; // random() of 0.5, 0, 0.75, 0.5, ...
    assert.equal(await deliverer.runDue(), 1);
    for (let i = 0; i < expected.length; i++) {
      const entry = await only(store);
      assert.equal(entry.status, 'pending');
      assert.equal(entry.attempts, i + 1);
      assert.equal(entry.lastStatus, 500);
      assert.equal(entry.lastError, 'HTTP 500');
      const wait = Date.parse(entry.nextAttemptAt!) - clock.now();
      assert.equal(wait, Math.round(expected[i]! * factors[i]!), `attempt ${i + 2}`);
      assert.ok(wait >= expected[i]! * 0.8 && wait <= expected[i]! * 1.2, `attempt ${i + 2} waits ${wait} ms, expected ${expected[i]} ±20 %`);

      clock.advance(wait - 1);
      assert.equal(await deliverer.runDue(), 0, 'not due a millisecond early');
      clock.advance(1);
      jitter = [0, 0.75, 0.5][i % 3]!;
      assert.equal(await deliverer.runDue(), 1);
    }
    const entry = await only(store);
    assert.equal(entry.status, 'failed');
    assert.equal(entry.attempts, 8);
    assert.equal(entry.nextAttemptAt, null);
    assert.match(entry.lastError!, /HTTP 500; no attempts left/);

    assert.equal(receiver.requests.length, 8);
    assert.deepEqual(new Set(receiver.requests.map((r) => r.headers['webhook-id'])), new Set([queued!.id]));
    assert.equal(new Set(receiver.requests.map((r) => r.body)).size, 1, 'every attempt sends the same bytes');
    assert.ok(
      receiver.requests.every((r) => independentlyVerified(SECRET, r)),
      'every attempt is signed afresh',
    );
    const timestamps = receiver.requests.map((r) => Number(r.headers['webhook-timestamp']));
    assert.deepEqual(
      timestamps,
      [...timestamps].sort((a, b) => a - b),
    );
    assert.equal((timestamps.at(-1)! - timestamps[0]!) * 1000, clock.now() - start, 'timestamps are those of the attempts');
    clock.advance(100 * HOUR);
    assert.equal(await deliverer.runDue(), 0);
  });

  it('applies the jitter it is given: 5 s ± 20 %', async (t) => {
    for (const [random, wait] of [
      [0, 4_000],
      [0.25, 4_500],
      [0.75, 5_500],
    ] as const) {
      const { store, clock, receiver, outbox, deliverer, settings } = await rig(t, { random: () => random });
      receiver.reply = () => ({ status: 503 });
      await outbox.enqueue(event(), settings.webhooks);
      await deliverer.runDue();
      assert.equal(Date.parse((await only(store)).nextAttemptAt!) - clock.now(), wait);
    }
  });

  it('honours a Retry-After longer than the schedule (seconds or HTTP date), capped at 24 h; ignores a shorter one', async (t) => {
    const { store, clock, receiver, outbox, deliverer, settings } = await rig(t);
    const answers: Record<string, string>[] = [
      { 'retry-after': '120' }, // longer than 5 s: wait 120 s
      { 'retry-after': '1' }, // shorter than 5 min: wait 5 min
      { 'retry-after': '' }, // replaced below with an HTTP date 3 h ahead (schedule: 30 min)
      { 'retry-after': '999999' }, // 11.6 days: capped at 24 h (schedule: 2 h)
    ];
    receiver.reply = () => {
      const headers = answers.shift()!;
      if (headers['retry-after'] === '') headers['retry-after'] = new Date(clock.now() + 3 * HOUR).toUTCString();
      return { status: 429, headers };
    };
    await outbox.enqueue(event(), settings.webhooks);
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      assert.equal(await deliverer.runDue(), 1);
      const entry = await only(store);
      assert.equal(entry.lastStatus, 429);
      const wait = Date.parse(entry.nextAttemptAt!) - clock.now();
      waits.push(wait);
      clock.advance(wait);
    }
    assert.deepEqual(waits, [120 * SECOND, 5 * MINUTE, 3 * HOUR, 24 * HOUR]);
  });

  it('disables the endpoint on 410: the pending rows end disabled, new events skip it, a new secret enables it', async (t) => {
    const { clock, receiver, outbox, deliverer, settings } = await rig(t);
    receiver.reply = () => ({ status: 410 });
    const [first] = await outbox.enqueue(event('git:commit'), settings.webhooks);
    clock.advance(1);
    const [second] = await outbox.enqueue(event('file:save'), settings.webhooks);
    assert.equal(await deliverer.runDue(), 2);
    assert.equal(receiver.requests.length, 1, 'after the 410 nothing more is sent to it');
    const log = await outbox.listDeliveries();
    assert.deepEqual(
      log.map((e) => [e.id, e.status, e.lastStatus, e.attempts]),
      [
        [second!.id, 'disabled', null, 0],
        [first!.id, 'disabled', 410, 1],
      ],
    );
    const disabled = await outbox.listDisabledEndpoints();
    assert.deepEqual(
      disabled.map((d) => d.url),
      [`${receiver.url}/hook`],
    );
    assert.match(disabled[0]!.reason, /410 Gone/);

    assert.deepEqual(await outbox.enqueue(event(), settings.webhooks), [], 'a disabled endpoint gets nothing queued');
    clock.advance(100 * HOUR);
    assert.equal(await deliverer.runDue(), 0);

    // The user edits the entry: a new secret enables the endpoint again.
    receiver.reply = () => ({ status: 200 });
    settings.webhooks = [{ ...settings.webhooks[0]!, secret: 'a brand new secret' }];
    const [third] = await outbox.enqueue(event(), settings.webhooks);
    assert.ok(third);
    assert.deepEqual(await outbox.listDisabledEndpoints(), []);
    assert.equal(await deliverer.runDue(), 1);
    assert.ok(independentlyVerified('a brand new secret', receiver.requests.at(-1)!));
    assert.equal((await outbox.listDeliveries({ limit: 1 }))[0]!.status, 'delivered');
  });

  it('can re-enable a 410 endpoint explicitly, with the same settings', async (t) => {
    const { clock, receiver, outbox, deliverer, settings } = await rig(t);
    receiver.reply = () => ({ status: 410 });
    await outbox.enqueue(event(), settings.webhooks);
    await deliverer.runDue();
    assert.equal(await outbox.enableEndpoint(settings.webhooks[0]!.url), true);
    assert.equal(await outbox.enableEndpoint(settings.webhooks[0]!.url), false);
    receiver.reply = () => ({ status: 200 });
    clock.advance(1);
    assert.equal((await outbox.enqueue(event(), settings.webhooks)).length, 1);
    assert.equal(await deliverer.runDue(), 1);
    assert.equal(receiver.requests.length, 2);
  });

  it('does not follow a 301: the redirect target gets nothing and the attempt counts as failed', async (t) => {
    const { store, receiver, outbox, deliverer, settings } = await rig(t);
    receiver.reply = (r) => (r.path === '/hook' ? { status: 301, headers: { location: `${receiver.url}/elsewhere` } } : { status: 200 });
    await outbox.enqueue(event(), settings.webhooks);
    assert.equal(await deliverer.runDue(), 1);
    assert.deepEqual(
      receiver.requests.map((r) => r.path),
      ['/hook'],
    );
    const entry = await only(store);
    assert.equal(entry.status, 'pending');
    assert.equal(entry.attempts, 1);
    assert.equal(entry.lastStatus, 301);
    assert.equal(entry.lastError, `redirect to ${receiver.url}/elsewhere not followed`);
  });

  it('gives up on a receiver that does not answer within the timeout and tries again later', async (t) => {
    const { store, receiver, outbox, deliverer, settings } = await rig(t, { timeoutMs: 150 });
    receiver.reply = () => 'hang';
    await outbox.enqueue(event(), settings.webhooks);
    // The receiver never answers: only the time limit can end the attempt.
    assert.equal(await deliverer.runDue(), 1);
    const entry = await only(store);
    assert.equal(entry.status, 'pending');
    assert.equal(entry.lastStatus, null);
    assert.equal(entry.lastError, 'timed out after 150 ms');
    assert.equal(receiver.requests.length, 1);
  });

  it('ends a fetch that ignores its abort signal at the timeout too', async (t) => {
    const { store, outbox, deliverer, settings } = await rig(t, { timeoutMs: 50, fetch: () => new Promise<Response>(() => {}) });
    await outbox.enqueue(event(), settings.webhooks);
    assert.equal(await deliverer.runDue(), 1);
    assert.equal((await only(store)).lastError, 'timed out after 50 ms');
  });

  it('records a refused connection as a failed attempt', async (t) => {
    const { store, outbox, deliverer, settings } = await rig(t);
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    settings.webhooks = [{ url: `http://127.0.0.1:${port}/`, events: ['*'], secret: SECRET }];
    await outbox.enqueue(event(), settings.webhooks);
    assert.equal(await deliverer.runDue(), 1);
    const entry = await only(store);
    assert.equal(entry.status, 'pending');
    assert.equal(entry.lastError, 'request failed: ECONNREFUSED');
  });

  it('sends each event only to the endpoints that subscribe to it, once per URL', async (t) => {
    const { store, receiver, outbox, clock } = await rig(t);
    const url = (name: string) => `${receiver.url}/${name}`;
    const endpoints: WebhookEndpoint[] = [
      { url: url('commits'), events: ['git:commit'], secret: 'a' },
      { url: url('everything'), events: ['*'], secret: 'b' },
      { url: url('agents'), events: ['agent:start', 'agent:complete'], secret: 'c' },
      { url: url('saves'), events: ['file:save', 'file:open'], secret: 'd' },
      { url: url('agents'), events: ['agent:complete'], secret: 'duplicate' },
      { url: url('nothing'), events: [], secret: 'e' },
      { url: 'ftp://127.0.0.1/unusable', events: ['*'], secret: 'f' },
      { url: url('no-secret'), events: ['*'], secret: '' },
    ];
    const deliverTo = new WebhookDeliverer({ repository: store.webhooks, endpoints: () => endpoints, clock });
    const sent = async (type: string) => {
      receiver.requests.length = 0;
      await outbox.enqueue(event(type), endpoints);
      await deliverTo.runDue();
      return receiver.requests.map((r) => r.path).sort();
    };
    assert.deepEqual(await sent('agent:complete'), ['/agents', '/everything']);
    assert.deepEqual(await sent('git:commit'), ['/commits', '/everything']);
    assert.deepEqual(await sent('file:open'), ['/everything', '/saves']);
    assert.deepEqual(await sent('ai:complete'), ['/everything']);
    receiver.requests.length = 0;
    await outbox.enqueue(event('agent:start'), endpoints);
    await deliverTo.runDue();
    const toAgents = receiver.requests.find((r) => r.path === '/agents')!;
    assert.ok(independentlyVerified('c', toAgents), 'the first entry for a URL signs');
  });

  it('abandons a queued delivery whose endpoint left the settings or stopped subscribing, sending nothing', async (t) => {
    const { store, receiver, outbox, deliverer, settings } = await rig(t, { events: ['git:commit', 'file:save'] });
    const [gone] = await outbox.enqueue(event('git:commit'), settings.webhooks);
    const [unsubscribed] = await outbox.enqueue(event('file:save'), settings.webhooks);
    settings.webhooks = [{ ...settings.webhooks[0]!, events: ['git:commit'] }];
    await deliverer.runDue();
    // git:commit was delivered; file:save is no longer wanted.
    const byId = new Map((await store.webhooks.list({ limit: 10 })).map((e) => [e.id, e]));
    assert.equal(byId.get(gone!.id)!.status, 'delivered');
    assert.equal(byId.get(unsubscribed!.id)!.status, 'abandoned');
    assert.equal(byId.get(unsubscribed!.id)!.attempts, 0);
    assert.match(byId.get(unsubscribed!.id)!.lastError!, /no longer subscribes to file:save/);

    const [removed] = await outbox.enqueue(event('git:commit'), settings.webhooks);
    settings.webhooks = [];
    receiver.requests.length = 0;
    await deliverer.runDue();
    assert.equal(receiver.requests.length, 0);
    const entry = (await store.webhooks.list({ limit: 1 }))[0]!;
    assert.equal(entry.id, removed!.id);
    assert.equal(entry.status, 'abandoned');
    assert.equal(entry.lastError, 'the endpoint was removed from the settings');
  });

  it('loses nothing across a crash: enqueued, store closed undelivered, reopened, delivered by a new worker', async (t) => {
    const { store, clock, receiver, outbox, settings, dataDir } = await rig(t);
    const [queued] = await outbox.enqueue(event(), settings.webhooks);
    await store.close(); // the process "dies" before any attempt

    const reopened = await openTestStore(t, { dataDir });
    const worker = new WebhookDeliverer({ repository: reopened.webhooks, endpoints: () => settings.webhooks, clock });
    assert.equal(await worker.runDue(), 1);
    assert.equal(receiver.requests.length, 1);
    assert.equal(receiver.requests[0]!.headers['webhook-id'], queued!.id);
    assert.ok(independentlyVerified(SECRET, receiver.requests[0]!));
    assert.equal((await only(reopened)).status, 'delivered');
  });

  it('sends again a delivery whose worker died holding it, once the lease expires; the late worker cannot overwrite', async (t) => {
    const { store, clock, receiver, settings, outbox } = await rig(t);
    const [queued] = await outbox.enqueue(event(), settings.webhooks);
    // A worker claims it and dies without finishing.
    const [claim] = await store.webhooks.claimDue({ now: clock.now(), leaseUntil: clock.now() + MINUTE, limit: 10, claimToken: 'dead-worker' });
    assert.equal(claim!.id, queued!.id);
    assert.equal(await store.webhooks.nextDueAt(), clock.now() + MINUTE);

    const survivor = new WebhookDeliverer({ repository: store.webhooks, endpoints: () => settings.webhooks, clock, leaseMs: MINUTE });
    clock.advance(MINUTE - 1);
    assert.equal(await survivor.runDue(), 0, 'the lease still runs');
    clock.advance(1);
    assert.equal(await survivor.runDue(), 1);
    assert.equal(receiver.requests.length, 1);
    assert.equal(receiver.requests[0]!.headers['webhook-id'], queued!.id);
    const entry = await only(store);
    assert.equal(entry.status, 'delivered');
    assert.equal(entry.attempts, 2, 'the lost attempt counts');

    const late = await store.webhooks.complete(queued!.id, 'dead-worker', {
      status: 'pending',
      nextAttemptAt: clock.now(),
      lastStatus: 500,
      lastError: 'HTTP 500',
    });
    assert.equal(late, false);
    assert.equal((await only(store)).status, 'delivered');
  });

  it('starts no attempt that could outlast its lease; the row goes back unattempted', async (t) => {
    let clock!: ManualClock;
    const sent: string[] = [];
    // Each request takes (on the clock) as long as the whole lease.
    const slowFetch: typeof fetch = async (_url, init) => {
      sent.push(new Headers(init!.headers).get('webhook-id')!);
      clock.advance(MINUTE);
      return new Response(null, { status: 200 });
    };
    const r = await rig(t, { fetch: slowFetch, leaseMs: MINUTE, timeoutMs: 10 * SECOND });
    clock = r.clock;
    const [a] = await r.outbox.enqueue(event(), r.settings.webhooks);
    const [b] = await r.outbox.enqueue(event(), r.settings.webhooks);
    assert.equal(await r.deliverer.runDue(), 2);
    assert.deepEqual(sent, [a!.id]);
    const byId = new Map((await r.store.webhooks.list({ limit: 10 })).map((e) => [e.id, e]));
    assert.equal(byId.get(a!.id)!.status, 'delivered');
    assert.deepEqual([byId.get(b!.id)!.status, byId.get(b!.id)!.attempts], ['pending', 0]);
    assert.equal(await r.deliverer.runDue(), 1);
    assert.deepEqual(sent, [a!.id, b!.id]);
  });

  it('never sends one delivery twice when two workers run at once', async (t) => {
    const { store, clock, receiver, outbox, settings } = await rig(t);
    for (let i = 0; i < 30; i++) await outbox.enqueue(event('file:save', { i }), settings.webhooks);
    const workers = [1, 2, 3].map(() => new WebhookDeliverer({ repository: store.webhooks, endpoints: () => settings.webhooks, clock, batchSize: 4 }));
    const handled = await Promise.all(workers.map((w) => w.runDue()));
    assert.equal(
      handled.reduce((a, b) => a + b, 0),
      30,
    );
    assert.equal(receiver.requests.length, 30);
    assert.equal(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size, 30);
    assert.deepEqual((await store.webhooks.list({ limit: 100, status: 'delivered' })).length, 30);
  });

  it('keeps no secret in the database files', async (t) => {
    const plain = 'plain-secret-Zq8Xv3Lm9Pw2';
    const { store, receiver, clock, outbox, deliverer, settings, dataDir } = await rig(t, { secret: plain });
    settings.webhooks.push({ url: `${receiver.url}/second`, events: ['*'], secret: SECRET });
    let n = 0;
    receiver.reply = () => ({ status: [500, 410, 200][n++ % 3]! });
    for (let i = 0; i < 3; i++) {
      await outbox.enqueue(event(), settings.webhooks);
      await deliverer.runDue();
      clock.advance(HOUR);
      await deliverer.runDue();
    }
    assert.ok((await outbox.listDisabledEndpoints()).length > 0, 'a 410 was recorded');
    const signatures = receiver.requests.map((r) => String(r.headers['webhook-signature']).slice(3));
    await store.close();
    const files = fs.readdirSync(dataDir).map((name) => path.join(dataDir, name));
    assert.ok(files.some((f) => f.endsWith('loom.db')));
    const bytes = Buffer.concat(files.map((f) => fs.readFileSync(f)));
    for (const needle of [plain, SECRET, 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', ...signatures]) {
      assert.equal(bytes.includes(Buffer.from(needle)), false, `${needle} is in the database`);
    }
    assert.equal(bytes.includes(Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64')), false, 'the key bytes are in the database');
    assert.ok(bytes.includes(Buffer.from('/second')), 'the check reads the data it should');
  });

  it('pages the delivery log, filters it by status, hides passwords in URLs', async (t) => {
    const { clock, receiver, outbox, deliverer, settings } = await rig(t);
    settings.webhooks = [{ url: receiver.url.replace('http://', 'http://user:pa55word@') + '/hook', events: ['*'], secret: SECRET }];
    receiver.reply = (r) => (JSON.parse(r.body).data.n % 2 ? { status: 500 } : { status: 200 });
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) {
      ids.push((await outbox.enqueue(event('file:save', { n }), settings.webhooks))[0]!.id);
      clock.advance(1);
    }
    await deliverer.runDue();
    const page = async (options: Parameters<WebhookOutbox['listDeliveries']>[0]) => (await outbox.listDeliveries(options)).map((e) => e.id);
    assert.deepEqual(await page({ limit: 2 }), [ids[4], ids[3]]);
    assert.deepEqual(await page({ limit: 2, before: ids[3] }), [ids[2], ids[1]]);
    assert.deepEqual(await page({ status: 'pending' }), [ids[3], ids[1]]);
    assert.deepEqual(await page({ status: 'delivered', before: ids[4] }), [ids[2], ids[0]]);
    const [entry] = await outbox.listDeliveries({ limit: 1 });
    assert.ok(!entry!.url.includes('pa55word'));
    assert.ok(entry!.url.includes('user:***@'));
    assert.equal(receiver.requests[0]!.headers.authorization, `Basic ${Buffer.from('user:pa55word').toString('base64')}`);
    assert.ok(!JSON.stringify(await outbox.listDeliveries()).includes('v1,'));
    await assert.rejects(outbox.listDeliveries({ before: 'msg_nope' }), { code: 'not_found' });
    await assert.rejects(outbox.listDeliveries({ limit: 0 }), { code: 'validation_error' });
    await assert.rejects(outbox.listDeliveries({ status: 'lost' as never }), { code: 'validation_error' });
  });

  it('runs by itself once started: delivers on enqueue, retries when due, stops cleanly', async (t) => {
    const dataDir = tempDir(t);
    const store = await openTestStore(t, { dataDir });
    const receiver = await startReceiver(t);
    const settings = { webhooks: [{ url: `${receiver.url}/hook`, events: ['*'], secret: SECRET }] };
    const outbox = new WebhookOutbox(store.webhooks);
    let failures = 1;
    receiver.reply = () => (failures-- > 0 ? { status: 503 } : { status: 200 });
    // A real clock and a short schedule, so that the loop's own timers do the waiting.
    const errors: unknown[] = [];
    const deliverer = new WebhookDeliverer({
      repository: store.webhooks,
      endpoints: () => settings.webhooks,
      schedule: [200],
      pollIntervalMs: 10_000,
      onError: (e) => errors.push(e),
    });
    outbox.onEnqueue(() => deliverer.nudge());
    deliverer.start();
    t.after(() => deliverer.stop());
    const [queued] = await outbox.enqueue(event(), settings.webhooks);
    await waitFor(async () => (await store.webhooks.list({ limit: 1 }))[0]?.status === 'delivered');
    await deliverer.stop();
    assert.deepEqual(errors, []);
    assert.equal(receiver.requests.length, 2, 'a 503, then the retry 200 ms later');
    assert.ok(receiver.requests.every((r) => r.headers['webhook-id'] === queued!.id));
    const entry = await only(store);
    assert.equal(entry.status, 'delivered');
    assert.equal(entry.attempts, 2);
  });
});
