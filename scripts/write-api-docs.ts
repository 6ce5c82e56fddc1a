// Rewrites the reference tables of docs/api.md (from the operation and error tables), of
// docs/local-api.md (from the local route table) and of docs/mcp.md (the hosted tools from the
// operation table, `loom mcp`'s from the local route table): npm run docs:api.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { apiTables } from '../src/hosted/docs/api-reference.ts';
import { hostedMcpTables } from '../src/hosted/mcp/reference-docs.ts';
import { localApiTables } from '../src/local/reference-docs.ts';
import { desktopMcpTables } from '../src/mcp/reference-docs.ts';
import { fillTables } from './generated-tables.ts';

for (const [name, tables] of [
  ['api.md', apiTables()],
  ['local-api.md', localApiTables()],
  ['mcp.md', new Map([...hostedMcpTables(), ...desktopMcpTables()])],
] as const) {
  const target = fileURLToPath(new URL(`../docs/${name}`, import.meta.url));
  fs.writeFileSync(target, fillTables(fs.readFileSync(target, 'utf8'), tables, `docs/${name}`));
  console.log(`wrote docs/${name}`);
}
