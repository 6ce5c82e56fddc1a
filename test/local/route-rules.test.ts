// Per-route rules belong to the route that answers, not to the raw URL: the completion budget
// holds however the path is spelt, and who may call a route is the route's own `access` rule.
// Every route of the table is held to the rules its entry declares.
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { localRoutes, type LocalRoute } from '../../src/contracts/local-routes.ts';
import { startTestLocal } from '../support/local.ts';
import { startTestLocalApp } from '../support/local-app.ts';

const COMPLETE = { prompt: 'const a = ', language: 'typescript' };

/** Whether a WebSocket upgrade to `url` opens (true) or is answered over HTTP (its status). */
function upgrade(url: string, headers: Record<string, string>): Promise<true | number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => {
      socket.close();
      resolve(true);
    });
    socket.once('unexpected-response', (request, response) => {
      resolve(response.statusCode ?? 0);
      request.destroy();
    });
    socket.once('error', reject);
  });
}

describe('per-route rules', () => {
  it('holds every route of the table to its declared access, budget and kind', async (t) => {
    // Distinct budgets, so that an answer shows which one it was counted against.
    const limits = { aiComplete: 1000, default: 2000 };
    const local = await startTestLocal({ settings: { apiToken: 'loom_route_rules_test_token_0123456789', rateLimits: limits } });
    t.after(() => local.close());
    // The window, signed in by its one-time link: what a route whose access is `window` takes.
    const code = new URL(local.signInLink()).searchParams.get('code')!;
    const signedIn = await local.request('POST', '/api/session', { code }, { authorization: '' });
    const window = {
      authorization: '',
      cookie: String(signedIn.headers['set-cookie']).split(';')[0]!,
      'x-loom-csrf': signedIn.json.csrf,
    };
    for (const route of localRoutes as readonly LocalRoute[]) {
      const label = `${route.id} (${route.method} ${route.path})`;
      const body = route.method === 'POST' ? {} : undefined;
      const refused = await local.request(route.method, route.path, body, { authorization: '' });
      if ((route.access ?? 'token') === 'public') assert.notEqual(refused.status, 401, label);
      else assert.deepEqual([refused.status, refused.json?.error?.code], [401, 'UNAUTHORIZED'], label);

      if (route.access === 'window') {
        const byToken = await local.request(route.method, route.path, body);
        assert.deepEqual([byToken.status, byToken.json?.error?.code], [403, 'WINDOW_REQUIRED'], `${label}: never the token`);
      }
      const answered = await local.request(route.method, route.path, body, route.access === 'window' ? window : {});
      // A route with a path parameter may answer NOT_FOUND for what it names, never for want of a route.
      assert.doesNotMatch(String(answered.json?.error?.message), /^No route /, `${label} is registered`);
      assert.equal(answered.headers['ratelimit-limit'], String(limits[route.limit ?? 'default']), `${label} draws on its budget`);
      if (route.websocket) assert.deepEqual([answered.status, answered.json?.error?.code], [426, 'UPGRADE_REQUIRED'], label);

      if (route.method !== 'GET') continue;
      const opened = await upgrade(`ws://127.0.0.1:${local.port}${route.path}`, { authorization: `Bearer ${local.token()}` });
      // A window-only WebSocket (the terminal) never opens with the token: test/local/terminal.test.ts opens it.
      const expected = route.websocket ? (route.access === 'window' ? 403 : true) : 400;
      assert.equal(opened, expected, `${label}: only a WebSocket route takes an upgrade, and a window-only one not with the token`);
    }
  });

  it('draws every spelling of /api/ai/complete on the completion budget', async (t) => {
    const local = await startTestLocal({ settings: { apiToken: 'loom_route_rules_test_token_0123456789', rateLimits: { aiComplete: 2, default: 100 } } });
    t.after(() => local.close());
    for (let i = 0; i < 2; i++) assert.equal((await local.request('POST', '/api/ai/complete', COMPLETE)).status, 200);
    for (const target of ['/api/ai/%63omplete', '/api/ai/complete?x=1', '/api/%61i/complete', `http://127.0.0.1:${local.port}/api/ai/complete`]) {
      const res = await local.request('POST', target, COMPLETE);
      assert.equal(res.status, 429, target);
      assert.equal(res.json.error.code, 'RATE_LIMIT_EXCEEDED', target);
      assert.equal(res.headers['ratelimit-limit'], '2', target);
    }
    const other = await local.request('GET', '/api/health');
    assert.equal(other.status, 200, 'the rest of the API has its own budget');
    assert.equal(other.headers['ratelimit-limit'], '100');
  });

  it('lets only a window signed in by its link call a window-only route: the token and a token-signed window are 403, no CSRF value 403, nothing 401', async (t) => {
    let ran = 0;
    const local = await startTestLocalApp({
      routes: (app) => {
        app.post('/api/runs-code', { config: { access: 'window' } }, async () => ({ ran: ++ran }));
      },
    });
    t.after(() => local.close());
    const origin = `http://127.0.0.1:${local.port}`;
    const post = (target: string, headers: Record<string, string>, body?: unknown) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; json: any }>((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const request = http.request(
          {
            host: '127.0.0.1',
            port: local.port,
            method: 'POST',
            path: target,
            headers: { host: `127.0.0.1:${local.port}`, ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text ? JSON.parse(text) : undefined }));
          },
        );
        request.on('error', reject).end(payload);
      });
    const session = async (body: Record<string, string>) => {
      const answer = await post('/api/session', { origin }, body);
      assert.equal(answer.status, 200);
      return { cookie: String(answer.headers['set-cookie']).split(';')[0]!, csrf: answer.json.csrf as string, runsCode: answer.json.runsCode as boolean };
    };
    const byLink = await session({ code: local.signInCode() });
    const byToken = await session({ token: local.token });
    assert.deepEqual([byLink.runsCode, byToken.runsCode], [true, false]);

    const refusals: [Record<string, string>, number, string][] = [
      [{}, 401, 'UNAUTHORIZED'],
      [{ authorization: `Bearer ${local.token}` }, 403, 'WINDOW_REQUIRED'],
      [{ authorization: 'Bearer wrong' }, 401, 'UNAUTHORIZED'],
      [{ cookie: byToken.cookie, 'x-loom-csrf': byToken.csrf, origin }, 403, 'WINDOW_REQUIRED'],
      [{ cookie: byLink.cookie, origin }, 403, 'FORBIDDEN'],
      [{ cookie: byLink.cookie, 'x-loom-csrf': byToken.csrf, origin }, 403, 'FORBIDDEN'],
      [{ cookie: byLink.cookie, 'x-loom-csrf': byLink.csrf, origin: 'http://evil.example' }, 403, 'FORBIDDEN'],
    ];
    for (const [headers, status, code] of refusals) {
      const answer = await post('/api/runs-code', headers);
      assert.deepEqual([answer.status, answer.json?.error?.code], [status, code], JSON.stringify(Object.keys(headers)));
    }
    assert.equal(ran, 0, 'nothing ran');
    const allowed = await post('/api/runs-code', { cookie: byLink.cookie, 'x-loom-csrf': byLink.csrf, origin });
    assert.deepEqual([allowed.status, allowed.json], [200, { ran: 1 }]);
    // The token still opens what it always did.
    assert.equal((await post('/api/editor/open', { authorization: `Bearer ${local.token}` }, { path: 'missing.ts' })).json.error.code, 'NOT_FOUND');
  });

  it('serves a public route without the token, but not to a foreign Host or Origin', async (t) => {
    const local = await startTestLocalApp({
      routes: (app) => {
        app.get('/editor/app.js', { config: { access: 'public' } }, async (_request, reply) => reply.type('text/javascript').send('export {};'));
        app.get('/api/private', async () => ({ secret: true }));
      },
    });
    t.after(() => local.close());
    const get = (target: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: local.port, path: target, headers: { host: `127.0.0.1:${local.port}`, ...headers } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', reject);
      });
    assert.equal(await get('/editor/app.js'), 200);
    assert.equal(await get('/editor/%61pp.js'), 200, 'the rule follows the route, however it is spelt');
    assert.equal(await get('/api/private'), 401);
    assert.equal(await get('/api/private', { authorization: `Bearer ${local.token}` }), 200);
    assert.equal(await get('/editor/app.js', { host: 'evil.example' }), 403);
    assert.equal(await get('/editor/app.js', { origin: 'https://evil.example' }), 403);
  });
});
