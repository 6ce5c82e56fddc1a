import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { localRoutes } from '../../src/contracts/local-routes.ts';
import { localApiTables } from '../../src/local/reference-docs.ts';
import { fillTables } from '../../scripts/generated-tables.ts';

const DOCS = new URL('../../docs/local-api.md', import.meta.url);

describe('docs/local-api.md', () => {
  it('holds the reference tables the route table renders', () => {
    const written = fs.readFileSync(DOCS, 'utf8');
    assert.ok(
      written === fillTables(written, localApiTables(), 'docs/local-api.md'),
      'the tables of docs/local-api.md are out of date with src/contracts/local-routes.ts; run `npm run docs:api` and commit the result',
    );
  });

  it('lists every route, in its area and in the summary', () => {
    const tables = [...localApiTables().values()].join('\n');
    for (const route of localRoutes) {
      // Route rows only: an error code's meaning may name a route too.
      const rows = tables.split('\n').filter((line) => line.startsWith('| `') && line.includes(`\`${route.method} ${route.path}\``));
      assert.equal(rows.length, 2, `${route.id}: ${rows.join(' / ')}`);
    }
  });

  it('refuses a document that has no place for a table', () => {
    assert.throws(() => fillTables('# Local API\n', localApiTables(), 'docs/local-api.md'), /no place for the table/);
  });
});
