// The reference tables of docs/api.md, rendered from the operation and error tables.
// `npm run docs:api` writes them between their markers in the file (scripts/generated-tables.ts);
// test/contracts/docs.test.ts fails when the file and the tables disagree.
import type { TSchema } from 'typebox';
import { ERROR_CODES, codesOf, meaningOn, OAUTH_ERROR_CODES, type ErrorCode } from '../../contracts/errors.ts';
import { operationErrors, UNIVERSAL_ERRORS } from '../../contracts/operation-errors.ts';
import { operations, type AnyOperation } from '../../contracts/operations.ts';
import { API_PREFIX } from '../../contracts/versioning.ts';

/** Every generated table of docs/api.md, by its marker name: `operations`, `versions`, `errors`. */
export function apiTables(): Map<string, string> {
  return new Map([
    ['operations', operationsTable()],
    ['versions', versionsTable()],
    ['errors', errorsTable()],
  ]);
}

function operationsTable(): string {
  const rows = operations.map((operation) => [operation.operationId, methodAndPath(operation), success(operation), byStatus(operationErrors(operation))]);
  return [
    table(['Operation', 'Method and path', 'Success', 'Errors'], rows),
    '',
    `Besides those listed, every operation may answer ${byStatus(UNIVERSAL_ERRORS)}.`,
  ].join('\n');
}

function versionsTable(): string {
  const isDefault = (operation: AnyOperation) => operation.versions.length === 1 && operation.versions[0] === 'v1';
  const rows = operations.filter((operation) => !isDefault(operation)).map((operation) => [operation.operationId, versionsOf(operation)]);
  return table(['Operation', 'Accepts'], [...rows, ['every other operation', 'v1']]);
}

function errorsTable(): string {
  const codes = codesOf('hosted').sort((a, b) => ERROR_CODES[a].status - ERROR_CODES[b].status);
  const rows = codes.map((code) => [
    code,
    String(ERROR_CODES[code].status),
    meaningOn(code, 'hosted') + (OAUTH_ERROR_CODES.has(code) ? ' The body also has `error_description`.' : ''),
  ]);
  return table(['Code', 'Status', 'Meaning'], rows);
}

function methodAndPath(operation: AnyOperation): string {
  const query = queryNames(operation.request as { query?: TSchema });
  const path = `\`${operation.method} ${API_PREFIX}${operation.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}${query}\``;
  const aliases = (operation as { aliases?: readonly string[] }).aliases ?? [];
  return aliases.length ? `${path} (also ${aliases.map((alias) => `\`${alias}\``).join(', ')})` : path;
}

function queryNames(request: { query?: TSchema }): string {
  const names = Object.keys((request.query as { properties?: object } | undefined)?.properties ?? {});
  return names.length ? `?${names.map((name) => `${name}=`).join('&')}` : '';
}

function success(operation: AnyOperation): string {
  const { status, schema } = operation.success;
  if (status === 302) return '302 redirect (`Location`)';
  const { title, properties } = schema as { title?: string; properties?: object };
  return `${status} ${title ?? `\`{${Object.keys(properties ?? {}).join(', ')}}\``}`;
}

function versionsOf(operation: AnyOperation): string {
  return operation.versions.map((version, index) => (index === 0 ? `${version} (default)` : version)).join(', ');
}

/** `400 validation_error, invalid_json; 413 payload_too_large`, lowest status first. */
function byStatus(codes: readonly ErrorCode[]): string {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of codes) groups.set(ERROR_CODES[code].status, [...(groups.get(ERROR_CODES[code].status) ?? []), code]);
  return [...groups]
    .sort(([a], [b]) => a - b)
    .map(([status, grouped]) => `${status} ${grouped.join(', ')}`)
    .join('; ');
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}
