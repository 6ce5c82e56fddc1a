// The MCP tools, generated from the operation table: one per operation that names an
// `mcpTool`. A tool takes what its operation takes (path parameters, query and body as one
// object of arguments) and returns what it returns; its arguments are checked by the same
// schemas and the same validator as the REST request, and fail with the same Error body.
import type { ValidateFunction } from 'ajv';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { TSchema } from 'typebox';
import type { OperationAuth } from '../../contracts/auth.ts';
import { operations, type AnyOperation } from '../../contracts/operations.ts';
import { argumentsByPart, toolInputSchema, toolOutputSchema, type RequestPartKey } from '../../contracts/mcp.ts';
import { describeError } from '../../http/errors.ts';
import { jsonValidator, validationFailure } from '../../http/validation.ts';
import type { HandlerContext, Handlers } from '../handlers/index.ts';

/** The parts of a request, named as the REST validation names them in its messages. */
const PARTS = [
  { key: 'params', context: 'params' },
  { key: 'query', context: 'querystring' },
  { key: 'body', context: 'body' },
] as const;

type PartKey = RequestPartKey;
type Arguments = Record<string, unknown>;

export interface McpTool {
  /** What `tools/list` shows. */
  definition: Tool;
  operation: AnyOperation;
  /** Who may call it: the operation's own rule. */
  auth: OperationAuth;
  /** Calls the operation's handler with these arguments; failures become `isError` results. */
  call(args: Arguments | undefined, context: CallContext): Promise<CallToolResult>;
}

/** The handler's context but for the API version: a tool serves its operation's default one. */
export type CallContext = Omit<HandlerContext, 'version'>;

interface Part {
  key: PartKey;
  context: (typeof PARTS)[number]['context'];
  schema: TSchema;
  validate: ValidateFunction;
}

/**
 * The tools of the operation table, in its order: an operation that gets an `mcpTool` name
 * becomes a tool with no other code. Built once per server: every schema is compiled here,
 * none per request.
 *
 * @example
 * const tools = buildTools(createHandlers(services));
 * tools.get('list_models')?.definition.inputSchema; // { type: 'object', properties: {}, additionalProperties: false }
 */
export function buildTools(handlers: Handlers, table: readonly AnyOperation[] = operations): Map<string, McpTool> {
  const ajv = jsonValidator();
  const tools = new Map<string, McpTool>();
  for (const operation of table) {
    const name = (operation as { mcpTool?: string }).mcpTool;
    if (!name) continue;
    const request = operation.request as Partial<Record<PartKey, TSchema>>;
    const parts: Part[] = PARTS.flatMap(({ key, context }) => {
      const schema = request[key];
      return schema ? [{ key, context, schema, validate: ajv.compile(schema) }] : [];
    });
    const handler = handlers[operation.operationId] as (input: unknown, context: HandlerContext) => Promise<unknown>;
    tools.set(name, {
      definition: toolDefinition(name, operation, parts),
      operation,
      auth: operation.auth as OperationAuth,
      call: async (args, context) => {
        try {
          const output = await handler(splitArguments(parts, args ?? {}), { ...context, version: operation.versions[0] });
          return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output as Record<string, unknown> };
        } catch (error) {
          const { body } = describeError(error);
          return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
        }
      },
    });
  }
  return tools;
}

function toolDefinition(name: string, operation: AnyOperation, parts: Part[]): Tool {
  const scopes = (operation.auth as OperationAuth).oauth2 ?? [];
  return {
    name,
    title: operation.summary,
    description: operation.description,
    inputSchema: toolInputSchema(operation.operationId, parts) as Tool['inputSchema'],
    outputSchema: toolOutputSchema(operation.operationId, operation.success.schema) as Tool['outputSchema'],
    // Scopes say what an operation may change: one that needs only read:* scopes changes nothing.
    ...(scopes.length ? { annotations: { title: operation.summary, readOnlyHint: scopes.every((s) => s.startsWith('read:')) } } : {}),
  };
}

/** The handler's input: the arguments split into parts, each checked by that part's schema; the first part that fails throws what REST answers for it. */
function splitArguments(parts: Part[], args: Arguments): Record<PartKey, unknown> {
  const input: Record<PartKey, unknown> = { params: undefined, query: undefined, body: undefined };
  const split = argumentsByPart(parts, args);
  for (const part of parts) {
    const value = split[part.key];
    if (!part.validate(value)) throw validationFailure(part.validate.errors, part.context);
    input[part.key] = value;
  }
  return input;
}
