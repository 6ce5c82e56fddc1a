// The table of the hosted MCP server's tools in docs/mcp.md, rendered from the operation table
// (between `<!-- generated:hosted-tools -->` markers; `npm run docs:api` rewrites it, and
// test/hosted/mcp/reference-docs.test.ts fails when the file and the operation table disagree).
import type { OperationAuth } from '../../contracts/auth.ts';
import { requestParts, toolArgumentsInWords } from '../../contracts/mcp.ts';
import { operations, type AnyOperation } from '../../contracts/operations.ts';

/**
 * The generated table of docs/mcp.md for the hosted tools, by marker name.
 *
 * @example fillTables(markdown, hostedMcpTables(), 'docs/mcp.md');
 */
export function hostedMcpTables(): Map<string, string> {
  const rows = (operations as readonly AnyOperation[]).flatMap((operation) => {
    const name = (operation as { mcpTool?: string }).mcpTool;
    return name
      ? [
          [
            `\`${name}\``,
            operation.operationId,
            toolArgumentsInWords(operation.operationId, requestParts(operation.request)),
            whoMayCall(operation.auth as OperationAuth),
          ],
        ]
      : [];
  });
  const lines = [['Tool', 'Operation', 'Takes', 'Who may call it'], ['---', '---', '---', '---'], ...rows].map((cells) => `| ${cells.join(' | ')} |`);
  return new Map([['hosted-tools', lines.join('\n')]]);
}

/** The operation's rule in words: `anyone; or a token with read:downloads, or an API key`. */
function whoMayCall(auth: OperationAuth): string {
  const credentials = [
    ...(auth.oauth2?.length ? [`a token with ${auth.oauth2.map((scope) => `\`${scope}\``).join(' or ')}`] : []),
    ...(auth.bearer ? ['an API key'] : []),
  ].join(', or ');
  return auth.anonymous ? `anyone${credentials ? `; or ${credentials}` : ''}` : credentials;
}
