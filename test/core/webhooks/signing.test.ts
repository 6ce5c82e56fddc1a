import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { subscribes, webhookEndpointProblem } from '../../../src/core/webhooks/endpoints.ts';
import { newMessageId, webhookPayload } from '../../../src/core/webhooks/outbox.ts';
import { backoffDelay, DEFAULT_RETRY_SCHEDULE_MS, nextDelay, parseRetryAfter } from '../../../src/core/webhooks/retry.ts';
import { decodeSecret, secretFingerprint, signWebhook, verifyWebhook, WebhookSecretError } from '../../../src/core/webhooks/signing.ts';

// The test vector published with the Standard Webhooks reference libraries.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('signWebhook', () => {
  it('reproduces the Standard Webhooks test vector', () => {
    assert.equal(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body), VECTOR.signature);
    assert.equal(signWebhook(VECTOR.secret, VECTOR.id, String(VECTOR.timestamp), Buffer.from(VECTOR.body)), VECTOR.signature);
  });

  it('agrees with HMAC-SHA256 computed independently, for whsec_ and plain secrets', () => {
    const key = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64');
    const body = '{"type":"git:commit","data":{"é":"ü 🧵"}}';
    const expected = createHmac('sha256', key).update(`msg_1.1700000000.${body}`).digest('base64');
    assert.equal(signWebhook(VECTOR.secret, 'msg_1', 1700000000, body), `v1,${expected}`);

    const plain = 'correct horse battery staple';
    const plainExpected = createHmac('sha256', Buffer.from(plain, 'utf8')).update(`msg_1.1700000000.${body}`).digest('base64');
    assert.equal(signWebhook(plain, 'msg_1', 1700000000, body), `v1,${plainExpected}`);
    // A plain secret is the same key as whsec_ + base64 of its bytes.
    assert.equal(signWebhook(`whsec_${Buffer.from(plain).toString('base64')}`, 'msg_1', 1700000000, body), `v1,${plainExpected}`);
  });

  it('refuses an empty secret and a whsec_ secret that is not base64, without echoing it', () => {
    assert.throws(() => decodeSecret(''), WebhookSecretError);
    for (const bad of ['whsec_', 'whsec_not base64!', 'whsec_abcde']) {
      assert.throws(
        () => signWebhook(bad, 'msg_1', 1, '{}'),
        (error: Error) => error instanceof WebhookSecretError && !error.message.includes(bad.slice('whsec_'.length) || '\0'),
      );
    }
    assert.throws(() => signWebhook('s', 'msg_1', 1.5, '{}'), RangeError);
  });
});

describe('verifyWebhook', () => {
  const headers = { 'webhook-id': VECTOR.id, 'webhook-timestamp': String(VECTOR.timestamp), 'webhook-signature': VECTOR.signature };
  const now = VECTOR.timestamp * 1000;

  it('accepts the vector, with plain objects or Headers, and among several signatures', () => {
    assert.equal(verifyWebhook(VECTOR.secret, headers, VECTOR.body, { now }), true);
    assert.equal(verifyWebhook(VECTOR.secret, new Headers(headers), VECTOR.body, { now }), true);
    const rotated = { ...headers, 'Webhook-Signature': `v1,bm9wZQ== v2,abc ${VECTOR.signature}` };
    delete (rotated as Record<string, string>)['webhook-signature'];
    assert.equal(verifyWebhook(VECTOR.secret, rotated, VECTOR.body, { now }), true);
  });

  it('rejects another body, id, secret, version, and a timestamp out of tolerance', () => {
    assert.equal(verifyWebhook(VECTOR.secret, headers, '{"test": 2432232315}', { now }), false);
    assert.equal(verifyWebhook(VECTOR.secret, { ...headers, 'webhook-id': 'msg_other' }, VECTOR.body, { now }), false);
    assert.equal(verifyWebhook('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', headers, VECTOR.body, { now }), false);
    assert.equal(verifyWebhook(VECTOR.secret, { ...headers, 'webhook-signature': VECTOR.signature.replace('v1,', 'v2,') }, VECTOR.body, { now }), false);
    assert.equal(verifyWebhook(VECTOR.secret, headers, VECTOR.body, { now: now + 301_000 }), false);
    assert.equal(verifyWebhook(VECTOR.secret, headers, VECTOR.body, { now: now - 301_000 }), false);
    assert.equal(verifyWebhook(VECTOR.secret, headers, VECTOR.body, { now: now + 3_600_000, toleranceSeconds: 3600 }), true);
    assert.equal(verifyWebhook(VECTOR.secret, { 'webhook-id': VECTOR.id }, VECTOR.body, { now }), false);
  });
});

describe('secretFingerprint', () => {
  it('is stable, differs per secret and does not contain the secret', () => {
    assert.equal(secretFingerprint('s3cret'), secretFingerprint('s3cret'));
    assert.notEqual(secretFingerprint('s3cret'), secretFingerprint('s3cret2'));
    assert.ok(!secretFingerprint(VECTOR.secret).includes('MfKQ9r8G'));
  });
});

describe('event subscriptions', () => {
  const endpoint = (events: string[]) => ({ url: 'http://127.0.0.1/', events, secret: 's' });
  it('matches exact names and "*"', () => {
    assert.equal(subscribes(endpoint(['git:commit']), 'git:commit'), true);
    assert.equal(subscribes(endpoint(['git:commit']), 'file:save'), false);
    assert.equal(subscribes(endpoint(['*']), 'file:save'), true);
    assert.equal(subscribes(endpoint(['agent:*']), 'agent:complete'), false, 'no namespace wildcards');
    assert.equal(subscribes(endpoint([]), 'file:save'), false);
  });

  it('names what is wrong with an unusable entry', () => {
    assert.equal(webhookEndpointProblem(endpoint(['*'])), null);
    assert.match(webhookEndpointProblem({ ...endpoint(['*']), url: 'ftp://x/' })!, /http/);
    assert.match(webhookEndpointProblem({ ...endpoint(['*']), url: 'not a url' })!, /absolute/);
    assert.match(webhookEndpointProblem({ ...endpoint(['*']), secret: '' })!, /empty/);
  });
});

describe('retry schedule', () => {
  it('follows 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h within ±20 %, then stops', () => {
    const expected = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
    assert.deepEqual([...DEFAULT_RETRY_SCHEDULE_MS], expected);
    expected.forEach((base, i) => {
      assert.equal(
        backoffDelay(i + 1, DEFAULT_RETRY_SCHEDULE_MS, () => 0),
        base * 0.8,
      );
      assert.equal(
        backoffDelay(i + 1, DEFAULT_RETRY_SCHEDULE_MS, () => 0.5),
        base,
      );
      assert.ok(backoffDelay(i + 1, DEFAULT_RETRY_SCHEDULE_MS, () => 0.9999999)! <= base * 1.2);
    });
    assert.equal(
      backoffDelay(8, DEFAULT_RETRY_SCHEDULE_MS, () => 0.5),
      null,
    );
  });

  it('reads Retry-After as seconds or an HTTP date, and lets it only lengthen the wait, up to the cap', () => {
    const now = Date.UTC(2026, 0, 1);
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter(new Date(now + 90_000).toUTCString(), now), 90_000);
    assert.equal(parseRetryAfter(new Date(now - 90_000).toUTCString(), now), 0);
    for (const junk of [null, '', '-5', '1.5', 'soon', '12:00']) assert.equal(parseRetryAfter(junk, now), null);
    assert.equal(nextDelay(5_000, 120_000, 86_400_000), 120_000);
    assert.equal(nextDelay(5_000, 1_000, 86_400_000), 5_000);
    assert.equal(nextDelay(5_000, null, 86_400_000), 5_000);
    assert.equal(nextDelay(5_000, 10 * 86_400_000, 86_400_000), 86_400_000);
  });
});

describe('payload and ids', () => {
  it('serializes {type, timestamp, data, seq?}', () => {
    const time = '2026-01-01T00:00:00.000Z';
    assert.deepEqual(JSON.parse(webhookPayload({ type: 'git:commit', time, data: { sha: 'abc' }, seq: 7 }, 0)), {
      type: 'git:commit',
      timestamp: time,
      data: { sha: 'abc' },
      seq: 7,
    });
    assert.deepEqual(Object.keys(JSON.parse(webhookPayload({ type: 'file:save', data: {} }, Date.UTC(2026, 0, 1)))), ['type', 'timestamp', 'data']);
  });

  it('makes unique, time-ordered msg_ ids', () => {
    const a = newMessageId(Date.UTC(2026, 0, 1));
    const b = newMessageId(Date.UTC(2026, 0, 1) + 1);
    assert.match(a, /^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.ok(a < b);
    assert.notEqual(newMessageId(0), newMessageId(0));
  });
});
