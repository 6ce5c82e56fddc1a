// The error table and the operation table are the source of truth; the docs must keep up.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { operations } from '../../src/contracts/operations.ts';

const api = fs.readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

describe('docs/api.md', () => {
  it('lists every error code with its status', () => {
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      const row = api.split('\n').find((line) => line.startsWith('|') && new RegExp(`\\b${code}\\b`).test(line.split('|')[1] ?? ''));
      assert.ok(row, `docs/api.md has no row for ${code}`);
      assert.match(row, new RegExp(`\\| ${status} \\|`), `docs/api.md gives ${code} another status than ${status}`);
    }
  });

  it('lists every operation', () => {
    for (const operation of operations) assert.ok(api.includes(`| ${operation.operationId} |`), operation.operationId);
  });
});
