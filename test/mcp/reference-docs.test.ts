import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { localRoutes, type LocalRoute } from '../../src/contracts/local-routes.ts';
import { desktopMcpTables } from '../../src/mcp/reference-docs.ts';
import { fillTables } from '../../scripts/generated-tables.ts';

const DOCS = new URL('../../docs/mcp.md', import.meta.url);

describe("docs/mcp.md: loom mcp's tools", () => {
  it('holds the table the route table renders', () => {
    const written = fs.readFileSync(DOCS, 'utf8');
    assert.ok(
      written === fillTables(written, desktopMcpTables(), 'docs/mcp.md'),
      'the desktop tools table of docs/mcp.md is out of date with src/contracts/local-routes.ts; run `npm run docs:api` and commit the result',
    );
  });

  it('lists every route that names a tool, once, with what it takes', () => {
    const table = desktopMcpTables().get('desktop-tools')!;
    for (const route of localRoutes as readonly LocalRoute[]) {
      const rows = table.split('\n').filter((line) => line.includes(`\`${route.method} ${route.path}\``));
      assert.equal(rows.length, route.mcpTool ? 1 : 0, route.id);
    }
    assert.match(table, /\| `get_agent_steps` \| `GET \/api\/agent\/steps\/:taskId` \| `taskId`, `after\?`, `limit\?` \|/);
    assert.match(table, /\| `git_status` \| `GET \/api\/git\/status` \| nothing \| Repository status \| yes \|/);
  });
});
