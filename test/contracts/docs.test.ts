// The error table and the operation table are the source of truth; the docs must keep up.
// docs/api.md's reference tables are generated from them (npm run docs:api); docs/local-api.md
// lists the local API's codes (the table's `surfaces` say which), in UPPER_SNAKE_CASE.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { codesOf, ERROR_CODES } from '../../src/contracts/errors.ts';
import { operations } from '../../src/contracts/operations.ts';
import { apiTables } from '../../src/hosted/docs/api-reference.ts';
import { buildOpenApi } from '../../src/hosted/docs/openapi.ts';
import { localCode } from '../../src/local/errors.ts';
import { fillTables } from '../../scripts/generated-tables.ts';

const read = (name: string) => fs.readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

function row(doc: string, code: string): string | undefined {
  return doc.split('\n').find((line) => line.startsWith('|') && new RegExp(`(^|[ ,])${code}([ ,]|$)`).test(line.split('|')[1] ?? ''));
}

describe('docs', () => {
  it("docs/api.md's generated tables are what the operation and error tables render", () => {
    const written = read('api.md');
    assert.ok(
      written === fillTables(written, apiTables(), 'docs/api.md'),
      'the tables of docs/api.md are out of date with src/contracts; run `npm run docs:api` and commit the result',
    );
  });

  it('refuses a document that has no place for a table', () => {
    assert.throws(() => fillTables('# Hosted API\n', apiTables(), 'docs/api.md'), /docs\/api.md has no place for the table "operations"/);
  });

  it('docs/api.md lists every hosted error code with its status, and every operation', () => {
    const api = read('api.md');
    for (const code of codesOf('hosted')) assert.match(row(api, code) ?? '', new RegExp(`\\| ${ERROR_CODES[code].status} \\|`), code);
    for (const operation of operations) assert.ok(api.includes(`| ${operation.operationId} |`), operation.operationId);
  });

  it('docs/local-api.md lists every local error code with its status', () => {
    const localApi = read('local-api.md');
    for (const code of codesOf('local')) {
      const found = row(localApi, localCode(code));
      assert.ok(found, `docs/local-api.md has no row for ${localCode(code)}`);
      assert.match(
        found,
        new RegExp(`\\| ${ERROR_CODES[code].status} \\|`),
        `docs/local-api.md gives ${localCode(code)} another status than ${ERROR_CODES[code].status}`,
      );
    }
  });

  it('every code is answered by at least one API', () => {
    for (const [code, { surfaces }] of Object.entries(ERROR_CODES)) assert.ok(surfaces.length > 0, code);
  });

  it('the OpenAPI description promises what the operations offer, by their tags, and nothing else', () => {
    const { description } = (buildOpenApi('https://loom.example', '1.0.0') as { info: { description: string } }).info;
    const tags = [...new Set(operations.map((operation) => operation.tag))];
    assert.ok(description.includes(`by tag: ${tags.join(', ')}.`), description);
    // Agent tasks are the desktop app's (the local API): the hosted description never promises them.
    assert.doesNotMatch(description, /agent/i);
  });
});
