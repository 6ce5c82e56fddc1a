// The servers' shared log (src/http/server-log.ts): one line per request of known-safe fields,
// errors serialised as type, code, redacted message and stack, every other string redacted,
// and nothing at all below the level. Checked through Fastify with the hosted error handler, over
// real HTTP: the request line is written when Node reports a response finished, which a
// request injected into the app (app.inject) never is.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { registerErrorHandling } from '../../src/hosted/plugins/errors.ts';
import { redactSecrets } from '../../src/http/redact-secrets.ts';
import { serverLog } from '../../src/http/server-log.ts';
import { captureLog, requestLines, Secrets } from '../support/log-lines.ts';

/** A Fastify app with the servers' log, as the app builders make it. */
function appWithLog(level: string, destination = captureLog(), extra: FastifyServerOptions = {}) {
  const log = serverLog({ level, destination });
  const app = Fastify({ ...log.fastifyOptions, ...extra });
  log.attach(app);
  return app;
}

/** Sends a request over HTTP to the app, listening on port 0, and reads the answer whole. */
async function send(app: FastifyInstance, url: string, headers: Record<string, string> = {}): Promise<number> {
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };
  const response = await fetch(`http://127.0.0.1:${address.port}${url}`, { headers });
  await response.arrayBuffer();
  return response.status;
}

async function appLoggingAt(level: string) {
  const log = captureLog();
  const app = appWithLog(level, log);
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
    await send(app, '/items/item-secret-1?ticket=ticket-secret-2', { authorization: 'Bearer bearer-secret-3', cookie: 'loom_session=cookie-secret-4' });
    await send(app, '/nowhere/path-secret-5?code=code-secret-6');
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

  // Loom's apps answer it through their framework error handler, which Fastify gives a request
  // (and so a logger and a record); a bare Fastify app answers it on its own, with neither.
  for (const [kind, extra, keys] of [
    [
      "by the app's framework error handler, as in Loom's apps, with its id and time",
      { frameworkErrors: (_error, _request, reply) => void (reply as FastifyReply).code(400).send({}) },
      ['level', 'time', 'pid', 'hostname', 'reqId', 'method', 'status', 'ms', 'msg'],
    ],
    ['by Fastify itself, with its method and status only', {}, ['level', 'time', 'pid', 'hostname', 'method', 'status', 'msg']],
  ] as [string, FastifyServerOptions, string[]][]) {
    it(`logs a request whose URL does not decode, answered ${kind}; no route, no URL`, async () => {
      const log = captureLog();
      const app = appWithLog('info', log, extra);
      app.get('/items/:id', async () => ({ ok: true }));
      assert.equal(await send(app, '/items/%zz?code=code-secret-7'), 400);
      await app.close();
      const requests = requestLines(log.lines());
      assert.deepEqual(
        requests.map((line) => Object.keys(line)),
        [keys],
      );
      assert.deepEqual({ method: requests[0]!.method, status: requests[0]!.status }, { method: 'GET', status: 400 });
      assert.ok(!log.text().join('\n').includes('code-secret-7'));
    });
  }

  it('writes the lines of each server to its own log when two share a process (loom up), their request ids never the same', async () => {
    const [first, second] = [captureLog(), captureLog()];
    const apps = [appWithLog('info', first), appWithLog('info', second)];
    for (const app of apps) app.get('/items/:id', async () => ({ ok: true }));
    await send(apps[0]!, '/items/1');
    await send(apps[1]!, '/items/2');
    await send(apps[1]!, '/items/3');
    await Promise.all(apps.map((app) => app.close()));
    assert.equal(requestLines(first.lines()).length, 1);
    assert.equal(requestLines(second.lines()).length, 2);
    // Both write to the same stdout under `loom up`: an id must tell which request a line is of.
    const ids = [...requestLines(first.lines()), ...requestLines(second.lines())].map((line) => line.reqId);
    assert.equal(new Set(ids).size, 3, `ids ${ids.join(', ')}`);
  });

  it('lays the request line out as pino does, and writes any request id and duration as JSON', async () => {
    const log = captureLog();
    const ids = ['req-1', 'odd "id"\\\n'];
    const app = appWithLog('info', log, { genReqId: () => ids.shift()! });
    app.get('/items/:id', async () => ({ ok: true }));
    await send(app, '/items/1');
    await send(app, '/items/2');
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
    assert.equal(await send(app, '/fails'), 500);
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

  it("writes Fastify's own warnings about a request with its id (request.log and reply.log are the request's logger), its URL's query redacted", async () => {
    const log = captureLog();
    const app = appWithLog('info', log);
    app.get('/twice', (_request, reply) => {
      void reply.send({ first: true });
      void reply.send({ second: true });
    });
    assert.equal(await send(app, '/twice?ticket=ticket-secret-7'), 200);
    await app.close();
    const warning = log.lines().find((line) => line.level === 40);
    assert.ok(warning, 'Fastify warns of the second send');
    assert.match(String(warning.msg), /already sent/);
    assert.equal(warning.reqId, requestLines(log.lines())[0]!.reqId);
    const secrets = new Secrets();
    secrets.add('ticket-secret-7');
    secrets.assertAbsentFrom(log.text());
  });

  it('redacts strings in any log call: messages, fields, arrays of them, errors given as text', async () => {
    const { app, log } = await appLoggingAt('info');
    app.log.warn(
      { problems: ['bad value "loom_Qm9iIGxpa2VzIHNlY3JldHMgYW5kIHRoZXkgbGlrZSBoaW0" for apiToken'], error: 'redis://:redis-pass@cache:6379 refused' },
      'retrying https://x.example/cb?state=msg-state-1',
    );
    app.log.error({ err: 'password=plain-pass-2 rejected' }, 'failed');
    // An error and no message: pino would take the error's own message as the line's.
    app.log.error({ err: new Error('GET https://x.example/cb?code=err-code-3 failed') });
    app.log.error(new Error('token=err-token-4 refused'));
    await app.close();
    const secrets = new Secrets();
    for (const secret of ['loom_Qm9iIGxpa2VzIHNlY3JldHMgYW5kIHRoZXkgbGlrZSBoaW0', 'redis-pass', 'msg-state-1', 'plain-pass-2', 'err-code-3', 'err-token-4'])
      secrets.add(secret);
    secrets.assertAbsentFrom(log.text());
    const [warning, error, withoutMessage, bare] = log.lines();
    assert.equal(warning!.msg, 'retrying https://x.example/cb?[redacted]');
    assert.equal(error!.err, 'password=[redacted] rejected');
    assert.equal(withoutMessage!.msg, 'GET https://x.example/cb?[redacted] failed');
    assert.equal(bare!.msg, 'token=[redacted] refused');
  });

  it('writes no request line above info, and builds no logger at all when silent', async () => {
    const warn = await appLoggingAt('warn');
    await send(warn.app, '/items/1');
    await warn.app.close();
    assert.deepEqual(warn.log.lines(), []);
    const silent = appWithLog('silent');
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
