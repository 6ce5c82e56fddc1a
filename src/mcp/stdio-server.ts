// `loom mcp`'s protocol side: the MCP SDK's server over stdio (our transport, which reads with
// limits and answers what it cannot take: stdio-transport.ts), offering the local tools. stdout
// carries the protocol and nothing else; nothing here prints. The server lives as long as its
// client keeps stdin open.
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { invalidParams } from './request-params.ts';
import type { LocalTool } from './local-tools.ts';
import { GuardedStdioTransport } from './stdio-transport.ts';

export interface StdioServerOptions {
  info: { name: string; title: string; version: string };
  /** What the client is told about the server as a whole (the `instructions` of initialize). */
  instructions: string;
  tools: ReadonlyMap<string, LocalTool>;
  /** process.stdin and process.stdout by default. */
  stdin?: Readable;
  stdout?: Writable;
  /** Hears of messages that could not be read (not JSON, not JSON-RPC, too large); nobody by default. */
  onError?: (error: Error) => void;
}

export interface RunningStdioServer {
  /** Settles when the client closes stdin (or close() is called). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves `tools` over stdio (and the protocol's own requests: initialize, ping, tools/list).
 *
 * @example
 * const server = await serveStdio({ info: { name: 'loom-desktop', title: 'Loom desktop app', version }, instructions, tools: buildLocalTools(findApp) });
 * await server.closed;
 */
export async function serveStdio(options: StdioServerOptions): Promise<RunningStdioServer> {
  const { tools } = options;
  const stdin = options.stdin ?? process.stdin;
  const definitions = [...tools.values()].map((tool) => tool.definition);
  const server = new Server(options.info, { capabilities: { tools: { listChanged: false } }, instructions: options.instructions });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: definitions }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return tool.call(request.params.arguments, extra.signal);
  });
  server.onerror = (error) => options.onError?.(error);

  let closeServer!: () => void;
  const closed = new Promise<void>((resolve) => (closeServer = resolve));
  server.onclose = () => closeServer();
  const transport = new GuardedStdioTransport(stdin, options.stdout ?? process.stdout);
  await server.connect(transport);
  refuseInvalidParams(transport);
  answerBeforeClosing(transport, stdin, () => void server.close());
  return {
    closed,
    async close() {
      await server.close();
    },
  };
}

/**
 * Answers a request whose params its method does not take with -32602 (request-params.ts)
 * instead of handing it to the SDK, which would answer -32603. Sent through `transport.send` as
 * it is when the request arrives, so that answerBeforeClosing sees the answer go out.
 */
function refuseInvalidParams(transport: GuardedStdioTransport): void {
  const receive = transport.onmessage!;
  transport.onmessage = (message) => {
    const refusal = invalidParams(message);
    if (refusal) void transport.send(refusal);
    else receive(message);
  };
}

/**
 * Closes once the input has ended AND every request read has been answered: a client that writes
 * its requests and closes stdin (`printf … | loom mcp`) still gets its answers. The transport
 * does not notice the end of its input by itself, and closing at once would drop the answers of
 * calls still under way. A request the client cancels gets no answer, so it is no longer awaited.
 */
function answerBeforeClosing(transport: GuardedStdioTransport, stdin: Readable, close: () => void): void {
  const unanswered = new Set<string | number>();
  let ended = false;
  const closeWhenDone = () => {
    if (ended && unanswered.size === 0) close();
  };
  const receive = transport.onmessage!;
  transport.onmessage = (message) => {
    if ('method' in message && 'id' in message) unanswered.add(message.id);
    if ('method' in message && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (requestId !== undefined) unanswered.delete(requestId);
    }
    receive(message);
    closeWhenDone();
  };
  const send = transport.send.bind(transport);
  transport.send = async (message) => {
    await send(message);
    if (('result' in message || 'error' in message) && message.id !== undefined) unanswered.delete(message.id);
    closeWhenDone();
  };
  const onEnd = () => {
    ended = true;
    closeWhenDone();
  };
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
}
