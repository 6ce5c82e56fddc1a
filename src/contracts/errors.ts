// Every machine code the hosted API answers with, its HTTP status and what it means.
// One table: the error plugin maps codes to statuses from it, docs/api.md lists it.

export const ERROR_CODES = {
  validation_error: { status: 400, meaning: 'The request failed validation; `details` names every failing field.' },
  invalid_json: { status: 400, meaning: 'The body is not valid JSON.' },
  bad_request: { status: 400, meaning: 'The request is malformed in a way not covered by a more specific code.' },
  unsupported_version: { status: 400, meaning: 'The API version asked for (API-Version header or path) is not served by this operation.' },
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

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}
