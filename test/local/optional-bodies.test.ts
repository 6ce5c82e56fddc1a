// Local routes whose body fields are all optional take no body at all, or an empty one sent as
// JSON, as {}: `curl -X POST …/api/editor/save` saves. Invalid JSON stays 400 INVALID_JSON, and
// a route with a required field still needs its body.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestLocal, type TestLocal } from '../support/local.ts';

describe('optional bodies on the local API', () => {
  let local: TestLocal;
  before(async () => {
    // Not a repository: git routes that accept the body answer NOT_A_REPOSITORY, proving they ran.
    local = await startTestLocal({ files: { 'doc.txt': 'doc\n' } });
    assert.equal((await local.request('POST', '/api/editor/open', { path: 'doc.txt' })).status, 200);
  });
  after(() => local.close());

  const noBody = { omitted: undefined, 'empty JSON': '' } as const;
  // Each answer shows the route ran with {}: close refuses the unsaved edit (no discard given),
  // git finds no repository.
  const routes: [route: string, status: number, code?: string][] = [
    ['/api/editor/save', 200],
    ['/api/editor/reload', 200],
    ['/api/editor/close', 409, 'UNSAVED_CHANGES'],
    ['/api/git/push', 409, 'NOT_A_REPOSITORY'],
    ['/api/git/pull', 409, 'NOT_A_REPOSITORY'],
  ];
  for (const [kind, payload] of Object.entries(noBody)) {
    for (const [route, status, code] of routes) {
      it(`${route} with the body ${kind}: ${status}${code ? ` ${code}` : ''}`, async () => {
        assert.equal((await local.request('POST', '/api/editor/open', { path: 'doc.txt' })).status, 200);
        assert.equal((await local.request('POST', '/api/editor/insert', { text: 'x' })).status, 200);
        const headers: Record<string, string> = payload === undefined ? {} : { 'content-type': 'application/json' };
        const res = await local.request('POST', route, payload, headers);
        assert.equal(res.status, status, res.text);
        if (code) assert.equal(res.json.error.code, code);
      });
    }
  }

  it('saves with no body at all, as curl -X POST sends it', async () => {
    await local.request('POST', '/api/editor/open', { path: 'doc.txt' });
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
});
