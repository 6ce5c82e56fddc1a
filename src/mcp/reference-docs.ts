// The table of `loom mcp`'s tools in docs/mcp.md, rendered from the local route table (between
// `<!-- generated:desktop-tools -->` markers; `npm run docs:api` rewrites it, and
// test/mcp/reference-docs.test.ts fails when the file and the route table disagree).
import { localRoutes, type LocalRoute } from '../contracts/local-routes.ts';
import { requestParts, toolArgumentsInWords } from '../contracts/mcp.ts';

/**
 * The generated tables of docs/mcp.md, by marker name.
 *
 * @example fillTables(markdown, desktopMcpTables(), 'docs/mcp.md');
 */
export function desktopMcpTables(): Map<string, string> {
  const rows = (localRoutes as readonly LocalRoute[])
    .filter((route) => route.mcpTool)
    .map((route) => [
      `\`${route.mcpTool}\``,
      `\`${route.method} ${route.path}\``,
      toolArgumentsInWords(route.id, requestParts(route.request)),
      route.summary,
      route.method === 'GET' ? 'yes' : 'no',
    ]);
  const lines = [['Tool', 'Route', 'Takes', 'What it does', 'Read-only'], ['---', '---', '---', '---', '---'], ...rows].map(
    (cells) => `| ${cells.join(' | ')} |`,
  );
  return new Map([['desktop-tools', lines.join('\n')]]);
}
