// /llms.txt and /sitemap.xml, derived from the operation table.
import { MCP_MANIFEST_PATHS, MCP_PATH } from '../../contracts/mcp.ts';
import { operations } from '../../contracts/operations.ts';
import { API_PREFIX } from '../../contracts/versioning.ts';

/** Documents served beside the API, with what they are. */
export const DOCUMENTS = [
  { path: '/openapi.json', title: 'OpenAPI 3.1 description (JSON)' },
  { path: '/openapi.yaml', title: 'OpenAPI 3.1 description (YAML)' },
  ...MCP_MANIFEST_PATHS.map((path) => ({ path, title: 'MCP server card: endpoint, authorization and tools with their schemas' })),
  { path: '/llms.txt', title: 'This index' },
] as const;

export function buildLlmsTxt(publicUrl: string): string {
  const lines = [
    '# Loom hosted API',
    '',
    '> The hosted API of Loom, an open, self-hostable AI code editor. JSON over HTTPS under',
    `> ${publicUrl}${API_PREFIX}. Errors are {error, message, hint?}; every response carries`,
    '> RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset. Send API-Version to pick a version.',
    '',
    '## Operations',
    '',
    ...operations.map((o) => `- [${o.operationId}](${publicUrl}${API_PREFIX}${o.path}): ${o.method} ${API_PREFIX}${o.path} — ${o.summary}. ${o.description}`),
    '',
    '## MCP',
    '',
    `> An MCP server (Streamable HTTP, stateless) at ${publicUrl}${MCP_PATH}. Each tool mirrors an operation and takes and returns what it does.`,
    '',
    ...operations.flatMap((o) => ('mcpTool' in o && o.mcpTool ? [`- ${o.mcpTool}: the operation ${o.operationId} — ${o.summary}.`] : [])),
    '',
    '## Documents',
    '',
    ...DOCUMENTS.map((d) => `- [${d.title}](${publicUrl}${d.path})`),
    '',
  ];
  return lines.join('\n');
}

export function buildSitemap(publicUrl: string): string {
  const urls = [
    ...operations.filter((o) => o.method === 'GET' && o.success.status === 200 && !o.path.includes(':')).map((o) => publicUrl + API_PREFIX + o.path),
    ...DOCUMENTS.map((d) => publicUrl + d.path),
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...urls.map((url) => `  <url><loc>${escapeXml(url)}</loc></url>`),
    '</urlset>',
    '',
  ].join('\n');
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}
