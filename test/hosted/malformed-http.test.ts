// HTTP that is malformed, odd or refused before it reaches an operation still answers in the
// Error shape {error, message, hint?}, with its own status and code and the RateLimit headers
// (those written straight to the socket too); under the deprecated /api prefix every answer to a
// request that could be read carries Deprecation, Sunset and Link.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestHosted, type TestHosted } from '../support/hosted.ts';
import { sendRawBytes, type RawResponse } from '../support/raw-http.ts';
import { waitFor } from '../support/wait.ts';

/** Only guards against a hang. */
const HANG_MS = 15_000;

function assertErrorShape(response: RawResponse, code: string, label: string) {
  assert.match(response.headers['content-type'] ?? '', /^application\/json/, label);
  const body = JSON.parse(response.text);
  assert.equal(body.error, code, `${label}: ${response.text}`);
  assert.equal(typeof body.message, 'string', label);
  for (const key of Object.keys(body)) assert.ok(['error', 'message', 'hint'].includes(key), `${label}: unexpected ${key}`);
}

function assertRateLimitHeaders(response: RawResponse, label: string) {
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) assert.match(response.headers[name] ?? '', /^\d+$/, `${label}: ${name}`);
}

function assertDeprecated(response: RawResponse, successor: string, label: string) {
  assert.equal(response.headers.deprecation, 'true', label);
  assert.equal(response.headers.sunset, 'Sat, 31 Dec 2028 23:59:59 GMT', label);
  assert.equal(response.headers.link, `<${successor}>; rel="successor-version"`, label);
}

describe('malformed HTTP on the hosted server', () => {
  let hosted: TestHosted;
  let port: number;
  let host: string;
  before(async () => {
    hosted = await startTestHosted();
    port = Number(new URL(hosted.url).port);
    host = `Host: 127.0.0.1:${port}\r\n`;
  });
  after(() => hosted.close());

  const close = 'Connection: close\r\n';
  const cases: [string, () => string, number, string][] = [
    ['malformed percent-encoding', () => `GET /api/v1/%zz HTTP/1.1\r\n${host}${close}\r\n`, 400, 'bad_request'],
    ['headers over the size limit', () => `GET /api/v1/health HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
    ['HTTP/1.1 without Host', () => `GET /api/v1/health HTTP/1.1\r\n${close}\r\n`, 400, 'bad_request'],
    ['two Host headers', () => `GET /api/v1/health HTTP/1.1\r\n${host}Host: evil.example\r\n${close}\r\n`, 400, 'bad_request'],
    ['an absolute-form target naming another host', () => `GET http://evil.example/api/v1/health HTTP/1.1\r\n${host}${close}\r\n`, 400, 'bad_request'],
    ['Expect: 200-ok', () => `POST /api/v1/feedback HTTP/1.1\r\n${host}Expect: 200-ok\r\nContent-Length: 0\r\n${close}\r\n`, 417, 'expectation_failed'],
    ['CONNECT', () => `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`, 405, 'method_not_allowed'],
    ['OPTIONS', () => `OPTIONS /api/v1/health HTTP/1.1\r\n${host}${close}\r\n`, 405, 'method_not_allowed'],
    ['TRACE', () => `TRACE /api/v1/health HTTP/1.1\r\n${host}${close}\r\n`, 405, 'method_not_allowed'],
    ['a method HTTP does not know', () => `BREW /api/v1/health HTTP/1.1\r\n${host}${close}\r\n`, 400, 'bad_request'],
    ['two Content-Length headers', () => `POST /api/v1/feedback HTTP/1.1\r\n${host}Content-Length: 2\r\nContent-Length: 3\r\n\r\nabc`, 400, 'bad_request'],
    [
      'a broken chunked body',
      () => `POST /api/v1/feedback HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
      400,
      'bad_request',
    ],
  ];
  for (const [label, request, status, code] of cases) {
    it(`answers ${label} with ${status} ${code} in the Error shape, with RateLimit headers`, async () => {
      const responses = await sendRawBytes(port, request());
      assert.equal(responses.length, 1, `${label}: ${JSON.stringify(responses)}`);
      assert.equal(responses[0]!.status, status, label);
      assertErrorShape(responses[0]!, code, label);
      assertRateLimitHeaders(responses[0]!, label);
    });
  }

  it('serves an absolute-form target naming its own Host, with a successor link built from its path', async () => {
    const [response] = await sendRawBytes(port, `GET http://127.0.0.1:${port}/api/health HTTP/1.1\r\n${host}${close}\r\n`);
    assert.equal(response!.status, 200);
    assertDeprecated(response!, '/api/v1/health', 'absolute-form');
  });

  // No WebSocket is served here. An upgrade request that nobody answered would hold its socket
  // for as long as the client kept it open.
  it('answers a WebSocket upgrade request as an ordinary request, and keeps the connection usable', async () => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    let closed = false;
    socket.on('close', () => (closed = true));
    socket.write(
      `GET /api/v1/health HTTP/1.1\r\n${host}Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    );
    try {
      await waitFor(() => received.includes('"ok":true'), HANG_MS);
      assert.match(received, /^HTTP\/1\.1 200 /);
      socket.write(`GET /api/v1/nothing HTTP/1.1\r\n${host}${close}\r\n`);
      await waitFor(() => closed, HANG_MS);
      assert.match(received, /\}HTTP\/1\.1 404 [^]*"error":"not_found"/);
    } finally {
      socket.destroy();
    }
  });

  describe('under the deprecated /api prefix', () => {
    const deprecated: [string, string, number, string][] = [
      ['an unknown route', `GET /api/nothing HTTP/1.1`, 404, '/api/v1/nothing'],
      ['a wrong method', `DELETE /api/health HTTP/1.1`, 405, '/api/v1/health'],
      ['a malformed URL', `GET /api/%zz HTTP/1.1`, 400, '/api/v1/%zz'],
      ['two Host headers', `GET /api/health HTTP/1.1\r\nHost: evil.example`, 400, '/api/v1/health'],
    ];
    for (const [label, start, status, successor] of deprecated) {
      it(`carries Deprecation, Sunset and Link on ${label} (${status})`, async () => {
        const [response] = await sendRawBytes(port, `${start}\r\n${host}${close}\r\n`);
        assert.equal(response!.status, status);
        assertDeprecated(response!, successor, label);
        assertErrorShape(response!, JSON.parse(response!.text).error, label);
      });
    }

    it('does not carry them on an answer written before the request could be read (431)', async () => {
      const [response] = await sendRawBytes(port, `GET /api/health HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      assert.equal(response!.status, 431);
      assert.equal(response!.headers.deprecation, undefined);
      assertErrorShape(response!, 'headers_too_large', '431 under /api');
    });

    it('carries them on a 429 too, and not on versioned paths or the documents served at /api', async () => {
      const limited = await startTestHosted({ rateLimit: { max: 1, windowSeconds: 60 } });
      try {
        await fetch(`${limited.url}/api/health`);
        const res = await fetch(`${limited.url}/api/health`);
        assert.equal(res.status, 429);
        assert.equal(res.headers.get('deprecation'), 'true');
      } finally {
        await limited.close();
      }
      for (const path of ['/api/v2/health', '/api/v1/nothing', '/api/openapi.json']) {
        assert.equal((await fetch(`${hosted.url}${path}`)).headers.get('deprecation'), null, path);
      }
    });
  });

  it('counts answers written to the socket against the client, and through a trusted proxy against a budget of their own', async () => {
    const proxied = await startTestHosted({ rateLimit: { max: 2, windowSeconds: 60 }, trustProxy: ['127.0.0.1'] });
    try {
      const proxiedPort = Number(new URL(proxied.url).port);
      const oversized = `GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:${proxiedPort}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await sendRawBytes(proxiedPort, oversized))[0]!.status);
      assert.deepEqual(statuses, [431, 431, 429], 'the third is over the limit');
      // The proxy's own address was not charged for them: the clients behind it are served.
      const res = await fetch(`${proxied.url}/api/v1/health`, { headers: { 'x-forwarded-for': '10.0.0.7' } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit-remaining'), '1');
    } finally {
      await proxied.close();
    }
  });
});
