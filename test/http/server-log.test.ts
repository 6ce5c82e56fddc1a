// The servers' shared log (src/http/server-log.ts): one line per request of known-safe fields,
// errors serialised as type, code, redacted message and stack, every other string redacted,
// and nothing at all below the level. Checked through Fastify with the hosted error handler.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { registerErrorHandling } from '../../src/hosted/plugins/errors.ts';
import { redactSecrets } from '../../src/http/redact-secrets.ts';
import { serverLogOptions } from '../../src/http/server-log.ts';
import { captureLog, requestLines, Secrets } from '../support/log-lines.ts';

async function appLoggingAt(level: string) {
  const log = captureLog();
  const app = Fastify(serverLogOptions({ level, destination: log }));
  registerErrorHandling(app);
  app.get('/items/:id', async () => ({ ok: true }));
  app.get('/fails', async () => {
    const error = new Error('fetch https://loom:db-password@db.internal:5432/loom?code=code-4f9a7c2e&state=state-77b1 failed');
    Object.assign(error, {
      code: 'ECONNRESET',
      config: { password: 'config-password-1' },
      headers: { authorization: 'Bearer header-token-9d3e' },
      cause: new Error('upstream said: {"access_token": "cause-token-51c0", "token_type": "Bearer"}'),
    });
    throw error;
  });
  await app.ready();
  return { app, log };
}

describe('the servers log', () => {
  it('writes one line per request: method, route pattern, status, time; never the URL, its query or a header', async () => {
    const { app, log } = await appLoggingAt('trace');
    await app.inject({
      method: 'GET',
      url: '/items/item-secret-1?ticket=ticket-secret-2',
      headers: { authorization: 'Bearer bearer-secret-3', cookie: 'loom_session=cookie-secret-4' },
    });
    await app.inject({ method: 'GET', url: '/nowhere/path-secret-5?code=code-secret-6' });
    await app.close();
    const requests = requestLines(log.lines());
    assert.deepEqual(
      requests.map(({ method, route, status }) => ({ method, route, status })),
      [
        { method: 'GET', route: '/items/:id', status: 200 },
        { method: 'GET', route: undefined, status: 404 },
      ],
    );
    for (const line of requests) assert.equal(typeof line.ms, 'number');
    const secrets = new Secrets();
    for (const secret of ['item-secret-1', 'ticket-secret-2', 'bearer-secret-3', 'cookie-secret-4', 'path-secret-5', 'code-secret-6']) secrets.add(secret);
    secrets.assertAbsentFrom(log.text());
    assert.equal(log.lines().filter((line) => line.reqId === requests[0]!.reqId).length, 1, 'no "incoming request" line');
  });

  it('lays the request line out as pino does, and writes any request id and duration as JSON', async () => {
    const log = captureLog();
    const ids = ['req-1', 'odd "id"\\\n'];
    const app = Fastify({ ...serverLogOptions({ level: 'info', destination: log }), genReqId: () => ids.shift()! });
    app.get('/items/:id', async () => ({ ok: true }));
    await app.inject({ method: 'GET', url: '/items/1' });
    await app.inject({ method: 'GET', url: '/items/2' });
    await app.close();
    const requests = requestLines(log.lines());
    assert.deepEqual(
      requests.map((line) => Object.keys(line)),
      [0, 1].map(() => ['level', 'time', 'pid', 'hostname', 'reqId', 'method', 'route', 'status', 'ms', 'msg']),
    );
    assert.deepEqual(
      requests.map((line) => line.reqId),
      ['req-1', 'odd "id"\\\n'],
    );
    for (const line of requests) {
      assert.equal(line.level, 30);
      assert.equal(line.pid, process.pid);
      assert.ok(typeof line.ms === 'number' && line.ms >= 0 && Math.round(line.ms * 100) / 100 === line.ms, `ms ${line.ms} has at most two decimals`);
    }
  });

  it('logs an unexpected error as type, code, redacted message and stack, and its cause; none of its other properties', async () => {
    const { app, log } = await appLoggingAt('info');
    const response = await app.inject({ method: 'GET', url: '/fails' });
    assert.equal(response.statusCode, 500);
    await app.close();
    const [logged] = log.lines().filter((line) => line.err);
    assert.ok(logged, 'the error is logged');
    const [request] = requestLines(log.lines());
    assert.equal(logged.reqId, request!.reqId, 'with the id of its request line');
    const err = logged.err as Record<string, unknown>;
    assert.deepEqual(Object.keys(err).sort(), ['cause', 'code', 'message', 'stack', 'type']);
    assert.equal(err.type, 'Error');
    assert.equal(err.code, 'ECONNRESET');
    assert.equal(err.message, 'fetch https://[redacted]@db.internal:5432/loom?[redacted] failed');
    assert.match(String(err.stack), /^Error: fetch https:\/\/\[redacted\]@db\.internal:5432\/loom\?\[redacted\] failed\n\s+at /);
    assert.equal((err.cause as Record<string, unknown>).message, 'upstream said: {"access_token": "[redacted]", "token_type": "Bearer"}');
    const secrets = new Secrets();
    for (const secret of ['db-password', 'code-4f9a7c2e', 'state-77b1', 'config-password-1', 'header-token-9d3e', 'cause-token-51c0']) secrets.add(secret);
    secrets.assertAbsentFrom(log.text());
  });

  it('redacts strings in any log call: messages, fields, arrays of them, errors given as text', async () => {
    const { app, log } = await appLoggingAt('info');
    app.log.warn(
      { problems: ['bad value "loom_Qm9iIGxpa2VzIHNlY3JldHMgYW5kIHRoZXkgbGlrZSBoaW0" for apiToken'], error: 'redis://:redis-pass@cache:6379 refused' },
      'retrying https://x.example/cb?state=msg-state-1',
    );
    app.log.error({ err: 'password=plain-pass-2 rejected' }, 'failed');
    await app.close();
    const secrets = new Secrets();
    for (const secret of ['loom_Qm9iIGxpa2VzIHNlY3JldHMgYW5kIHRoZXkgbGlrZSBoaW0', 'redis-pass', 'msg-state-1', 'plain-pass-2']) secrets.add(secret);
    secrets.assertAbsentFrom(log.text());
    const [warning, error] = log.lines();
    assert.equal(warning!.msg, 'retrying https://x.example/cb?[redacted]');
    assert.equal(error!.err, 'password=[redacted] rejected');
  });

  it('writes no request line above info, and builds no logger at all when silent', async () => {
    const warn = await appLoggingAt('warn');
    await warn.app.inject({ method: 'GET', url: '/items/1' });
    await warn.app.close();
    assert.deepEqual(warn.log.lines(), []);
    const silent = Fastify(serverLogOptions({ level: 'silent' }));
    assert.equal(silent.log.level, undefined, 'Fastify without a logger');
    await silent.close();
  });
});

describe('redactSecrets', () => {
  const cases: [string, string][] = [
    ['postgres://loom:s3cret@db:5432/loom', 'postgres://[redacted]@db:5432/loom'],
    ['https://ghp_abcdefgh@github.com/x.git', 'https://[redacted]@github.com/x.git'],
    ['GET /auth/codehost/callback?code=abc&state=def', 'GET /auth/codehost/callback?[redacted]'],
    ['http://h/cb#access_token=tok&x=1 then', 'http://h/cb#[redacted] then'],
    ['closed /api/health?T0k3nW1thoutAName', 'closed /api/health?[redacted]'],
    ['Authorization: Bearer abc.def.ghi', 'Authorization: Bearer [redacted]'],
    ['settings: loom_Qm9iIGxpa2VzIHNlY3JldHMgYW5kIHRoZXkgbGlrZSBoaW0 is wrong', 'settings: [redacted] is wrong'],
    ['sent Basic dXNlcjpwYXNz', 'sent Basic [redacted]'],
    ['token eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl here', 'token [redacted] here'],
    ['client_secret=abcd1234&grant_type=client_credentials', 'client_secret=[redacted]&grant_type=client_credentials'],
    ['{"refresh_token":"r-123456"}', '{"refresh_token":"[redacted]"}'],
    ['code_verifier: v-abcdef', 'code_verifier: [redacted]'],
    ['screen \u001b[2J clear, CSI \u009b31m, bidi \u202e, bell \u0007', 'screen \\u001b[2J clear, CSI \\u009b31m, bidi \\u202e, bell \\u0007'],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => assert.equal(redactSecrets(input), expected));
  }

  it('leaves text without secrets as it is', () => {
    for (const text of [
      'cannot open the database: ENOENT',
      'exit code 1',
      'status code: 500',
      'No route GET /api/v1/x.',
      'line one\nline two\ttab',
      'is it? yes',
      'see #12',
    ]) {
      assert.equal(redactSecrets(text), text);
    }
  });
});
