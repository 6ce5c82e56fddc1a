// The error table and the operation table are the source of truth; the docs must keep up.
// Hosted codes are documented in docs/api.md; the local API's (meanings starting "Local API")
// in docs/local-api.md, in the local envelope's UPPER_SNAKE_CASE.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { operations } from '../../src/contracts/operations.ts';
import { localCode } from '../../src/local/errors.ts';

const read = (name: string) => fs.readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');
const api = read('api.md');
const localApi = read('local-api.md');

function row(doc: string, code: string): string | undefined {
  return doc.split('\n').find((line) => line.startsWith('|') && new RegExp(`(^|[ ,])${code}([ ,]|$)`).test(line.split('|')[1] ?? ''));
}

describe('docs', () => {
  it('docs/api.md lists every hosted error code with its status', () => {
    for (const [code, { status, meaning }] of Object.entries(ERROR_CODES)) {
      if (meaning.startsWith('Local API')) continue;
      const found = row(api, code);
      assert.ok(found, `docs/api.md has no row for ${code}`);
      assert.match(found, new RegExp(`\\| ${status} \\|`), `docs/api.md gives ${code} another status than ${status}`);
    }
  });

  it('docs/local-api.md lists every local error code with its status', () => {
    for (const [code, { status, meaning }] of Object.entries(ERROR_CODES)) {
      if (!meaning.startsWith('Local API')) continue;
      const found = row(localApi, localCode(code));
      assert.ok(found, `docs/local-api.md has no row for ${localCode(code)}`);
      assert.match(found, new RegExp(`\\| ${status} \\|`), `docs/local-api.md gives ${localCode(code)} another status than ${status}`);
    }
  });

  it('docs/api.md lists every operation', () => {
    for (const operation of operations) assert.ok(api.includes(`| ${operation.operationId} |`), operation.operationId);
  });
});
