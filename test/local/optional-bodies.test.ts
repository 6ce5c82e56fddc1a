// Local routes whose body fields are all optional take no body at all, or an empty one of any
// type, as {}: `curl -X POST …/api/editor/save` saves. A route that takes no body takes an
// empty one the same way. Invalid JSON stays 400 INVALID_JSON, a body of a type nothing reads
// 415, and a route with a required field still needs its body.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestLocal, type TestLocal } from '../support/local.ts';

describe('optional bodies on the local API', () => {
  let local: TestLocal;
  before(async () => {
    // Not a repository: git routes that accept the body answer NOT_A_REPOSITORY, proving they ran.
    // Each case takes three requests: more than the default budget of 120 a minute.
    local = await startTestLocal({
      files: { 'doc.txt': 'doc\n' },
      settings: { apiToken: 'loom_test_token_0123456789abcdefghij', rateLimits: { default: 10_000 } },
    });
    assert.equal((await local.request('POST', '/api/editor/open', { path: 'doc.txt' })).status, 200);
  });
  after(() => local.close());

  /** A body left out, and empty bodies as clients send them: [body, headers]. */
  const noBody: Record<string, [string | undefined, Record<string, string>]> = {
    omitted: [undefined, {}],
    'empty JSON': ['', { 'content-type': 'application/json' }],
    'empty JSON, chunked': ['', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }],
    // '' takes out the JSON type the helper sends with a body.
    'empty, chunked, without a type': ['', { 'content-type': '', 'transfer-encoding': 'chunked' }],
    'empty XML': ['', { 'content-type': 'application/xml' }],
    'empty text': ['', { 'content-type': 'text/plain' }],
    'empty form': ['', { 'content-type': 'application/x-www-form-urlencoded' }],
  };
  // Each answer shows the route ran with {}: close refuses the unsaved edit (no discard given),
  // git finds no repository.
  const routes: [route: string, status: number, code?: string][] = [
    ['/api/editor/save', 200],
    ['/api/editor/reload', 200],
    ['/api/editor/close', 409, 'UNSAVED_CHANGES'],
    ['/api/git/push', 409, 'NOT_A_REPOSITORY'],
    ['/api/git/pull', 409, 'NOT_A_REPOSITORY'],
  ];
  for (const [kind, [payload, headers]] of Object.entries(noBody)) {
    for (const [route, status, code] of routes) {
      it(`${route} with the body ${kind}: ${status}${code ? ` ${code}` : ''}`, async () => {
        assert.equal((await local.request('POST', '/api/editor/open', { path: 'doc.txt' })).status, 200);
        assert.equal((await local.request('POST', '/api/editor/insert', { text: 'x' })).status, 200);
        const res = await local.request('POST', route, payload, headers);
        assert.equal(res.status, status, res.text);
        if (code) assert.equal(res.json.error.code, code);
      });
    }
  }

  it('saves with no body at all, as curl -X POST sends it', async () => {
    await local.request('POST', '/api/editor/open', { path: 'doc.txt' });
    // The cases above left edits of their own: start from a known text.
    local.write('doc.txt', 'doc\n');
    assert.equal((await local.request('POST', '/api/editor/reload', { path: 'doc.txt' })).status, 200);
    await local.request('POST', '/api/editor/replace', { text: 'saved without a body\n', startLine: 1, startColumn: 1, endLine: 2, endColumn: 1 });
    const res = await local.request('POST', '/api/editor/save');
    assert.equal(res.status, 200, res.text);
    assert.equal(fs.readFileSync(path.join(local.workspace, 'doc.txt'), 'utf8'), 'saved without a body\n');
  });

  it('keeps invalid JSON a 400 INVALID_JSON and a missing required body a 400', async () => {
    for (const route of ['/api/editor/save', '/api/git/push']) {
      const res = await local.request('POST', route, '{"path":');
      assert.equal(res.status, 400);
      assert.equal(res.json.error.code, 'INVALID_JSON');
    }
    assert.equal((await local.request('POST', '/api/editor/open')).status, 400);
    assert.equal((await local.request('POST', '/api/git/commit', '')).json.error.code, 'INVALID_JSON');
  });

  it('takes an empty body of any type on a route that takes no body, answering as without one', async () => {
    // The route runs: an unknown task is its own 404, not a refusal of the body.
    const route = '/api/agent/cancel/task_none';
    const without = await local.request('POST', route);
    assert.equal(without.status, 404);
    assert.equal(without.json.error.code, 'NOT_FOUND');
    for (const [kind, [payload, headers]] of Object.entries(noBody)) {
      const res = await local.request('POST', route, payload, headers);
      assert.deepEqual([res.status, res.json], [without.status, without.json], kind);
    }
  });

  it('keeps the answer of a body that is not empty on a route that takes no body', async () => {
    const route = '/api/agent/cancel/task_none';
    const answers: [body: string, headers: Record<string, string>, status: number, code: string][] = [
      ['{"oops', {}, 400, 'INVALID_JSON'],
      ['<cancel/>', { 'content-type': 'application/xml' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['<cancel/>', { 'content-type': 'application/xml', 'transfer-encoding': 'chunked' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['x', { 'content-type': '' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['{}', {}, 404, 'NOT_FOUND'],
    ];
    for (const [body, headers, status, code] of answers) {
      const res = await local.request('POST', route, body, headers);
      assert.deepEqual([res.status, res.json?.error?.code], [status, code], `${JSON.stringify(headers)} ${body}`);
    }
    // A route that needs a body still refuses an empty one, of any type.
    assert.equal((await local.request('POST', '/api/editor/open', '', { 'content-type': 'application/xml' })).status, 415);
    assert.equal((await local.request('POST', '/api/editor/open', '', { 'content-type': '', 'transfer-encoding': 'chunked' })).status, 415);
    assert.equal((await local.request('POST', '/api/editor/open', '')).json.error.code, 'INVALID_JSON');
  });
});
