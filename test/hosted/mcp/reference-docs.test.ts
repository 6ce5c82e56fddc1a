// docs/mcp.md's table of the hosted tools is the operation table's: one row per operation that
// names a tool, with what it takes and who may call it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { fillTables } from '../../../scripts/generated-tables.ts';
import { operations, type AnyOperation } from '../../../src/contracts/operations.ts';
import { hostedMcpTables } from '../../../src/hosted/mcp/reference-docs.ts';

const DOCS = new URL('../../../docs/mcp.md', import.meta.url);

describe("docs/mcp.md: the hosted server's tools", () => {
  it('holds the table the operation table renders', () => {
    const written = fs.readFileSync(DOCS, 'utf8');
    assert.ok(
      written === fillTables(written, hostedMcpTables(), 'docs/mcp.md'),
      'the hosted tools table of docs/mcp.md is out of date with src/contracts/operations.ts; run `npm run docs:api` and commit the result',
    );
  });

  it('lists every operation that names a tool, once, with what it takes and who may call it', () => {
    const table = hostedMcpTables().get('hosted-tools')!;
    for (const operation of operations as readonly AnyOperation[]) {
      const rows = table.split('\n').filter((line) => line.includes(` | ${operation.operationId} | `));
      assert.equal(rows.length, (operation as { mcpTool?: string }).mcpTool ? 1 : 0, operation.operationId);
    }
    assert.match(table, /\| `list_downloads` \| listDownloads \| `product\?`, `platform\?` \| anyone; or a token with `read:downloads`, or an API key \|/);
    assert.match(table, /\| `list_models` \| listModels \| nothing \| anyone; or a token with `read:models` \|/);
    assert.match(table, /\| `get_composer_session` \| getComposerSession \| `sessionId` \| a token with `write:composer`, or an API key \|/);
  });
});
