// GET /api/openapi.json: the local API's OpenAPI document, served behind the token and derived
// from the route table, so it lists every route with its rules, input and answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Ajv from 'ajv';
import { LOOM_VERSION } from '../../src/config/version.ts';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { localRoutes, type LocalRoute } from '../../src/contracts/local-routes.ts';
import { EVENT_TYPES } from '../../src/core/events/bus.ts';
import { localCode } from '../../src/local/errors.ts';
import { localRouteErrors } from '../../src/local/openapi.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { unresolvedRefs } from '../support/openapi.ts';

type Json = Record<string, any>;
const routes = localRoutes as readonly LocalRoute[];
/** A route's path as OpenAPI spells it (`/api/agent/status/{taskId}`). */
const openApiPath = (route: LocalRoute) => route.path.replace(/:(\w+)/g, '{$1}');

describe('the local OpenAPI document', () => {
  let local: TestLocal;
  let document: Json;
  before(async () => {
    local = await startTestLocal();
    const answer = await local.request('GET', '/api/openapi.json');
    assert.equal(answer.status, 200);
    document = answer.json;
  });
  after(() => local?.close());

  it('is served behind the token', async () => {
    const refused = await local.request('GET', '/api/openapi.json', undefined, { authorization: '' });
    assert.deepEqual([refused.status, refused.json.error.code], [401, 'UNAUTHORIZED']);
  });

  it('describes every route of the table, and nothing else, in OpenAPI 3.1', () => {
    assert.equal(document.openapi, '3.1.0');
    assert.equal(document.info.version, LOOM_VERSION);
    assert.deepEqual(
      document.servers.map((server: Json) => server.url),
      [`http://127.0.0.1:${local.port}`],
    );
    const found = Object.entries<Json>(document.paths).flatMap(([path, methods]) =>
      Object.entries<Json>(methods).map(([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`),
    );
    assert.deepEqual(found.sort(), routes.map((route) => `${route.method} ${openApiPath(route)} ${route.id}`).sort());
    assert.deepEqual(unresolvedRefs(document), []);
  });

  it('gives each route its security, budget, events, input and every error code it may answer', () => {
    for (const route of routes) {
      const operation = document.paths[openApiPath(route)][route.method.toLowerCase()];
      const label = route.id;
      const window = route.method === 'GET' ? { windowSession: [] } : { windowSession: [], windowCsrf: [] };
      const security = {
        ticket: [{ bearerAuth: [] }, { eventTicket: [] }, window],
        public: [],
        token: [{ bearerAuth: [] }, window],
        window: [window],
      }[route.access ?? 'token'];
      assert.deepEqual(operation.security, security, label);
      assert.equal(operation['x-loom-limit'], route.limit ?? 'default', label);
      assert.deepEqual(operation['x-loom-emits'], route.emits ? [...route.emits] : undefined, label);
      assert.equal(Boolean(operation.requestBody), Boolean(route.request.body), label);
      assert.deepEqual(
        operation.parameters.map((parameter: Json) => `${parameter.in} ${parameter.name}`).sort(),
        [
          ...Object.keys((route.request.params as Json | undefined)?.properties ?? {}).map((name) => `path ${name}`),
          ...Object.keys((route.request.query as Json | undefined)?.properties ?? {}).map((name) => `query ${name}`),
        ].sort(),
        label,
      );
      const documented = Object.entries<Json>(operation.responses).flatMap(([status, response]) =>
        [...String(response.description).matchAll(/`([A-Z_]+)`/g)].map((match) => `${status} ${match[1]}`),
      );
      const expected = localRouteErrors(route).map((code) => `${ERROR_CODES[code].status} ${localCode(code)}`);
      assert.deepEqual(documented.sort(), expected.sort(), label);
    }
  });

  it('marks a body whose fields are all optional as one that may be left out', () => {
    assert.equal(document.paths['/api/editor/save'].post.requestBody.required, false);
    assert.equal(document.paths['/api/git/push'].post.requestBody.required, false);
    assert.equal(document.paths['/api/editor/open'].post.requestBody.required, true);
  });

  it('describes the errors in the envelope they are answered in', async () => {
    const validate = new Ajv.default({ strict: false }).compile(document.components.schemas.LocalError);
    const refused = await local.request('POST', '/api/editor/open', { path: '' });
    assert.equal(refused.status, 400);
    assert.ok(validate(refused.json), JSON.stringify(validate.errors));
  });

  it('names only events that exist', () => {
    for (const route of routes) for (const type of route.emits ?? []) assert.ok((EVENT_TYPES as readonly string[]).includes(type), `${route.id} emits ${type}`);
  });
});
