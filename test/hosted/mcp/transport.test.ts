// The Streamable HTTP transport's rules on /mcp, asked of the server before any message is
// read: Origin (403), Host over loopback (DNS rebinding, 403), MCP-Protocol-Version (400),
// the session header of a server that keeps none (404), POST only, one message per request;
// and the hosted API's own rules, which /mcp shares: rate limit, body size, content type.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { initializeMessage, MCP_HEADERS, postMcp, rpc } from '../../support/mcp.ts';
import { assertError } from '../../support/oauth.ts';

/** A POST whose Host header is ours to choose (fetch does not let a caller set it). */
function postWithHost(url: string, host: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers, host } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

describe('MCP transport rules', () => {
  let hosted: TestHosted;
  before(async () => {
    hosted = await startTestHosted({ rateLimit: { max: 1000, windowSeconds: 60 } });
  });
  after(() => hosted.close());

  describe('Origin', () => {
    it("accepts no Origin (native clients) and the server's own", async () => {
      assert.equal((await postMcp(hosted.url, initializeMessage())).status, 200);
      assert.equal((await postMcp(hosted.url, initializeMessage(), { origin: hosted.url })).status, 200);
    });

    for (const origin of ['https://evil.example.com', 'http://localhost:6274', 'null', 'http://127.0.0.1.evil.example']) {
      it(`refuses Origin ${origin} with 403`, async () => {
        await assertError(await postMcp(hosted.url, initializeMessage(), { origin }), 403, 'forbidden');
      });
    }
  });

  describe('Host over a loopback connection (DNS rebinding)', () => {
    it('accepts localhost, 127.0.0.1 and [::1], on any port', async () => {
      for (const host of ['localhost', `localhost:${new URL(hosted.url).port}`, '127.0.0.1:1', '[::1]:8080', 'LOCALHOST']) {
        assert.equal((await postWithHost(hosted.url, host, initializeMessage())).status, 200, host);
      }
    });

    it('refuses any other name with 403, before the message is read', async () => {
      for (const host of [
        'evil.example.com',
        'evil.example.com:80',
        '127.0.0.1.evil.example',
        'localhost.evil.example',
        '127.0.0.2',
        'user@127.0.0.1',
        'a b',
      ]) {
        const res = await postWithHost(hosted.url, host, initializeMessage());
        assert.equal(res.status, 403, `${host}: ${res.body}`);
        assert.equal(JSON.parse(res.body).error, 'forbidden');
      }
    });

    it("accepts the public URL's host, as a proxy on the same machine forwards it", async (t) => {
      const behind = await startTestHosted({ publicUrl: 'https://loom.example.com' });
      t.after(() => behind.close());
      assert.equal((await postWithHost(behind.url, 'loom.example.com', initializeMessage())).status, 200);
      assert.equal((await postWithHost(behind.url, 'loom.example.com', initializeMessage(), { origin: 'https://loom.example.com' })).status, 200);
      assert.equal((await postWithHost(behind.url, 'other.example.com', initializeMessage())).status, 403);
    });
  });

  describe('MCP-Protocol-Version', () => {
    it('accepts every revision it speaks, and no header at all', async () => {
      for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
        assert.equal((await postMcp(hosted.url, rpc('tools/list'), { 'mcp-protocol-version': version })).status, 200, version);
      }
      assert.equal((await postMcp(hosted.url, rpc('tools/list'))).status, 200);
    });

    it('refuses one it does not speak with 400', async () => {
      for (const version of ['2099-01-01', 'latest', '']) {
        const error = await assertError(await postMcp(hosted.url, rpc('tools/list'), { 'mcp-protocol-version': version }), 400, 'unsupported_version');
        assert.match(String(error.hint), /2025-11-25/);
      }
    });
  });

  describe('sessions', () => {
    it('never issues Mcp-Session-Id, and answers 404 to one it did not issue, on which clients start over', async () => {
      const res = await postMcp(hosted.url, initializeMessage());
      assert.equal(res.headers.get('mcp-session-id'), null);
      await assertError(await postMcp(hosted.url, rpc('tools/list'), { 'mcp-session-id': 'made-up' }), 404, 'not_found');
    });

    it('answers each request alone: tools/list needs no initialize before it (any replica answers)', async () => {
      const res = await postMcp(hosted.url, rpc('tools/list'), { 'mcp-protocol-version': '2025-11-25' });
      assert.equal(res.status, 200);
      assert.ok(((await res.json()) as { result: { tools: unknown[] } }).result.tools.length > 0);
    });
  });

  describe('methods and messages', () => {
    it('has no stream to open: GET and DELETE are 405 with Allow: POST', async () => {
      for (const method of ['GET', 'DELETE']) {
        const res = await fetch(`${hosted.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
        await assertError(res, 405, 'method_not_allowed');
        assert.equal(res.headers.get('allow'), 'POST');
      }
    });

    it('answers 202 with no body to a notification', async () => {
      const res = await postMcp(hosted.url, { jsonrpc: '2.0', method: 'notifications/initialized' });
      assert.equal(res.status, 202);
      assert.equal(await res.text(), '');
    });

    it('refuses a batch: one message per request', async () => {
      await assertError(await postMcp(hosted.url, [rpc('tools/list', {}, 1), rpc('ping', {}, 2)]), 400, 'bad_request');
    });

    it('wants Accept to name both JSON and event streams (406 otherwise)', async () => {
      const res = await postMcp(hosted.url, initializeMessage(), { accept: 'application/json' });
      assert.equal(res.status, 406);
    });

    it('refuses what is not JSON-RPC, not JSON, or not sent as JSON, with a 4xx', async () => {
      assert.equal((await postMcp(hosted.url, { hello: 'world' })).status, 400);
      await assertError(await postMcp(hosted.url, '{"jsonrpc":'), 400, 'invalid_json');
      await assertError(await postMcp(hosted.url, 'method=ping', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
      await assertError(await postMcp(hosted.url, 'x'.repeat(2 * 1024 * 1024)), 413, 'payload_too_large');
    });

    it('judges the headers and the credentials before the body: a refused request is never read, however large', async () => {
      const huge = 'x'.repeat(2 * 1024 * 1024);
      await assertError(await postMcp(hosted.url, huge, { origin: 'https://evil.example.com' }), 403, 'forbidden');
      await assertError(await postMcp(hosted.url, huge, { 'mcp-protocol-version': '2099-01-01' }), 400, 'unsupported_version');
      await assertError(await postMcp(hosted.url, huge, { authorization: 'Bearer not-a-token' }), 401, 'invalid_token');
      await assertError(await postMcp(hosted.url, huge, { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    });

    it('refuses a bearer token in the query string', async () => {
      const res = await fetch(`${hosted.url}/mcp?access_token=abc`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(rpc('tools/list')) });
      await assertError(res, 400, 'invalid_request');
    });
  });

  describe('rate limit', () => {
    it('counts each request to /mcp against the same per-client limit as the API, with its headers', async (t) => {
      const limited = await startTestHosted({ rateLimit: { max: 3, windowSeconds: 60 } });
      t.after(() => limited.close());
      const first = await postMcp(limited.url, rpc('tools/call', { name: 'list_models', arguments: {} }));
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('ratelimit-limit'), '3');
      assert.equal(first.headers.get('ratelimit-remaining'), '2');
      assert.equal((await fetch(`${limited.url}/api/v1/models`)).status, 200);
      assert.equal((await postMcp(limited.url, rpc('ping'))).status, 200);
      const refused = await postMcp(limited.url, rpc('tools/call', { name: 'list_models', arguments: {} }));
      await assertError(refused, 429, 'rate_limited');
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
    });
  });
});
