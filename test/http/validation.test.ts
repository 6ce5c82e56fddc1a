// Shared request validation: a body whose fields are all optional may be left out (no body,
// an empty body sent as JSON, or null) and reads as {}; anything else keeps its error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { describeError } from '../../src/http/errors.ts';
import { registerValidation } from '../../src/http/validation.ts';

describe('optional bodies', () => {
  let app: FastifyInstance;
  before(async () => {
    app = Fastify({ onProtoPoisoning: 'error', onConstructorPoisoning: 'error' });
    registerValidation(app);
    app.setErrorHandler((error, _request, reply) => {
      const { status, body } = describeError(error);
      reply.code(status).send(body);
    });
    const optional = Type.Object(
      { path: Type.Optional(Type.String()), force: Type.Optional(Type.Boolean({ default: false })) },
      { additionalProperties: false },
    );
    app.post('/optional', { schema: { body: optional } }, async (request) => ({ body: request.body }));
    app.post('/wrapped-optional', { schema: { body: Type.Optional(optional) } }, async (request) => ({ body: request.body }));
    app.post('/required', { schema: { body: Type.Object({ text: Type.String() }) } }, async (request) => ({ body: request.body }));
    await app.ready();
  });
  after(() => app.close());

  const send = (url: string, payload?: string, contentType = 'application/json') =>
    app.inject({ method: 'POST', url, payload, headers: payload === undefined ? {} : { 'content-type': contentType } });

  for (const url of ['/optional', '/wrapped-optional']) {
    it(`${url}: no body, an empty JSON body and null read as {} (defaults applied)`, async () => {
      for (const payload of [undefined, '', 'null']) {
        const res = await send(url, payload);
        assert.equal(res.statusCode, 200, `${JSON.stringify(payload)}: ${res.body}`);
        assert.deepEqual(res.json(), { body: { force: false } });
      }
    });

    it(`${url}: a body is still validated, and text that is not JSON is still invalid_json`, async () => {
      assert.deepEqual((await send(url, '{"path":"a"}')).json(), { body: { path: 'a', force: false } });
      const wrongType = await send(url, '{"force":"yes"}');
      assert.equal(wrongType.statusCode, 400);
      assert.equal(wrongType.json().error, 'validation_error');
      for (const payload of ['{', ' ', 'nul', '{"__proto__":{}}']) {
        const res = await send(url, payload);
        assert.equal(res.statusCode, 400, payload);
        assert.equal(res.json().error, 'invalid_json', payload);
      }
      assert.equal((await send(url, '[]')).statusCode, 400);
      assert.equal((await send(url, '"x"')).statusCode, 400);
    });
  }

  it('a body with a required field still needs one: empty JSON is invalid_json, none is validation_error', async () => {
    const empty = await send('/required', '');
    assert.equal(empty.statusCode, 400);
    assert.equal(empty.json().error, 'invalid_json');
    const none = await send('/required');
    assert.equal(none.statusCode, 400);
    assert.equal(none.json().error, 'validation_error');
  });
});
