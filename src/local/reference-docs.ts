// The reference tables of docs/local-api.md, rendered from the local route table. Each table
// sits between two marker comments (`<!-- generated:NAME -->` … `<!-- /generated:NAME -->`);
// the prose around them is written by hand. `npm run docs:api` rewrites the tables
// (scripts/generated-tables.ts);
// test/local/reference-docs.test.ts fails when the file and the table disagree.
import type { TSchema } from 'typebox';
import { codesOf, ERROR_CODES, meaningOn } from '../contracts/errors.ts';
import { localCode } from '../contracts/local-resources.ts';
import { LOCAL_TAGS, localRoutes, type LocalRoute, type LocalTag } from '../contracts/local-routes.ts';

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
};

const routes = localRoutes as readonly LocalRoute[];

/** Every generated table, by its marker name: one per tag, `routes` (the summary of every route) and `errors` (every local code). */
export function localApiTables(): Map<string, string> {
  const tables = new Map<string, string>();
  for (const tag of Object.keys(LOCAL_TAGS) as LocalTag[]) tables.set(tag.toLowerCase(), areaTable(routes.filter((route) => route.tag === tag)));
  tables.set('routes', summaryTable());
  tables.set('errors', errorsTable());
  return tables;
}

/** Every code the local API answers with, by status (as docs/api.md lists the hosted ones). */
function errorsTable(): string {
  const codes = codesOf('local').sort((a, b) => ERROR_CODES[a].status - ERROR_CODES[b].status);
  const rows = codes.map((code) => [localCode(code), String(ERROR_CODES[code].status), meaningOn(code, 'local')]);
  return table(['Code', 'Status', 'Meaning'], rows);
}

function areaTable(area: readonly LocalRoute[]): string {
  const rows = area.map((route) => [
    `\`${route.method} ${route.path}\``,
    input(route),
    route.success.status === 101 ? `a WebSocket; messages ${code(shape(route.success.schema))}` : code(shape(route.success.schema)),
    [route.summary, route.emits?.length ? `emits ${route.emits.map((type) => `\`${type}\``).join(', ')}` : ''].filter(Boolean).join('; '),
  ]);
  return table(['Route', 'Input', 'Answer', 'Notes'], rows);
}

function summaryTable(): string {
  const rows = routes.map((route) => [
    `\`${route.id}\``,
    `\`${route.method} ${route.path}\``,
    route.access === 'ticket' ? 'token, or a ticket on the upgrade' : route.access === 'window' ? 'window only (never the token)' : (route.access ?? 'token'),
    route.limit ?? 'default',
    route.errors.length ? [...new Set(route.errors)].map((error) => `\`${localCode(error)}\``).join(', ') : '—',
    route.mcpTool ? `\`${route.mcpTool}\`` : '—',
  ]);
  return table(['id', 'Route', 'Access', 'Budget', 'Errors of its own', 'MCP tool'], rows);
}

function input(route: LocalRoute): string {
  const { query, body } = route.request;
  const parts: string[] = [];
  if (query)
    parts.push(
      code(
        `?${Object.keys((query as Schema).properties ?? {})
          .map((name) => `${name}=`)
          .join('&')}`,
      ),
    );
  if (body) parts.push(code(shape(body)));
  return parts.join(' ') || '—';
}

/**
 * A schema's shape in one line: an object's fields (`name?` when optional), with the fields of
 * nested objects and of arrays of objects; a union's options.
 */
function shape(schema: TSchema | Schema): string {
  const node = schema as Schema;
  if (node.anyOf) {
    const options = node.anyOf.filter((option) => option.type !== 'null');
    return options.length === 1 ? shape(options[0]!) : options.map(shape).join(' | ');
  }
  if (node.properties) {
    const required = new Set(node.required ?? []);
    const fields = Object.entries(node.properties).map(([name, field]) => `${name}${required.has(name) ? '' : '?'}${nested(field)}`);
    return `{${fields.join(', ')}}`;
  }
  if (node.items) return `[${shape(node.items)}]`;
  return node.type ?? 'any';
}

/** What follows a field's name: its own fields, when it has some. */
function nested(field: Schema): string {
  if (field.properties) return `: ${shape(field)}`;
  if (field.items?.properties) return `: [${shape(field.items)}]`;
  return '';
}

function code(text: string): string {
  return `\`${text}\``;
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}
