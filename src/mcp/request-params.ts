// The parameters of the MCP requests Loom's servers answer (initialize, ping, tools/list,
// tools/call), checked before the SDK sees them. The SDK (v1) checks them too, but reports a
// failure as -32603 "Internal error" with a dump of the schema library's issues, which tells a
// client its own mistake is the server's; JSON-RPC's code for it is -32602 "Invalid params".
// Shared by both MCP servers (loom mcp over stdio, the hosted /mcp); here rather than in
// contracts, which depend on no library, and apart from the rest of src/mcp so that what
// imports it loads the SDK's types alone.
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCErrorResponse,
} from '@modelcontextprotocol/sdk/types.js';

const REQUEST_SCHEMAS: Record<string, { safeParse(value: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

/**
 * The JSON-RPC error answering a request of a known method whose params are not what the
 * method takes; undefined for anything else (the SDK answers it).
 *
 * @example
 * invalidParams({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: {} } });
 * // { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params of tools/call: params.name: Invalid input: expected string, received undefined' } }
 */
export function invalidParams(message: unknown): JSONRPCErrorResponse | undefined {
  if (!isJSONRPCRequest(message) || !Object.hasOwn(REQUEST_SCHEMAS, message.method)) return undefined;
  const parsed = REQUEST_SCHEMAS[message.method]!.safeParse(message);
  if (parsed.success) return undefined;
  const issues = (parsed.error?.issues ?? []).map((issue) => `${issue.path.map(String).join('.') || '(message)'}: ${issue.message}`);
  return { jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params of ${message.method}: ${issues.join('; ')}` } };
}
