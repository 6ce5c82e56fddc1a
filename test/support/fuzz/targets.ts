// What the fuzz aims at, read from the servers themselves: every operation of the hosted
// OpenAPI document and every route the local app registered. A route added later is fuzzed
// without a change here.
import type { LocalRoute } from '../../../src/local/app.ts';
import type { JsonSchema } from './schema.ts';

export interface FuzzTarget {
  /** operationId, or "METHOD /url" for a local route. */
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
   * redirect). Undefined when the server documents none per route (the local API), where the
   * error table decides.
   */
  responses?: Map<number, JsonSchema | null>;
  /** Error codes the documentation names for each status (hosted: the `code`s of its description). */
  errorCodes?: Map<number, Set<string>>;
  /** The local API's rate limit budget the route draws on; undefined for the hosted API. */
  limit?: string;
  /** OpenAPI security requirements ({} = none needed); undefined for the local API. */
  security?: Record<string, string[]>[];
}

type Json = Record<string, any>;

/** Every operation of an OpenAPI 3.1 document, `$ref`s to components resolved. */
export function targetsFromOpenApi(document: Json): FuzzTarget[] {
  const resolve = (schema: Json | undefined): any => {
    if (!schema || typeof schema !== 'object') return schema;
    if (typeof schema.$ref === 'string') {
      const target = schema.$ref.replace(/^#\//, '').split('/').reduce((node: Json, key: string) => node?.[key], document);
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
        errorCodes.set(Number(status), new Set([...String(response.description ?? '').matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!)));
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
        security: operation.security,
      });
    }
  }
  return targets;
}

/**
 * Every HTTP route the local app registered (HEAD routes are the GET routes' twins and are
 * reached by sending HEAD to those; WebSocket routes are fuzzed as plain GETs).
 */
export function targetsFromLocalRoutes(routes: readonly LocalRoute[]): FuzzTarget[] {
  return routes
    .filter((route) => route.method !== 'HEAD')
    .map((route) => ({
      id: `${route.method} ${route.url}`,
      method: route.method,
      path: route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
      params: route.schema?.params as JsonSchema | undefined,
      query: route.schema?.querystring as JsonSchema | undefined,
      body: route.schema?.body as JsonSchema | undefined,
      contentTypes: ['application/json'],
      // The local API reads a missing body as {} when none of its fields is required.
      bodyOptional: route.schema?.body ? !((route.schema.body as { required?: unknown[] }).required?.length) : undefined,
      limit: route.limit,
    }));
}
