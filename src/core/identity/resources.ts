// The protected resources of a Loom server (RFC 8707, RFC 9728): the hosted API and the MCP
// endpoint. An OAuth access token names one of them in `aud` and is accepted by that one only,
// so that a token handed to one cannot be replayed at the other. Grants record the resource
// by name, not by URL, so that a change of public URL leaves them valid.
import { MCP_PATH } from '../../contracts/mcp.ts';
import type { ServiceUrls } from '../urls.ts';

export const RESOURCES = ['api', 'mcp'] as const;
export type ResourceId = (typeof RESOURCES)[number];

/** Where RFC 9728 metadata lives: this, plus the resource's path (none for the API). */
const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * The resource's identifier: what clients send as `resource` and tokens carry as `aud`.
 *
 * @example
 * resourceUri(urls, 'mcp'); // 'https://loom.example.com/mcp'
 */
export function resourceUri(urls: ServiceUrls, resource: ResourceId): string {
  return resource === 'api' ? urls.audience : urls.audience + MCP_PATH;
}

/**
 * The resource a `resource` parameter names: none sent means the API; an unknown one, undefined.
 * Matching is exact, but for the slash that URL parsers add to a URL without a path
 * (`https://loom.example.com/` names the API as well).
 */
export function resourceNamed(urls: ServiceUrls, uri: string | undefined): ResourceId | undefined {
  if (uri === undefined) return 'api';
  return RESOURCES.find((resource) => {
    const known = resourceUri(urls, resource);
    return uri === known || (uri === `${known}/` && new URL(known).pathname === '/');
  });
}

/** The path of the resource's metadata document (RFC 9728 §3.1: the well-known path, then the resource's). */
export function resourceMetadataPath(resource: ResourceId): string {
  return resource === 'api' ? PROTECTED_RESOURCE_PATH : PROTECTED_RESOURCE_PATH + MCP_PATH;
}
