// The error codes a hosted operation can answer with, derived from its entry in the operation
// table: the codes it declares, those its `auth` implies, those reading a POST's body implies,
// uri_too_long where it has path parameters, and the universal ones. OpenAPI and docs/api.md
// both list them from here.
import type { OperationAuth } from './auth.ts';
import type { ErrorCode } from './errors.ts';
import type { Operation } from './operations.ts';

/**
 * Errors any operation can answer with, whatever it declares: a URL that is not valid UTF-8
 * (bad_request), and what the HTTP layer answers before any route is chosen (a request too slow
 * to arrive, headers too large, an Expect it cannot meet, a client holding too many connections).
 */
export const UNIVERSAL_ERRORS: readonly ErrorCode[] = [
  'bad_request',
  'request_timeout',
  'expectation_failed',
  'headers_too_large',
  'rate_limited',
  'too_many_connections',
  'internal_error',
];

/**
 * What the credentials check answers for an operation, derived from its `auth`: a token in the
 * query string is refused everywhere; a presented token is verified wherever tokens are
 * accepted, even where none is required; no credentials where some are required is
 * unauthorized; where credentials are required, a token without the operation's scope is
 * insufficient_scope (where anyone may call, its caller is served as anonymous); Basic client
 * credentials that do not parse are invalid_client.
 */
export function authErrors(auth: OperationAuth): ErrorCode[] {
  const codes: ErrorCode[] = ['invalid_request'];
  if (auth.oauth2?.length || auth.bearer) codes.push('invalid_token');
  if (!auth.anonymous) codes.push('unauthorized');
  if (auth.oauth2?.length && !auth.anonymous) codes.push('insufficient_scope');
  if (auth.clientBasic) codes.push('invalid_client');
  return codes;
}

/**
 * What reading a POST's body can answer before the operation sees it, derived from the content
 * types it takes (JSON when it names none): too large, a type it does not take (or that no
 * parser reads), and JSON that does not parse where JSON is read. An operation or local route
 * that takes no body still has one read when a client sends it (Fastify reads it before any
 * handler), so these apply to every POST of either API.
 *
 * @example
 * bodyErrors(exchangeToken); // ['payload_too_large', 'unsupported_media_type']: it takes forms only
 */
export function bodyErrors(endpoint: { method: string; request: object }): ErrorCode[] {
  if (endpoint.method !== 'POST') return [];
  const { contentTypes } = endpoint.request as { contentTypes?: readonly string[] };
  // Declared types are checked before the body is read (routes/operations.ts): JSON is then parsed only where declared.
  const readsJson = contentTypes === undefined || contentTypes.includes('application/json');
  return ['payload_too_large', 'unsupported_media_type', ...(readsJson ? (['invalid_json'] as const) : [])];
}

/**
 * The codes this operation answers with besides the universal ones, each once.
 *
 * @example
 * operationErrors(tabComplete); // ['validation_error', …, 'invalid_request', 'invalid_token', 'unauthorized', 'insufficient_scope']
 */
export function operationErrors(operation: Operation): ErrorCode[] {
  // A path segment longer than the router takes is uri_too_long.
  const pathErrors: ErrorCode[] = operation.request.params ? ['uri_too_long'] : [];
  return [...new Set([...operation.errors, ...bodyErrors(operation), ...authErrors(operation.auth), ...pathErrors])];
}
