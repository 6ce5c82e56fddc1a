// Rules that hold on every hosted response: rate limits, the Error shape, 404/405,
// versioned and deprecated paths, malformed requests.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { post, startTestHosted, type TestHosted } from '../support/hosted.ts';
import { redisClient } from '../support/services.ts';

function assertRateLimitHeaders(res: Response, label: string) {
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
    assert.match(res.headers.get(name) ?? '', /^\d+$/, `${label}: ${name}`);
  }
}

async function assertErrorShape(res: Response, code: string) {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = await res.json();
  assert.equal(body.error, code);
  assert.equal(typeof body.message, 'string');
  for (const key of Object.keys(body)) assert.ok(['error', 'message', 'hint', 'details'].includes(key), `unexpected ${key}`);
  return body;
}

describe('every hosted response', () => {
  let hosted: TestHosted;
  before(async () => {
    hosted = await startTestHosted({ bodyLimit: 2048 });
  });
  after(() => hosted.close());

  const cases: [string, () => Promise<Response>, number][] = [
    ['health', () => fetch(`${hosted.url}/api/v1/health`), 200],
    ['models', () => fetch(`${hosted.url}/api/v1/models`), 200],
    ['openapi', () => fetch(`${hosted.url}/openapi.json`), 200],
    ['llms.txt', () => fetch(`${hosted.url}/llms.txt`), 200],
    ['validation error', () => fetch(`${hosted.url}/api/v1/download?product=nope`), 400],
    ['unknown route', () => fetch(`${hosted.url}/nowhere`), 404],
    ['wrong method', () => fetch(`${hosted.url}/api/v1/health`, { method: 'DELETE' }), 405],
    ['oversized body', () => post(`${hosted.url}/api/v1/feedback`, { message: 'x'.repeat(4096) }), 413],
    ['wrong content type', () => post(`${hosted.url}/api/v1/feedback`, 'hi', 'text/plain'), 415],
    ['malformed percent-encoding', () => fetch(`${hosted.url}/api/v1/download/%zz/linux-x64`), 400],
  ];
  for (const [label, request, status] of cases) {
    it(`carries RateLimit headers: ${label} (${status})`, async () => {
      const res = await request();
      assert.equal(res.status, status);
      assertRateLimitHeaders(res, label);
      if (status >= 400) await assertErrorShape(res, (await res.clone().json()).error);
    });
  }

  it('answers an unknown route with 404 not_found', async () => {
    const res = await fetch(`${hosted.url}/api/v1/nothing-here`);
    assert.equal(res.status, 404);
    await assertErrorShape(res, 'not_found');
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await fetch(`${hosted.url}/api/v1/feedback`);
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
    await assertErrorShape(res, 'method_not_allowed');
    const put = await fetch(`${hosted.url}/api/v1/download/ide/linux-x64`, { method: 'PUT' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, HEAD');
  });

  it('answers an unserved version path with 400 unsupported_version', async () => {
    const res = await fetch(`${hosted.url}/api/v2/health`);
    assert.equal(res.status, 400);
    const body = await assertErrorShape(res, 'unsupported_version');
    assert.match(body.hint, /\/api\/v1/);
  });

  it('answers malformed percent-encoding with 400 bad_request', async () => {
    const res = await fetch(`${hosted.url}/api/v1/download/%zz/linux-x64`);
    await assertErrorShape(res, 'bad_request');
  });

  it('answers HEAD on GET operations without a body', async () => {
    const res = await fetch(`${hosted.url}/api/v1/models`, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '');
    assertRateLimitHeaders(res, 'HEAD');
  });

  it('answers malformed HTTP with 400 in the Error shape and keeps serving', async () => {
    const port = new URL(hosted.url).port;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('GARBAGE \x00\x01 HTTP/9\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    assert.match(raw, /^HTTP\/1\.1 400/);
    assert.equal(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)).error, 'bad_request');
    assert.equal((await fetch(`${hosted.url}/api/v1/health`)).status, 200);
  });
});

describe('versioned, mirrored and deprecated paths', () => {
  let hosted: TestHosted;
  before(async () => {
    hosted = await startTestHosted();
  });
  after(() => hosted.close());

  it('serves /api/v1 without deprecation headers', async () => {
    const res = await fetch(`${hosted.url}/api/v1/download`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('deprecation'), null);
    assert.equal(res.headers.get('sunset'), null);
  });

  for (const path of ['/health', '/download?product=ide', '/models']) {
    it(`maps /api${path} to v1 with Deprecation, Sunset and a successor link`, async () => {
      const [old, current] = await Promise.all([fetch(`${hosted.url}/api${path}`), fetch(`${hosted.url}/api/v1${path}`)]);
      assert.equal(old.status, 200);
      assert.equal(old.headers.get('deprecation'), 'true');
      assert.equal(old.headers.get('sunset'), 'Sat, 31 Dec 2028 23:59:59 GMT');
      assert.equal(old.headers.get('link'), `</api/v1${path.split('?')[0]}>; rel="successor-version"`);
      assert.equal(old.headers.get('api-version'), 'v1');
      const [a, b] = [await old.json(), await current.json()];
      if (path !== '/health') assert.deepEqual(a, b);
    });
  }

  it('carries the deprecation headers on errors of the deprecated path too', async () => {
    const res = await post(`${hosted.url}/api/feedback`, { name: '' });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('deprecation'), 'true');
    assert.ok(res.headers.get('sunset'));
  });

  it('serves the docs mirror of v1 at the same paths', async () => {
    const res = await fetch(`${hosted.url}/docs/api/v1/download?platform=linux`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('deprecation'), null);
    assert.deepEqual(await res.json(), await (await fetch(`${hosted.url}/api/v1/download?platform=linux`)).json());
  });
});

describe('rate limit', () => {
  it('allows max requests per window, then 429 with Retry-After, then resets', async () => {
    const hosted = await startTestHosted({ rateLimit: { max: 5, windowSeconds: 60 } });
    try {
      for (let i = 1; i <= 5; i++) {
        const res = await fetch(`${hosted.url}/api/v1/health`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('ratelimit-limit'), '5');
        assert.equal(res.headers.get('ratelimit-remaining'), String(5 - i));
        assert.equal(res.headers.get('ratelimit-reset'), '60');
      }
      hosted.clock.advance(20_000);
      const limited = await fetch(`${hosted.url}/api/v1/models`);
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '40');
      assert.equal(limited.headers.get('ratelimit-remaining'), '0');
      assert.equal(limited.headers.get('ratelimit-reset'), '40');
      const body = await assertErrorShape(limited, 'rate_limited');
      assert.match(body.hint, /40 s/);

      const notFound = await fetch(`${hosted.url}/nowhere`);
      assert.equal(notFound.status, 429, 'the not-found handler counts too');
      const docs = await fetch(`${hosted.url}/openapi.json`);
      assert.equal(docs.status, 429, 'so do the documents');

      hosted.clock.advance(40_000);
      const again = await fetch(`${hosted.url}/api/v1/health`);
      assert.equal(again.status, 200);
      assert.equal(again.headers.get('ratelimit-remaining'), '4');
    } finally {
      await hosted.close();
    }
  });

  it('answers a flood with 429s, never 5xx', async () => {
    const hosted = await startTestHosted({ rateLimit: { max: 50, windowSeconds: 60 } });
    try {
      const statuses = await Promise.all(Array.from({ length: 300 }, () => fetch(`${hosted.url}/api/v1/models`).then((r) => r.status)));
      assert.equal(statuses.filter((s) => s === 200).length, 50);
      assert.equal(statuses.filter((s) => s === 429).length, 250);
    } finally {
      await hosted.close();
    }
  });

  it('ignores X-Forwarded-For unless proxies are trusted', async () => {
    const untrusting = await startTestHosted({ rateLimit: { max: 2, windowSeconds: 60 } });
    const trusting = await startTestHosted({ rateLimit: { max: 2, windowSeconds: 60 }, trustProxy: true });
    try {
      const from = (base: string, ip: string) => fetch(`${base}/api/v1/health`, { headers: { 'x-forwarded-for': ip } });
      const spoofed = [];
      for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) spoofed.push((await from(untrusting.url, ip)).status);
      assert.deepEqual(spoofed, [200, 200, 429], 'one client, whatever the header says');
      const proxied = [];
      for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) proxied.push((await from(trusting.url, ip)).status);
      assert.deepEqual(proxied, [200, 200, 200], 'each forwarded client counted on its own');
    } finally {
      await untrusting.close();
      await trusting.close();
    }
  });

  it('is shared by two app instances through Redis', async (t) => {
    const service = await redisClient(t);
    if (!service) return;
    const limits = { max: 3, windowSeconds: 60 };
    const a = await startTestHosted({ rateLimit: limits, redisUrl: service.url, redisPrefix: service.prefix });
    const b = await startTestHosted({ rateLimit: limits, redisUrl: service.url, redisPrefix: service.prefix });
    try {
      const seen = [];
      for (const base of [a.url, b.url, a.url, b.url]) {
        const res = await fetch(`${base}/api/v1/health`);
        seen.push([res.status, res.headers.get('ratelimit-remaining')]);
      }
      assert.deepEqual(seen, [
        [200, '2'],
        [200, '1'],
        [200, '0'],
        [429, '0'],
      ]);
      const keys = await service.redis.keys(`${service.prefix}*`);
      assert.equal(keys.length, 1);
      const ttl = await service.redis.pttl(keys[0]!);
      assert.ok(ttl > 0 && ttl <= 60_000);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps limiting in memory, without 5xx, when Redis is unreachable', async () => {
    const hosted = await startTestHosted({ rateLimit: { max: 2, windowSeconds: 60 }, redisUrl: 'redis://127.0.0.1:1' });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await fetch(`${hosted.url}/api/v1/health`)).status);
      assert.deepEqual(statuses, [200, 200, 429]);
    } finally {
      await hosted.close();
    }
  });
});
