// The hosted MCP server's address (interface.md: "Tool-protocol server: Streamable HTTP at
// {mcp_url}"), shared by the routes, the authorization server (the resource it names) and
// the documents that point at it.

/** Path of the MCP endpoint on the hosted server; `{mcp_url}` is the public URL plus this. */
export const MCP_PATH = '/mcp';

/** Where the server card is served (both paths, the same document). */
export const MCP_MANIFEST_PATHS = ['/.well-known/mcp.json', '/mcp.json'] as const;
