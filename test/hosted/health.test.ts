import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOOM_VERSION } from '../../src/config/version.ts';
import { startTestHosted, type TestHosted } from '../support/hosted.ts';

describe('getHealth', () => {
  let hosted: TestHosted;
  before(async () => {
    hosted = await startTestHosted();
  });
  after(() => hosted.close());

  it('reports ok, version and uptime from the clock, with API-Version v1 by default', async () => {
    hosted.clock.advance(12_500);
    const res = await fetch(`${hosted.url}/api/v1/health`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('api-version'), 'v1');
    assert.deepEqual(await res.json(), { ok: true, version: LOOM_VERSION, uptime: 12.5 });
  });

  it('serves v2 on request, with the store check', async () => {
    const res = await fetch(`${hosted.url}/api/v1/health`, { headers: { 'API-Version': 'v2' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('api-version'), 'v2');
    const body = await res.json();
    assert.equal(body.ok, true);
    assert.equal(body.checks.store.ok, true);
    assert.equal(typeof body.checks.store.latencyMs, 'number');
  });

  for (const asked of ['v3', 'v0', '1', 'banana', 'v1,v2']) {
    it(`refuses API-Version ${asked} with 400 unsupported_version`, async () => {
      const res = await fetch(`${hosted.url}/api/v1/health`, { headers: { 'API-Version': asked } });
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.error, 'unsupported_version');
      assert.match(body.hint, /v1, v2/);
      assert.ok(res.headers.get('ratelimit-limit'));
    });
  }

  it('reports an unreachable store in v2 as ok: false', async () => {
    const local = await startTestHosted();
    await local.store.close();
    const res = await fetch(`${local.url}/api/v1/health`, { headers: { 'API-Version': 'v2' } });
    const body = await res.json();
    assert.equal(res.status, 200);
    assert.equal(body.ok, false);
    assert.equal(body.checks.store.ok, false);
    await local.close();
  });
});
