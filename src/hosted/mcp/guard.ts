// The checks the Streamable HTTP transport asks of a server before any message is read:
// Host and Origin (DNS rebinding: a page of another site that resolves its name to this
// machine), MCP-Protocol-Version, and the session header of a server that keeps no sessions.
import type { FastifyRequest } from 'fastify';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { LoomError } from '../../core/errors.ts';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const LOOPBACK_ADDRESSES = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The revisions this server speaks, newest first: 2025-11-25 and the older ones the SDK negotiates. */
export const PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

/**
 * Refuses, before the body is looked at:
 * - over a loopback connection, a Host that names neither loopback nor the public URL's host
 *   (403): a browser page of another site whose name was made to resolve to 127.0.0.1 sends
 *   its own name there. Other connections reached the server by a public address; any page
 *   can reach those directly, so their Host proves nothing;
 * - a present Origin other than the server's own (403);
 * - an Mcp-Session-Id (404): this server never issues one, so it names no session of its own,
 *   and the transport's rule for an unknown session is 404, on which clients start over;
 * - an MCP-Protocol-Version this server does not speak (400).
 */
export function checkTransportHeaders(request: FastifyRequest, publicUrl: string): void {
  const own = new URL(publicUrl);
  if (LOOPBACK_ADDRESSES.has(request.socket.localAddress ?? '')) {
    const host = hostnameOf(request.headers.host);
    if (!host || !(LOOPBACK_NAMES.has(host) || host === own.hostname)) {
      throw new LoomError(
        'forbidden',
        'This server answers over loopback only to localhost, 127.0.0.1, [::1] and its public name.',
        `The MCP endpoint is ${own.origin}/mcp.`,
      );
    }
  }
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== own.origin) {
    throw new LoomError('forbidden', 'MCP requests from pages of other origins are refused.', `Only ${own.origin} may send an Origin.`);
  }
  if (request.headers['mcp-session-id'] !== undefined) {
    throw new LoomError(
      'not_found',
      'This server keeps no sessions: the Mcp-Session-Id sent is not one it issued.',
      'Initialize again without Mcp-Session-Id.',
    );
  }
  const version = request.headers['mcp-protocol-version'];
  if (version !== undefined && !PROTOCOL_VERSIONS.includes(String(version))) {
    throw new LoomError(
      'unsupported_version',
      `MCP-Protocol-Version ${JSON.stringify(String(version).slice(0, 40))} is not spoken here.`,
      `Supported: ${PROTOCOL_VERSIONS.join(', ')}.`,
    );
  }
}

/** The lowercased host name of a Host header (`[::1]` keeps its brackets), or undefined when it is not `name[:port]`. */
function hostnameOf(host: string | undefined): string | undefined {
  return host ? /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/.exec(host.toLowerCase())?.[1] : undefined;
}
