// Webhooks from settings.json, end to end: an editor action emits an event, the webhook is
// queued durably before the request answers, delivered signed (Standard Webhooks), logged, and
// delivered after a restart when the first process died mid-delivery.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { WebhookDeliverer } from '../../src/core/webhooks/index.ts';
import { independentlyVerified, startReceiver } from '../core/webhooks/support.ts';
import { startTestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const token = 'loom_webhook_test_token_0123456789abcdef';

describe('webhooks from settings', () => {
  it('delivers the events each entry names, signed, and logs the delivery', async (t) => {
    const receiver = await startReceiver(t);
    const local = await startTestLocal({
      files: { 'a.txt': 'hello\n' },
      settings: {
        apiToken: token,
        webhooks: [
          { url: `${receiver.url}/saves`, events: ['file:save'], secret: SECRET },
          { url: `${receiver.url}/opens`, events: ['file:open'], secret: 'plain-text-secret' },
        ],
      },
    });
    t.after(() => local.close());
    await local.request('POST', '/api/editor/open', { path: 'a.txt' });
    await local.request('POST', '/api/editor/insert', { text: 'more ' });
    await local.request('POST', '/api/editor/save', {});
    await waitFor(() => receiver.requests.length === 2);

    const byPath = Object.fromEntries(receiver.requests.map((r) => [r.path, r]));
    const save = byPath['/saves']!;
    assert.ok(independentlyVerified(SECRET, save), 'signature verifies by the Standard Webhooks algorithm');
    assert.ok(independentlyVerified('plain-text-secret', byPath['/opens']!));
    assert.match(String(save.headers['webhook-id']), /^msg_/);
    const body = JSON.parse(save.body);
    assert.equal(body.type, 'file:save');
    assert.equal(body.data.path, 'a.txt');

    await waitFor(async () =>
      (await local.request('GET', '/api/webhooks/deliveries')).json.deliveries.every((d: { status: string }) => d.status === 'delivered'),
    );
    const log = (await local.request('GET', '/api/webhooks/deliveries')).json.deliveries;
    assert.equal(log.length, 2);
    assert.ok(!JSON.stringify(log).includes(SECRET.slice(6)), 'no secret in the log');
  });

  it('retries with the same webhook-id after a failure', async (t) => {
    const receiver = await startReceiver(t);
    let calls = 0;
    receiver.reply = () => (++calls === 1 ? { status: 503 } : { status: 200 });
    const local = await startTestLocal({
      files: { 'a.txt': 'x' },
      settings: { apiToken: token, webhooks: [{ url: receiver.url, events: ['*'], secret: SECRET }] },
    });
    t.after(() => local.close());
    await local.request('POST', '/api/editor/open', { path: 'a.txt' });
    // Until the failed attempt is recorded, the delivery is leased to it and not due again.
    const deliveries = async () => (await local.request('GET', '/api/webhooks/deliveries')).json.deliveries as { lastStatus: number | null; status: string }[];
    await waitFor(async () => (await deliveries()).some((d) => d.lastStatus === 503 && d.status === 'pending'));
    local.clock.advance(7_000); // past the first backoff (5 s ± 20 %)
    await local.webhooks.runDue();
    await waitFor(() => receiver.requests.length === 2);
    assert.equal(receiver.requests[0]!.headers['webhook-id'], receiver.requests[1]!.headers['webhook-id']);
  });

  it('delivers after a restart what a process that died mid-delivery had queued', async (t) => {
    const receiver = await startReceiver(t);
    receiver.reply = () => 'hang';
    const [workspace, configDir, dataDir] = ['ws', 'cfg', 'data'].map((name) => fs.mkdtempSync(path.join(os.tmpdir(), `loom-restart-${name}-`)));
    t.after(() => [workspace, configDir, dataDir].forEach((dir) => fs.rmSync(dir!, { recursive: true, force: true })));
    const first = await startTestLocal({
      workspace,
      configDir,
      dataDir,
      files: { 'a.txt': 'x' },
      settings: { apiToken: token, webhooks: [{ url: receiver.url, events: ['file:open'], secret: SECRET }] },
    });
    const opened = await first.request('POST', '/api/editor/open', { path: 'a.txt' });
    assert.equal(opened.status, 200, 'acknowledged: the delivery is on disk');
    await waitFor(() => receiver.requests.length === 1);
    // The process goes away while the delivery hangs.
    await first.close();

    receiver.reply = () => ({ status: 200 });
    const second = await startTestLocal({ workspace, configDir, dataDir, clock: first.clock });
    t.after(() => second.close());
    second.clock.advance(10 * 60_000); // past the abandoned attempt's lease and its backoff
    await second.webhooks.runDue();
    await waitFor(() => receiver.requests.length >= 2);
    const [lost, delivered] = receiver.requests;
    assert.equal(lost!.headers['webhook-id'], delivered!.headers['webhook-id'], 'the same message, at least once');
    assert.ok(independentlyVerified(SECRET, delivered!));
    assert.ok(second.webhooks instanceof WebhookDeliverer);
  });
});
