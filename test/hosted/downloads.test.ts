import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseCatalog } from '../../src/core/catalog/load.ts';
import type { Catalog } from '../../src/core/catalog/schema.ts';
import { startTestHosted, type TestHosted } from '../support/hosted.ts';
import { respond, startUpstream, type Upstream } from '../support/upstream.ts';
import { Gate, waitFor } from '../support/wait.ts';

function catalogFor(upstream: string): Catalog {
  const asset = (key: string, platform: 'windows' | 'macos' | 'linux', file: string) => ({
    key,
    name: `Asset ${key}`,
    platform,
    url: `${upstream}/releases/${file}`,
    size: 1234,
    sha256: 'a'.repeat(64),
  });
  return parseCatalog({
    products: [
      {
        id: 'ide',
        name: 'Loom Editor',
        version: '1.2.3',
        assets: [asset('linux-x64', 'linux', 'ide-linux'), asset('macos-arm64', 'macos', 'ide-mac'), asset('windows-x64', 'windows', 'ide-win')],
      },
      { id: 'cli', name: 'Loom CLI', assets: [asset('linux-x64', 'linux', 'cli-linux'), asset('gone', 'linux', 'gone')] },
      { id: 'omni', name: 'Loom Omni', assets: [asset('macos-arm64', 'macos', 'omni-mac')] },
    ],
    models: [],
  });
}

describe('listDownloads', () => {
  let hosted: TestHosted;
  before(async () => {
    hosted = await startTestHosted({ catalog: catalogFor('http://127.0.0.1:9') });
  });
  after(() => hosted.close());

  const list = async (query = '') => {
    const res = await fetch(`${hosted.url}/api/v1/download${query}`);
    assert.equal(res.status, 200);
    return (await res.json()) as { products: { id: string; assets: { key: string; platform: string }[] }[] };
  };

  it('lists every product with every field of its assets', async () => {
    const body = await list();
    assert.deepEqual(
      body.products.map((p) => p.id),
      ['ide', 'cli', 'omni'],
    );
    const ide = body.products[0]!;
    assert.deepEqual(ide, {
      id: 'ide',
      name: 'Loom Editor',
      version: '1.2.3',
      assets: [
        { key: 'linux-x64', name: 'Asset linux-x64', platform: 'linux', url: 'http://127.0.0.1:9/releases/ide-linux', size: 1234, sha256: 'a'.repeat(64) },
        { key: 'macos-arm64', name: 'Asset macos-arm64', platform: 'macos', url: 'http://127.0.0.1:9/releases/ide-mac', size: 1234, sha256: 'a'.repeat(64) },
        { key: 'windows-x64', name: 'Asset windows-x64', platform: 'windows', url: 'http://127.0.0.1:9/releases/ide-win', size: 1234, sha256: 'a'.repeat(64) },
      ],
    });
  });

  it('narrows by product', async () => {
    const body = await list('?product=cli');
    assert.deepEqual(
      body.products.map((p) => p.id),
      ['cli'],
    );
  });

  it('narrows assets by platform and drops products left with none', async () => {
    const body = await list('?platform=macos');
    assert.deepEqual(
      body.products.map((p) => [p.id, p.assets.map((a) => a.key)]),
      [
        ['ide', ['macos-arm64']],
        ['omni', ['macos-arm64']],
      ],
    );
  });

  it('combines product and platform', async () => {
    const body = await list('?product=ide&platform=windows');
    assert.deepEqual(
      body.products.map((p) => [p.id, p.assets.map((a) => a.key)]),
      [['ide', ['windows-x64']]],
    );
  });

  it('keeps everything with platform=all', async () => {
    assert.deepEqual(await list('?platform=all'), await list());
  });

  it('answers an empty list when a product has no asset for the platform', async () => {
    assert.deepEqual(await list('?product=omni&platform=windows'), { products: [] });
  });

  it('ignores unknown query parameters (cache busters)', async () => {
    assert.deepEqual(await list('?_=123'), await list());
  });

  for (const query of ['?product=studio', '?platform=bsd', '?platform=', '?product=ide&product=cli', '?platform=LINUX']) {
    it(`rejects ${query} with a validation error naming the field`, async () => {
      const res = await fetch(`${hosted.url}/api/v1/download${query}`);
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.error, 'validation_error');
      assert.match(body.details[0].field, /^query\.(product|platform)/);
    });
  }

  it('accepts API-Version v1 and refuses v2', async () => {
    const ok = await fetch(`${hosted.url}/api/v1/download`, { headers: { 'api-version': 'v1' } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('api-version'), 'v1');
    const refused = await fetch(`${hosted.url}/api/v1/download`, { headers: { 'api-version': 'v2' } });
    assert.equal(refused.status, 400);
    assert.equal((await refused.json()).error, 'unsupported_version');
  });
});

describe('getDownloadAsset', () => {
  let hosted: TestHosted;
  let upstream: Upstream;
  before(async () => {
    upstream = await startUpstream();
    hosted = await startTestHosted({ catalog: catalogFor(upstream.url), upstream: { timeoutMs: 30_000, cacheSeconds: 60 } });
  });
  after(async () => {
    await hosted.close();
    await upstream.close();
  });

  const get = (path: string) => fetch(`${hosted.url}/api/v1/download/${path}`);

  it('resolves an asset whose release exists upstream (HEAD)', async () => {
    upstream.behave('/releases/ide-linux', respond(200));
    const res = await get('ide/linux-x64');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      key: 'linux-x64',
      name: 'Asset linux-x64',
      platform: 'linux',
      url: `${upstream.url}/releases/ide-linux`,
      size: 1234,
      sha256: 'a'.repeat(64),
    });
    assert.deepEqual(
      upstream.requests.filter((r) => r.endsWith('/ide-linux')),
      ['HEAD /releases/ide-linux'],
    );
  });

  it('follows redirects to where the file really is', async () => {
    upstream.behave('/releases/cli-linux', respond(302, { location: '/storage/cli-linux' }));
    upstream.behave('/storage/cli-linux', respond(200));
    assert.equal((await get('cli/linux-x64')).status, 200);
  });

  it('falls back to a one-byte ranged GET when HEAD is refused', async () => {
    let range: string | undefined;
    upstream.behave('/releases/ide-mac', (request, response) => {
      if (request.method === 'HEAD') return response.writeHead(405).end();
      range = request.headers.range;
      response.writeHead(206).end('x');
    });
    assert.equal((await get('ide/macos-arm64')).status, 200);
    assert.equal(range, 'bytes=0-0');
  });

  it('answers 404 not_found when upstream says the release is missing', async () => {
    upstream.behave('/releases/gone', respond(404));
    const res = await get('cli/gone');
    assert.equal(res.status, 404);
    const body = await res.json();
    assert.equal(body.error, 'not_found');
    assert.ok(body.message);
  });

  it('answers 404 not_found for an unknown asset, naming the known ones', async () => {
    const res = await get('ide/solaris-sparc');
    assert.equal(res.status, 404);
    const body = await res.json();
    assert.equal(body.error, 'not_found');
    assert.match(body.hint, /linux-x64/);
  });

  it('answers 404 not_found for an unknown product, naming the known ones', async () => {
    const res = await get('studio/linux-x64');
    assert.equal(res.status, 404);
    const body = await res.json();
    assert.equal(body.error, 'not_found');
    assert.match(body.message, /ide, omni, cli/);
  });

  it('answers 404 not_found for an asset key past the length limit', async () => {
    const res = await get(`ide/${'x'.repeat(101)}`);
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error, 'not_found');
  });

  it('answers 414 uri_too_long for an absurdly long path segment', async () => {
    const res = await get(`ide/${'x'.repeat(5000)}`);
    assert.equal(res.status, 414);
    assert.equal((await res.json()).error, 'uri_too_long');
    assert.ok(res.headers.get('ratelimit-limit'));
  });

  it('answers 502 upstream_unavailable when upstream fails, and does not cache the failure', async () => {
    upstream.behave('/releases/omni-mac', respond(503));
    const failed = await get('omni/macos-arm64');
    assert.equal(failed.status, 502);
    const body = await failed.json();
    assert.equal(body.error, 'upstream_unavailable');
    assert.ok(body.message);
    upstream.behave('/releases/omni-mac', respond(200));
    assert.equal((await get('omni/macos-arm64')).status, 200);
  });

  it('answers 502 when upstream does not answer in time', async (t) => {
    // A server with a short upstream time limit (the others here have a generous one, so that a
    // loaded machine never trips it); this upstream never answers, so only the limit ends it.
    const impatient = await startTestHosted({ catalog: catalogFor(upstream.url), upstream: { timeoutMs: 300, cacheSeconds: 60 } });
    t.after(() => impatient.close());
    upstream.behave('/releases/ide-win', () => {
      /* never answers */
    });
    const res = await fetch(`${impatient.url}/api/v1/download/ide/windows-x64`);
    assert.equal(res.status, 502);
    assert.match((await res.json()).message, /300 ms/);
  });

  it('caches a verdict for the configured time, then asks again', async () => {
    upstream.behave('/releases/ide-linux', respond(200));
    await get('ide/linux-x64');
    const before = upstream.requests.length;
    await get('ide/linux-x64');
    assert.equal(upstream.requests.length, before, 'cached: no new upstream request');
    hosted.clock.advance(61_000);
    upstream.behave('/releases/ide-linux', respond(404));
    assert.equal((await get('ide/linux-x64')).status, 404);
    assert.equal(upstream.requests.length, before + 1);
  });

  it('sends one upstream request for many concurrent clients', async () => {
    hosted.clock.advance(61_000);
    // The upstream holds its answer until every client's request has asked the checker: they
    // all arrive while the first check is provably still in flight.
    let heads = 0;
    const answer = new Gate();
    upstream.behave('/releases/cli-linux', (_request, response) => {
      heads += 1;
      void answer.pass().then(() => response.writeHead(200).end());
    });
    let asked = 0;
    const verify = hosted.releases.verify.bind(hosted.releases);
    hosted.releases.verify = (url) => {
      asked++;
      return verify(url);
    };
    try {
      const answers = Promise.all(Array.from({ length: 10 }, () => get('cli/linux-x64')));
      await waitFor(() => asked === 10);
      answer.open();
      assert.deepEqual(
        (await answers).map((r) => r.status),
        Array(10).fill(200),
      );
      assert.equal(heads, 1);
    } finally {
      hosted.releases.verify = verify;
    }
  });
});

describe('getDownloadAsset with upstream unreachable', () => {
  it('answers 502 upstream_unavailable in the Error shape', async () => {
    const hosted = await startTestHosted({ catalog: catalogFor('http://127.0.0.1:1') });
    try {
      const res = await fetch(`${hosted.url}/api/v1/download/ide/linux-x64`);
      assert.equal(res.status, 502);
      const body = await res.json();
      assert.deepEqual(Object.keys(body).sort(), ['error', 'hint', 'message']);
      assert.equal(body.error, 'upstream_unavailable');
      assert.ok(res.headers.get('ratelimit-remaining'));
    } finally {
      await hosted.close();
    }
  });
});
