// Building blocks of the two OpenAPI 3.1 documents (the hosted API's and the local API's): the
// parts they describe alike. Each server's document says what differs (servers, security, its
// error envelope and how it spells error codes).
import type { TSchema } from 'typebox';
import { plainSchema } from '../contracts/schema-helpers.ts';
import { ERROR_CODES, meaningOn, type ErrorCode, type Surface } from '../contracts/errors.ts';

export type Json = Record<string, unknown>;

/** A Fastify path (`/download/:product`) as an OpenAPI path (`/download/{product}`). */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The `paths` object: each item described under its OpenAPI path and its method. */
export function pathsOf<T extends { method: string; path: string }>(items: readonly T[], describe: (item: T) => Json): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const item of items) {
    const path = openApiPath(item.path);
    paths[path] = { ...(paths[path] ?? {}), [item.method.toLowerCase()]: describe(item) };
  }
  return paths;
}

/** The properties of a params or query schema as OpenAPI parameters. */
export function parametersOf(schema: TSchema | undefined, location: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const object = schema as { properties?: Record<string, TSchema & { description?: string }>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (object.required ?? []).includes(name),
    ...(property.description ? { description: property.description } : {}),
    schema: plainSchema(property),
  }));
}

/** The headers every answer carries, as components (`#/components/headers/…`). */
export const RATE_LIMIT_HEADERS: Json = {
  'RateLimit-Limit': header('Requests allowed per window.', 'integer'),
  'RateLimit-Remaining': header('Requests left in the current window.', 'integer'),
  'RateLimit-Reset': header('Seconds until the window resets.', 'integer'),
  'Retry-After': header('Seconds to wait before retrying.', 'integer'),
};

/** References to the rate limit headers, for a response. */
export function rateLimitHeaders(): Json {
  return {
    'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
    'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
    'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  };
}

export function header(description: string, type: string): Json {
  return { description, schema: { type } };
}

/**
 * One response per status the codes answer with, in status order, each naming its codes (as
 * `spell` writes them, in backquotes) with their meaning on `surface`, the rate limit headers (and
 * Retry-After on 429) and the error schema at `errorRef`.
 */
export function errorResponses(codes: readonly ErrorCode[], surface: Surface, spell: (code: ErrorCode) => string, errorRef: string): Json {
  const responses: Json = {};
  for (const [status, group] of groupByStatus(codes)) {
    const headers = rateLimitHeaders();
    if (status === 429) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    responses[status] = {
      description: group.map((code) => `\`${spell(code)}\`: ${meaningOn(code, surface)}`).join(' '),
      headers,
      content: { 'application/json': { schema: { $ref: errorRef } } },
    };
  }
  return responses;
}

function groupByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CODES[code].status;
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return new Map([...groups].sort(([a], [b]) => a - b));
}
