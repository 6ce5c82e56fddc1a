// HTTP that is malformed, odd or refused before it reaches a route still answers in the local
// envelope {error: {code, message}}, with its own status and code, never Fastify's or Node's
// own body, never the hosted shape; and the server keeps serving.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { sendRawBytes, type RawResponse } from '../support/raw-http.ts';

function assertLocalEnvelope(response: RawResponse, code: string, label: string) {
  assert.match(response.headers['content-type'] ?? '', /^application\/json/, label);
  const body = JSON.parse(response.text);
  assert.deepEqual(Object.keys(body), ['error'], `${label}: ${response.text}`);
  assert.equal(body.error.code, code, label);
  assert.equal(typeof body.error.message, 'string', label);
}

describe('malformed HTTP on the local server', () => {
  let local: TestLocal;
  let host: string;
  let auth: string;
  before(async () => {
    local = await startTestLocal();
    host = `Host: 127.0.0.1:${local.port}\r\n`;
    auth = `Authorization: Bearer ${local.token()}\r\n`;
  });
  after(() => local.close());

  const close = 'Connection: close\r\n';
  const cases: [string, () => string, number, string][] = [
    ['malformed percent-encoding', () => `GET /api/%zz HTTP/1.1\r\n${host}${auth}${close}\r\n`, 400, 'BAD_REQUEST'],
    ['GET /events without an upgrade', () => `GET /events HTTP/1.1\r\n${host}${auth}${close}\r\n`, 426, 'UPGRADE_REQUIRED'],
    ['headers over the size limit', () => `GET /api/health HTTP/1.1\r\n${host}${auth}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
    ['HTTP/1.1 without Host', () => `GET /api/health HTTP/1.1\r\n${auth}${close}\r\n`, 400, 'BAD_REQUEST'],
    ['HTTP/1.0 without Host', () => `GET /api/health HTTP/1.0\r\n${auth}\r\n`, 403, 'FORBIDDEN'],
    ['two Host headers', () => `GET /api/health HTTP/1.1\r\n${host}Host: evil.example\r\n${auth}${close}\r\n`, 400, 'BAD_REQUEST'],
    ['an absolute-form target naming another host', () => `GET http://evil.example/api/health HTTP/1.1\r\n${host}${auth}${close}\r\n`, 400, 'BAD_REQUEST'],
    [
      'Expect: 200-ok',
      () => `POST /api/events/ticket HTTP/1.1\r\n${host}${auth}Expect: 200-ok\r\nContent-Length: 0\r\n${close}\r\n`,
      417,
      'EXPECTATION_FAILED',
    ],
    ['CONNECT', () => `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`, 405, 'METHOD_NOT_ALLOWED'],
    ['OPTIONS', () => `OPTIONS /api/health HTTP/1.1\r\n${host}${auth}${close}\r\n`, 405, 'METHOD_NOT_ALLOWED'],
    ['TRACE', () => `TRACE /api/health HTTP/1.1\r\n${host}${auth}${close}\r\n`, 405, 'METHOD_NOT_ALLOWED'],
    ['PROPFIND', () => `PROPFIND /api/health HTTP/1.1\r\n${host}${auth}${close}\r\n`, 405, 'METHOD_NOT_ALLOWED'],
    ['a method HTTP does not know', () => `BREW /api/health HTTP/1.1\r\n${host}${auth}${close}\r\n`, 400, 'BAD_REQUEST'],
    [
      'two Content-Length headers',
      () => `POST /api/events/ticket HTTP/1.1\r\n${host}${auth}Content-Length: 2\r\nContent-Length: 3\r\n\r\nabc`,
      400,
      'BAD_REQUEST',
    ],
    [
      'a broken chunked body',
      () => `POST /api/events/ticket HTTP/1.1\r\n${host}${auth}Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
      400,
      'BAD_REQUEST',
    ],
    ['an unknown route', () => `GET /api/nothing HTTP/1.1\r\n${host}${auth}${close}\r\n`, 404, 'NOT_FOUND'],
  ];
  for (const [label, request, status, code] of cases) {
    it(`answers ${label} with ${status} ${code} in the local envelope`, async () => {
      const responses = await sendRawBytes(local.port, request());
      assert.equal(responses.length, 1, `${label}: ${JSON.stringify(responses)}`);
      assert.equal(responses[0]!.status, status, label);
      assertLocalEnvelope(responses[0]!, code, label);
    });
  }

  it('answers 405 with the methods the path has', async () => {
    const [response] = await sendRawBytes(local.port, `DELETE /api/events/ticket HTTP/1.1\r\n${host}${auth}${close}\r\n`);
    assert.equal(response!.status, 405);
    assert.equal(response!.headers.allow, 'POST');
  });

  it('serves an absolute-form target naming its own Host, and HEAD without a body', async () => {
    const [absolute] = await sendRawBytes(local.port, `GET http://127.0.0.1:${local.port}/api/health HTTP/1.1\r\n${host}${auth}${close}\r\n`);
    assert.equal(absolute!.status, 200);
    assert.equal(JSON.parse(absolute!.text).status, 'ok');
    const [head] = await sendRawBytes(local.port, `HEAD /api/health HTTP/1.1\r\n${host}${auth}${close}\r\n`);
    assert.equal(head!.status, 200);
    assert.equal(head!.text, '');
  });

  it('closes the connection of a refused request at once, without waiting for the rest of its body', async () => {
    // No token, a body announced but never sent, no Connection: close: the server still ends it.
    const responses = await sendRawBytes(
      local.port,
      `POST /api/editor/save HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"pa`,
    );
    assert.equal(responses.length, 1);
    assert.equal(responses[0]!.status, 401);
    assert.equal(responses[0]!.headers.connection, 'close');
    assertLocalEnvelope(responses[0]!, 'UNAUTHORIZED', 'refused request');
  });

  it('answers pipelined garbage after a good request in the envelope, and keeps serving', async () => {
    const responses = await sendRawBytes(local.port, `GET /api/health HTTP/1.1\r\n${host}${auth}\r\nGARBAGE \x00\x01 HTTP/9\r\n\r\n`);
    const last = responses.at(-1)!;
    assert.equal(last.status, 400);
    assertLocalEnvelope(last, 'BAD_REQUEST', 'pipelined garbage');
    assert.equal((await local.request('GET', '/api/health')).status, 200);
  });
});
