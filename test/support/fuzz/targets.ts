// What the fuzz aims at, read from the servers themselves: every operation of their OpenAPI
// documents (the hosted operation table's, the local route table's). A route added later is
// fuzzed without a change here.
import type { JsonSchema } from './schema.ts';

export interface FuzzTarget {
  /** The operationId (the route id, for the local API). */
  id: string;
  method: string;
  /** Path with `{name}` parameters, below the server's prefix. */
  path: string;
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  /** Content types the body may come in. */
  contentTypes: string[];
  /** The body may be left out altogether. */
  bodyOptional?: boolean;
  /**
   * Documented responses: status → schema of the JSON body (null: no body to check, e.g. a
   * redirect or a WebSocket's 101).
   */
  responses: Map<number, JsonSchema | null>;
  /** Error codes the documentation names for each status (the `code`s of its description). */
  errorCodes: Map<number, Set<string>>;
  /** The local API's rate limit budget the route draws on (`x-loom-limit`); undefined for the hosted API. */
  limit?: string;
  /** OpenAPI security requirements ({} = none needed). */
  security?: Record<string, string[]>[];
}

type Json = Record<string, any>;

/** Every operation of an OpenAPI 3.1 document, `$ref`s to components resolved. */
export function targetsFromOpenApi(document: Json): FuzzTarget[] {
  const resolve = (schema: Json | undefined): any => {
    if (!schema || typeof schema !== 'object') return schema;
    if (typeof schema.$ref === 'string') {
      const target = schema.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((node: Json, key: string) => node?.[key], document);
      return resolve(target);
    }
    return Array.isArray(schema) ? schema.map(resolve) : Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, resolve(v as Json)]));
  };
  const targets: FuzzTarget[] = [];
  for (const [path, operations] of Object.entries<Json>(document.paths)) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      const parameters: Json[] = resolve(operation.parameters ?? []);
      const objectOf = (where: string): JsonSchema | undefined => {
        const list = parameters.filter((p) => p.in === where);
        if (list.length === 0) return undefined;
        return {
          type: 'object',
          properties: Object.fromEntries(list.map((p) => [p.name, p.schema ?? {}])),
          required: list.filter((p) => p.required).map((p) => p.name),
        };
      };
      const content: Json = resolve(operation.requestBody?.content ?? {});
      const responses = new Map<number, JsonSchema | null>();
      const errorCodes = new Map<number, Set<string>>();
      for (const [status, response] of Object.entries<Json>(resolve(operation.responses ?? {}))) {
        responses.set(Number(status), response.content?.['application/json']?.schema ?? null);
        errorCodes.set(Number(status), new Set([...String(response.description ?? '').matchAll(/`([A-Za-z_]+)`/g)].map((match) => match[1]!)));
      }
      targets.push({
        id: operation.operationId,
        method: method.toUpperCase(),
        path,
        params: objectOf('path'),
        query: objectOf('query'),
        body: Object.values<Json>(content)[0]?.schema,
        contentTypes: Object.keys(content),
        bodyOptional: operation.requestBody ? operation.requestBody.required !== true : undefined,
        responses,
        errorCodes,
        limit: operation['x-loom-limit'],
        security: operation.security,
      });
    }
  }
  return targets;
}
