// One JSON-RPC message in, one HTTP answer out, through the MCP SDK's server and its Streamable
// HTTP transport in stateless mode: a fresh server per request, no session, nothing kept in
// memory between requests, so that any replica answers any request (and the revision that
// drops sessions altogether changes little here). Answers are JSON, never an SSE stream: a
// stateless server has nothing to send later.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { invalidParams } from '../../mcp/request-params.ts';
import type { CallContext, McpTool } from './tools.ts';

export interface ProtocolAnswer {
  status: number;
  contentType: string | null;
  body: string;
}

export interface ProtocolRequest {
  /** The message as parsed from the body. */
  message: unknown;
  /** The request headers the transport reads (Accept, Content-Type, MCP-Protocol-Version). */
  headers: Record<string, string | string[] | undefined>;
  /** The endpoint's URL, as the transport reports it to handlers. */
  url: string;
  /** What a tool's handler is told about the caller; its signal also ends when the client cancels. */
  context: CallContext;
}

/** The transport reads these; nothing else of the request reaches the SDK. */
const FORWARDED_HEADERS = ['accept', 'content-type', 'mcp-protocol-version'] as const;

/** Serves the protocol for one request. */
export interface ProtocolServer {
  answer(request: ProtocolRequest): Promise<ProtocolAnswer>;
}

/**
 * A server offering `tools` (and the protocol's own requests: initialize, ping, tools/list).
 *
 * @example
 * const protocol = protocolServer({ name: 'loom', version: '1.0.0' }, buildTools(handlers), 'Tools of Loom.');
 * const { status, body } = await protocol.answer({ message, headers, url, context });
 */
export function protocolServer(
  info: { name: string; title: string; version: string },
  tools: ReadonlyMap<string, McpTool>,
  instructions: string,
): ProtocolServer {
  const definitions = [...tools.values()].map((tool) => tool.definition);
  return {
    async answer({ message, headers, url, context }) {
      const refusal = invalidParams(message);
      if (refusal) return { status: 200, contentType: 'application/json', body: JSON.stringify(refusal) };
      const server = new Server(info, { capabilities: { tools: { listChanged: false } }, instructions });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: definitions }));
      server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        const tool = tools.get(request.params.name);
        if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
        return tool.call(request.params.arguments, { ...context, signal: AbortSignal.any([context.signal, extra.signal]) });
      });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        const forwarded = new Headers();
        for (const name of FORWARDED_HEADERS) {
          const value = headers[name];
          if (typeof value === 'string') forwarded.set(name, value);
        }
        const response = await transport.handleRequest(new Request(url, { method: 'POST', headers: forwarded }), { parsedBody: message });
        return { status: response.status, contentType: response.headers.get('content-type'), body: await response.text() };
      } finally {
        await server.close();
      }
    },
  };
}
