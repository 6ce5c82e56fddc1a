// Every machine code the hosted API answers with, its HTTP status and what it means.
// One table: the error plugin maps codes to statuses from it, docs/api.md lists it.

export const ERROR_CODES = {
  validation_error: { status: 400, meaning: 'The request failed validation; `details` names every failing field.' },
  invalid_json: { status: 400, meaning: 'The body is not valid JSON.' },
  bad_request: { status: 400, meaning: 'The request is malformed in a way not covered by a more specific code.' },
  unsupported_version: { status: 400, meaning: 'The API version asked for (API-Version header or path) is not served by this operation.' },
  invalid_request: { status: 400, meaning: 'OAuth: the request is missing a parameter or has a wrong one.' },
  invalid_grant: { status: 400, meaning: 'OAuth: the code, refresh token or PKCE verifier is invalid, expired, used or revoked.' },
  unauthorized_client: { status: 400, meaning: 'OAuth: this client may not use this grant type.' },
  unsupported_grant_type: { status: 400, meaning: 'OAuth: the grant type is not supported.' },
  invalid_scope: { status: 400, meaning: 'OAuth: a requested scope is unknown or not allowed for this client or flow.' },
  invalid_client: { status: 401, meaning: 'OAuth: client authentication failed.' },
  unauthorized: { status: 401, meaning: 'Credentials are required; see WWW-Authenticate.' },
  invalid_token: { status: 401, meaning: 'The bearer token is malformed, expired, revoked or not accepted here.' },
  insufficient_scope: { status: 403, meaning: 'The token lacks the scope named in the message and WWW-Authenticate.' },
  forbidden: { status: 403, meaning: 'The request is refused: a dashboard write without a valid CSRF token, or from another origin.' },
  not_found: { status: 404, meaning: 'No such route, product or asset, or upstream says the release is missing.' },
  method_not_allowed: { status: 405, meaning: 'The path exists but not with this method; see the Allow header.' },
  payload_too_large: { status: 413, meaning: 'The body is larger than the server accepts.' },
  uri_too_long: { status: 414, meaning: 'A path segment is longer than the server accepts.' },
  unsupported_media_type: { status: 415, meaning: 'The Content-Type is not one this operation accepts.' },
  rate_limited: { status: 429, meaning: 'Too many requests; wait Retry-After seconds.' },
  internal_error: { status: 500, meaning: 'An unexpected failure inside Loom; it is logged.' },
  upstream_unavailable: { status: 502, meaning: 'The code host that serves release files could not be reached or failed.' },
  store_unavailable: { status: 503, meaning: 'The database could not be reached; nothing was written.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Codes defined by OAuth 2.0 (RFC 6749 §5.2); their bodies also carry `error_description`. */
export const OAUTH_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_request',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_client',
]);

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}
