// Per-route rules belong to the route that answers, not to the raw URL: the completion budget
// holds however the path is spelt, and who may call a route is the route's own `access` rule.
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { startTestLocal } from '../support/local.ts';
import { startTestLocalApp } from '../support/local-app.ts';

const COMPLETE = { prompt: 'const a = ', language: 'typescript' };

describe('per-route rules', () => {
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
