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
  forbidden_path: { status: 403, meaning: 'Local API: the path resolves outside the workspace (symlinks included).' },
  no_active_file: { status: 409, meaning: 'Local API: no document is open in the editor.' },
  out_of_range: { status: 400, meaning: 'Local API: a line or column is outside the document; nothing was changed.' },
  edit_conflict: { status: 409, meaning: 'Local API: the file changed on disk while it had unsaved edits.' },
  invalid_ref: { status: 400, meaning: 'Local API, git: a branch or remote name is not valid (git check-ref-format rules; never starting with "-").' },
  protocol_not_allowed: { status: 403, meaning: "Local API, git: the remote's URL uses a transport Loom never runs (ext::)." },
  unknown_branch: { status: 404, meaning: 'Local API, git: no such branch here or on the remote, or the branch has no commit yet.' },
  no_workspace: { status: 409, meaning: 'Local API: no workspace folder is open, or it no longer exists.' },
  not_a_repository: { status: 409, meaning: 'Local API, git: the workspace folder is not inside a git repository (or git refuses it: safe.directory).' },
  detached_head: { status: 409, meaning: 'Local API, git: HEAD is not on a branch; push and pull need one.' },
  nothing_to_commit: { status: 409, meaning: 'Local API, git: the commit would record no change.' },
  no_remote: { status: 409, meaning: 'Local API, git: the repository has no remote of that name (origin, when none was named).' },
  git_conflict: { status: 409, meaning: 'Local API, git: files have unresolved merge conflicts; the message names them.' },
  merge_in_progress: { status: 409, meaning: 'Local API, git: a merge waits to be concluded; commit every change (no files) or abort it.' },
  uncommitted_changes: { status: 409, meaning: 'Local API, git: a pull would overwrite local changes; commit them first.' },
  unrelated_histories: { status: 409, meaning: 'Local API, git: the remote branch shares no history with the local one; git will not merge them.' },
  push_rejected: { status: 409, meaning: 'Local API, git: the remote refused the push (it has commits the branch lacks: pull first; or a hook or protection said no).' },
  commit_rejected: { status: 409, meaning: 'Local API, git: git refused the commit, usually a pre-commit or commit-msg hook; its output is in the message.' },
  repository_busy: { status: 409, meaning: 'Local API, git: another git process holds the repository lock (index.lock); try again.' },
  unknown_model: { status: 400, meaning: 'The request names a model this server does not serve; the hint lists those it does.' },
  rate_limited: { status: 429, meaning: 'Too many requests; wait Retry-After seconds.' },
  internal_error: { status: 500, meaning: 'An unexpected failure inside Loom; it is logged.' },
  git_failed: { status: 500, meaning: "Local API, git: git failed in a way Loom does not recognise; git's own words are in the message." },
  upstream_unavailable: { status: 502, meaning: 'The code host that serves release files could not be reached or failed.' },
  remote_auth_failed: { status: 502, meaning: 'Local API, git: the remote wants credentials that git does not have; Loom never prompts for them.' },
  remote_unavailable: { status: 502, meaning: 'Local API, git: the remote could not be reached, timed out, or has no repository at its URL.' },
  model_failed: { status: 502, meaning: 'The model provider answered with an error (an OpenAI-compatible server refused the request or sent something unreadable).' },
  model_unavailable: { status: 503, meaning: 'The configured model cannot be used: its file is missing or not a GGUF model, its runtime is not installed, or its server cannot be reached.' },
  store_unavailable: { status: 503, meaning: 'The database could not be reached; nothing was written.' },
  git_unavailable: { status: 503, meaning: 'Local API, git: git is not installed or not on PATH.' },
  git_timeout: { status: 504, meaning: 'Local API, git: a git command ran past its time limit and was stopped.' },
  model_timeout: { status: 504, meaning: 'The model did not finish within the completion time limit; it was stopped.' },
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
