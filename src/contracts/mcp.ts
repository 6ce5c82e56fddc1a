// The MCP side of the contracts: the hosted MCP server's address (interface.md: "Tool-protocol
// server: Streamable HTTP at {mcp_url}"), shared by the routes, the authorization server (the
// resource it names) and the documents that point at it; and how an entry of a table (a hosted
// operation, a local route) becomes an MCP tool, shared by the hosted server and `loom mcp` so
// that both make tools of their tables by one rule.
import type { TSchema } from 'typebox';
import { plainSchema } from './schema-helpers.ts';

/** Path of the MCP endpoint on the hosted server; `{mcp_url}` is the public URL plus this. */
export const MCP_PATH = '/mcp';

/** Where the server card is served (both paths, the same document). */
export const MCP_MANIFEST_PATHS = ['/.well-known/mcp.json', '/mcp.json'] as const;

/** The parts of a request a tool's arguments stand for, in the order they are matched. */
export const REQUEST_PARTS = ['params', 'query', 'body'] as const;
export type RequestPartKey = (typeof REQUEST_PARTS)[number];

/** One part of a request as the table declares it. */
export interface RequestPart {
  key: RequestPartKey;
  schema: TSchema;
}

type ObjectSchema = { properties?: Record<string, unknown>; required?: string[]; additionalProperties?: unknown };
type Arguments = Record<string, unknown>;

/**
 * The parts a request declares, in the order path parameters, query, body.
 *
 * @example requestParts({ params: AgentTaskParams, query: AgentStepsQuery }).map((p) => p.key); // ['params', 'query']
 */
export function requestParts(request: Partial<Record<RequestPartKey, TSchema>>): RequestPart[] {
  return REQUEST_PARTS.flatMap((key) => (request[key] ? [{ key, schema: request[key] }] : []));
}

/**
 * A tool's `inputSchema`: the one part a request has, as it is; none, an empty object; several
 * (path parameters and a body, say), their fields side by side, which therefore must not share
 * a name. `owner` names the table entry in the error thrown when they do.
 *
 * @example toolInputSchema('getAgentStatus', requestParts({ params: AgentTaskParams })); // { type: 'object', properties: { taskId: … }, required: ['taskId'] }
 */
export function toolInputSchema(owner: string, parts: readonly RequestPart[]): Record<string, unknown> {
  if (parts.length === 0) return { type: 'object', properties: {}, additionalProperties: false };
  if (parts.length === 1) return plainSchema(parts[0]!.schema);
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const part of parts) {
    const schema = part.schema as ObjectSchema;
    for (const [field, fieldSchema] of Object.entries(schema.properties ?? {})) {
      if (field in properties) throw new Error(`${owner}: "${field}" is in two parts of the request; an MCP tool cannot tell them apart`);
      properties[field] = fieldSchema;
    }
    required.push(...(schema.required ?? []));
  }
  const body = parts.find((part) => part.key === 'body');
  return plainSchema({
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    ...((body?.schema as ObjectSchema | undefined)?.additionalProperties === false ? { additionalProperties: false } : {}),
  } as TSchema);
}

/**
 * A tool's arguments as a reference table shows them: `name`, or `name?` when optional;
 * `nothing` when it takes none.
 *
 * @example toolArgumentsInWords('getAgentStatus', requestParts({ params: AgentTaskParams })); // '`taskId`'
 */
export function toolArgumentsInWords(owner: string, parts: readonly RequestPart[]): string {
  const schema = toolInputSchema(owner, parts) as ObjectSchema;
  const required = new Set(schema.required ?? []);
  const fields = Object.keys(schema.properties ?? {}).map((name) => `\`${name}${required.has(name) ? '' : '?'}\``);
  return fields.length ? fields.join(', ') : 'nothing';
}

/**
 * A tool's `outputSchema`: the success schema, which must describe an object (MCP's
 * `structuredContent` is one).
 *
 * @example toolOutputSchema('getGitStatus', GitStatus).type; // 'object'
 */
export function toolOutputSchema(owner: string, schema: TSchema): Record<string, unknown> {
  const output = plainSchema(schema);
  if (output.type !== 'object') throw new Error(`${owner}: an MCP tool's result must be an object schema`);
  return output;
}

/**
 * A tool's arguments split back into the request's parts: a lone part gets every argument (so
 * its schema judges unknown ones as the API would); of several, each gets its own fields and the
 * last one also those no part declares. Each part is a fresh object (validation may fill in
 * defaults).
 *
 * @example argumentsByPart(parts, { taskId: 't1', after: 3 }); // { params: { taskId: 't1' }, query: { after: 3 } }
 */
export function argumentsByPart(parts: readonly RequestPart[], args: Arguments): Partial<Record<RequestPartKey, Arguments>> {
  const declared = (part: RequestPart) => (part.schema as ObjectSchema).properties ?? {};
  const claimed = new Set(parts.flatMap((part) => Object.keys(declared(part))));
  const last = parts.at(-1);
  const split: Partial<Record<RequestPartKey, Arguments>> = {};
  for (const part of parts) {
    const fields = Object.entries(args).filter(
      ([field]) => parts.length === 1 || Object.hasOwn(declared(part), field) || (part === last && !claimed.has(field)),
    );
    split[part.key] = structuredClone(Object.fromEntries(fields));
  }
  return split;
}
