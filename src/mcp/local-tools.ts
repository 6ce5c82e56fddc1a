// The tools of `loom mcp`, generated from the local route table: one per route that names an
// `mcpTool`. A tool takes what its route takes (path parameters, query and body as one object of
// arguments, by the rule the hosted tools follow) and calls the route of the RUNNING desktop app
// through the typed client, so the app judges every call as it judges any other: its validation,
// its confinement to the workspace, its protected paths, its limits. Nothing is checked twice here.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { LocalApiError, LocalClient, type CallOptions } from '../client/local.ts';
import type { LocalErrorBody } from '../contracts/local-resources.ts';
import { localRoutes, type AnyLocalRoute, type LocalRoute } from '../contracts/local-routes.ts';
import { argumentsByPart, requestParts, toolInputSchema, toolOutputSchema, type RequestPart } from '../contracts/mcp.ts';

/** Where the running app answers and the token it takes. */
export interface LocalConnection {
  /** e.g. `http://127.0.0.1:27432`. */
  url: string;
  token: string;
}

/**
 * Finds the running app, anew for each call: the app may start, move or rotate its token after
 * `loom mcp` did. Throws a LocalApiError (UNREACHABLE, with a hint) when it cannot tell.
 */
export type FindLocalApp = () => LocalConnection;

export interface LocalTool {
  /** What `tools/list` shows. */
  definition: Tool;
  route: LocalRoute;
  /** Calls the route with these arguments; every failure becomes an `isError` result. */
  call(args: Record<string, unknown> | undefined, signal: AbortSignal): Promise<CallToolResult>;
}

/** What to do when the app does not answer at all: MCP clients start `loom mcp` on their own, often before the app. */
const START_THE_APP = 'Start the desktop app with `loom serve` (or `loom up`) for this workspace, then call the tool again.';

/**
 * The tools of the local route table, in its order: a route that gets an `mcpTool` name becomes a
 * tool with no other code.
 *
 * @example
 * const tools = buildLocalTools(() => ({ url: 'http://127.0.0.1:27432', token }));
 * await tools.get('git_status')!.call({}, AbortSignal.timeout(10_000)); // { structuredContent: { branch: 'main', … }, … }
 */
export function buildLocalTools(findApp: FindLocalApp, table: readonly AnyLocalRoute[] = localRoutes): Map<string, LocalTool> {
  const tools = new Map<string, LocalTool>();
  for (const route of table as readonly LocalRoute[]) {
    const name = route.mcpTool;
    if (!name) continue;
    if (route.websocket) throw new Error(`${route.id}: a WebSocket route cannot be an MCP tool`);
    // What runs code is the user's at the keyboard, never a tool's (the table's types refuse it too).
    if (route.access === 'window') throw new Error(`${route.id}: a window-only route cannot be an MCP tool`);
    if (tools.has(name)) throw new Error(`${route.id}: the MCP tool name "${name}" is taken`);
    const parts = requestParts(route.request);
    tools.set(name, {
      definition: toolDefinition(name, route, parts),
      route,
      call: async (args, signal) => {
        try {
          const client = new LocalClient(findApp());
          const call = client.call.bind(client) as (id: string, input: unknown, options: CallOptions) => Promise<unknown>;
          const output = await call(route.id, argumentsByPart(parts, args ?? {}), { signal });
          return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output as Record<string, unknown> };
        } catch (error) {
          // A call the client cancelled gets no result (the SDK drops it); let the abort through.
          if (signal.aborted) throw error;
          return failure(error);
        }
      },
    });
  }
  return tools;
}

function toolDefinition(name: string, route: LocalRoute, parts: RequestPart[]): Tool {
  return {
    name,
    title: route.summary,
    description: route.description,
    inputSchema: toolInputSchema(route.id, parts) as Tool['inputSchema'],
    outputSchema: toolOutputSchema(route.id, route.success.schema) as Tool['outputSchema'],
    // A GET changes nothing, nor does a POST the table marks `readOnly`; every other route may.
    annotations: { title: route.summary, readOnlyHint: route.method === 'GET' || route.readOnly === true },
  };
}

/**
 * A failed call as a tool result: `isError` and the local API's error envelope as JSON text.
 * Not as `structuredContent`: clients check that against the tool's `outputSchema`, which
 * describes the success, and would reject the result instead of showing the error.
 */
function failure(error: unknown): CallToolResult {
  // Anything but the client's errors is a failure of `loom mcp` itself, before the app was asked.
  const body: LocalErrorBody = {
    error: { code: 'INTERNAL_ERROR', message: `loom mcp failed before it reached the app: ${(error as Error)?.message ?? String(error)}` },
  };
  if (error instanceof LocalApiError) {
    const { code, message, hint, retryAfter, details, files } = error;
    body.error = {
      code,
      message,
      ...(code === 'UNREACHABLE' ? { hint: START_THE_APP } : hint !== undefined ? { hint } : {}),
      ...(retryAfter !== undefined ? { retryAfter } : {}),
      ...(details !== undefined ? { details } : {}),
      ...(files !== undefined ? { files } : {}),
    } as LocalErrorBody['error'];
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}
