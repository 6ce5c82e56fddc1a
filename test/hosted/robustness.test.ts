// Bad input of any shape gets a 4xx in the Error shape: never a 5xx, never a crash.
// A seeded generator throws a few hundred malformed requests at a real server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadCatalog } from '../../src/core/catalog/load.ts';
import { startTestHosted, type TestHosted } from '../support/hosted.ts';
import { respond, startUpstream, type Upstream } from '../support/upstream.ts';
import { seeded as random } from '../support/random.ts';

const PATHS = [
  '/api/v1/health',
  '/api/v1/download',
  '/api/v1/download/ide/linux-x64',
  '/api/v1/download/%F0%9F%98%80/%00',
  '/api/v1/models',
  '/api/v1/feedback',
  '/api/feedback',
  '/docs/api/v1/feedback',
  '/api/v1/download/ide/',
  '/api/v1/download?product[]=ide',
  '/api/v1/download?platform=%FF',
  '/api/v1/%2e%2e/%2e%2e/etc/passwd',
  '/api/v1/download/../../health',
  '/openapi.json?x=' + 'y'.repeat(3000),
  '/api/v9/health',
  '//api//v1//health',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=latin1',
  'text/plain',
  'multipart/form-data; boundary=x',
  '',
  'application/x-www-form-urlencoded',
  'application/json;;;',
  '*/*',
];
const BODIES = [
  '{"name":"a","email":"a@b.co","subject":"s","message":"m"}',
  '{"name":"\\ud800","email":"a@b.co","subject":"\\udfff","message":"m"}',
  '{"name":1e999,"email":[],"subject":{},"message":true}',
  '{' + '"a":{'.repeat(2000) + '}'.repeat(2001),
  '['.repeat(5000),
  '\u0000\u0001\u0002',
  '{"name":"a","name":"b"}',
  '{"email":"' + 'a'.repeat(300) + '@example.com"}',
  '',
];

describe('malformed requests', () => {
  let hosted: TestHosted;
  let upstream: Upstream;
  before(async () => {
    // Release checks go to a loopback code host, so any 5xx seen here comes from bad input.
    upstream = await startUpstream();
    upstream.behave('/release', respond(200));
    const catalog = loadCatalog();
    for (const asset of catalog.products.flatMap((p) => p.assets)) asset.url = `${upstream.url}/release`;
    hosted = await startTestHosted({ catalog, rateLimit: { max: 1_000_000, windowSeconds: 60 } });
  });
  after(async () => {
    await hosted.close();
    await upstream.close();
  });

  it('never answer 5xx and always answer errors in the Error shape', async () => {
    const next = random(20261121);
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
    const failures: string[] = [];
    for (let i = 0; i < 400; i++) {
      const method = pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']);
      const path = pick(PATHS);
      const headers: Record<string, string> = {};
      if (next() < 0.7) headers['content-type'] = pick(CONTENT_TYPES);
      if (next() < 0.3) headers['api-version'] = pick(['v1', 'v2', 'v99', '', 'v1 ', 'V1']);
      const body = method === 'GET' || method === 'HEAD' ? undefined : next() < 0.2 ? Buffer.from([0xff, 0xfe, 0x00, 0xc3]) : pick(BODIES);
      const res = await fetch(hosted.url + path, { method, headers, body });
      const text = await res.text();
      const label = `${method} ${path.slice(0, 60)} [${headers['content-type'] ?? '-'}] → ${res.status}`;
      if (res.status >= 500) failures.push(`${label} ${text.slice(0, 200)}`);
      if (res.status >= 400 && method !== 'HEAD') {
        const parsed = JSON.parse(text);
        if (typeof parsed.error !== 'string' || typeof parsed.message !== 'string') failures.push(`${label} not in the Error shape: ${text.slice(0, 200)}`);
        if (/\n\s+at /.test(text)) failures.push(`${label} leaks a stack trace`);
      }
    }
    assert.deepEqual(failures, []);
    assert.equal((await fetch(`${hosted.url}/api/v1/health`)).status, 200, 'still serving');
  });
});
