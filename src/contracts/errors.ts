// Every machine code Loom answers with: its HTTP status, what it means, and which API answers
// it. One table: both servers map codes to statuses from it, OpenAPI and docs/api.md describe
// the hosted codes from it, docs/local-api.md lists the local ones (UPPER_SNAKE_CASE there).

/** The two APIs: hosted (`{error, message, hint?}`) and the desktop app's local one (`{error: {code, message}}`). */
export type Surface = 'hosted' | 'local';

const HOSTED = ['hosted'] as const satisfies readonly Surface[];
const LOCAL = ['local'] as const satisfies readonly Surface[];
const BOTH = ['hosted', 'local'] as const satisfies readonly Surface[];

export interface ErrorCodeSpec {
  status: number;
  /** Which APIs answer with the code. */
  surfaces: readonly Surface[];
  /** What it means, true on every surface listed. */
  meaning: string;
  /** What it means on one surface, where that says more than `meaning`. */
  meaningOn?: Partial<Record<Surface, string>>;
}

// One line per code, so that a code and all it says read as one row.
// prettier-ignore
export const ERROR_CODES = {
  validation_error: { status: 400, surfaces: BOTH, meaning: 'The request failed validation; `details` names every failing field.' },
  invalid_json: { status: 400, surfaces: BOTH, meaning: 'The body is not valid JSON (or carries a `__proto__` / `constructor.prototype` key).' },
  bad_request: { status: 400, surfaces: BOTH, meaning: 'The request is malformed in a way not covered by a more specific code.', meaningOn: { hosted: 'Malformed request: bad percent-encoding, broken HTTP, no `Host` on HTTP/1.1, two `Host` headers, an absolute-form target naming another host than `Host`.', local: 'The request is malformed in a way not covered by a more specific code: not valid HTTP, bad percent-encoding, no or two `Host` headers, an upgrade to a path that is not a WebSocket; an agent task for a model that cannot chat, or when none is configured (the hint says how to set one up).' } },
  unsupported_version: { status: 400, surfaces: HOSTED, meaning: 'The API version asked for (`API-Version` header or path) is not served by this operation.' },
  invalid_request: { status: 400, surfaces: HOSTED, meaning: 'OAuth: the request is missing a parameter or has a wrong one (a bearer token in the query string included).' },
  invalid_grant: { status: 400, surfaces: HOSTED, meaning: 'OAuth: the code, refresh token or PKCE verifier is invalid, expired, used or revoked.' },
  unauthorized_client: { status: 400, surfaces: HOSTED, meaning: 'OAuth: this client may not use this grant type.' },
  unsupported_grant_type: { status: 400, surfaces: HOSTED, meaning: 'OAuth: the grant type is not supported.' },
  invalid_scope: { status: 400, surfaces: HOSTED, meaning: 'OAuth: a requested scope is unknown or not allowed for this client or flow.' },
  invalid_target: { status: 400, surfaces: HOSTED, meaning: 'OAuth (RFC 8707): the `resource` asked for is not one of this server, or not the one the grant was made for.' },
  invalid_redirect_uri: { status: 400, surfaces: HOSTED, meaning: 'OAuth client registration (RFC 7591): no redirect URI is one a client may register itself with (https, or http on loopback).' },
  invalid_client_metadata: { status: 400, surfaces: HOSTED, meaning: 'OAuth client registration (RFC 7591): a member of the client metadata is invalid.' },
  invalid_client: { status: 401, surfaces: HOSTED, meaning: 'OAuth: client authentication failed.' },
  unauthorized: { status: 401, surfaces: BOTH, meaning: 'Credentials are required.', meaningOn: { hosted: 'The operation needs a bearer token; see `WWW-Authenticate`.', local: 'The API token is missing or wrong.' } },
  invalid_token: { status: 401, surfaces: HOSTED, meaning: 'The bearer token is malformed, expired, revoked or not accepted by this operation.' },
  insufficient_scope: { status: 403, surfaces: HOSTED, meaning: 'The token lacks the scope named in the message and in `WWW-Authenticate`.' },
  forbidden: { status: 403, surfaces: BOTH, meaning: 'The request is refused for where it comes from.', meaningOn: { hosted: "A dashboard write without the session's CSRF token, or from another origin.", local: "A Host or Origin that is not this server's loopback address, a window request without its session's CSRF value, or a sign-in link asked for without the data dir's link key." } },
  not_found: { status: 404, surfaces: BOTH, meaning: 'No such route or resource.', meaningOn: { hosted: 'No such route, product or asset, or the code host says the release is missing.', local: 'No such route, file or agent task.' } },
  method_not_allowed: { status: 405, surfaces: BOTH, meaning: 'The path exists with other methods; they are in `Allow`. Also `CONNECT`: the server is not a proxy.' },
  request_timeout: { status: 408, surfaces: BOTH, meaning: 'The request (headers and body) did not arrive within the time allowed (`http.requestTimeoutMs`, headers `http.headersTimeoutMs`); the connection is closed.' },
  payload_too_large: { status: 413, surfaces: BOTH, meaning: 'The body is larger than the server accepts.', meaningOn: { hosted: 'The body is larger than `bodyLimit` (the config file\'s `bodyLimit`, or `LOOM_BODY_LIMIT`; 1 MiB by default).', local: 'The body is larger than 20 MiB.' } },
  uri_too_long: { status: 414, surfaces: BOTH, meaning: 'A path segment is longer than the router takes.', meaningOn: { hosted: 'A path segment is longer than 200 characters.', local: 'A path segment (an agent task id) is longer than 100 characters.' } },
  unsupported_media_type: { status: 415, surfaces: BOTH, meaning: 'The body is in a content type the operation does not accept.' },
  expectation_failed: { status: 417, surfaces: BOTH, meaning: 'An `Expect` header other than `100-continue`.' },
  upgrade_required: { status: 426, surfaces: LOCAL, meaning: 'The path is a WebSocket (`/events`, `/terminal`); connect with `Upgrade: websocket` (the answer carries it).' },
  headers_too_large: { status: 431, surfaces: BOTH, meaning: 'The request line and headers are larger than the server accepts (16 KiB).' },
  forbidden_path: { status: 403, surfaces: LOCAL, meaning: 'The path resolves outside the workspace (symlinks included); so does a glob whose folder leads out through a symbolic link.' },
  no_active_file: { status: 409, surfaces: LOCAL, meaning: 'No document is open in the editor.' },
  out_of_range: { status: 400, surfaces: LOCAL, meaning: 'A line or column is outside the document; nothing was changed.' },
  edit_conflict: { status: 409, surfaces: LOCAL, meaning: 'The file changed on disk while it had unsaved edits; reload it, or save with `overwrite`.' },
  version_conflict: { status: 409, surfaces: LOCAL, meaning: 'The document is no longer at the `version` the edit was made against (another edit came first); nothing was changed.' },
  protected_path: { status: 403, surfaces: LOCAL, meaning: "The path is in a git directory (.git, or a folder git would use as one) or in .loom, or would create one; Loom never writes there (such files open read-only). Or it is in Loom's own config, data or models folder inside the workspace, which Loom neither reads nor writes." },
  unsaved_changes: { status: 409, surfaces: LOCAL, meaning: 'The document has unsaved edits; save it, or close it with `discard`.' },
  not_a_file: { status: 400, surfaces: LOCAL, meaning: 'The path names a folder, a FIFO, a socket or a device, not a regular file.' },
  not_a_folder: { status: 400, surfaces: LOCAL, meaning: 'A component of the path is a file where a folder should be (ENOTDIR).' },
  symlink_loop: { status: 400, surfaces: LOCAL, meaning: 'The path goes through a loop of symbolic links (ELOOP).' },
  name_too_long: { status: 400, surfaces: LOCAL, meaning: 'The path or one of its names is longer than the file system allows (ENAMETOOLONG).' },
  permission_denied: { status: 403, surfaces: LOCAL, meaning: 'The operating system denies Loom access to the file (EACCES, EPERM).' },
  read_only_file_system: { status: 403, surfaces: LOCAL, meaning: 'The file is on a read-only file system (EROFS); nothing was written.' },
  already_exists: { status: 409, surfaces: LOCAL, meaning: 'Something already exists at the path (EEXIST).' },
  folder_not_empty: { status: 409, surfaces: LOCAL, meaning: 'The folder is not empty (ENOTEMPTY).' },
  disk_full: { status: 409, surfaces: LOCAL, meaning: 'The disk or the quota is full (ENOSPC, EDQUOT); nothing was written.' },
  file_system_busy: { status: 409, surfaces: LOCAL, meaning: 'The file system is busy or out of file handles (EMFILE, ENFILE, EBUSY, EAGAIN); nothing was changed; try again.' },
  file_system_error: { status: 409, surfaces: LOCAL, meaning: 'The file system refused the operation for another reason; its error code is in the message; nothing was changed.' },
  invalid_ref: { status: 400, surfaces: LOCAL, meaning: 'Git: a branch or remote name is not valid (git check-ref-format rules; never starting with "-").' },
  protocol_not_allowed: { status: 403, surfaces: LOCAL, meaning: "Git: the remote's URL uses a transport Loom never runs (ext::)." },
  workspace_untrusted: { status: 403, surfaces: LOCAL, meaning: "The workspace is not trusted, and the request would run its code: a command of one of its extensions (they never run until the user trusts it: `loom extension trust`, or the window's trust route), an agent's command the user approves (deny works in any workspace), or the window's terminal." },
  window_required: { status: 403, surfaces: LOCAL, meaning: "Only the signed-in window may do this, because it runs code (approving an agent's command, the terminal): the API token never may, and neither may a window signed in with the token. Open the window with its one-time link (`loom serve --open`)." },
  unknown_branch: { status: 404, surfaces: LOCAL, meaning: 'Git: no such branch here or on the remote, or the branch has no commit yet.' },
  unknown_command: { status: 404, surfaces: LOCAL, meaning: 'No extension contributes or registered a command of that name (`loom commands` lists those that do).' },
  unknown_extension: { status: 404, surfaces: LOCAL, meaning: 'No extension of that name was found (`loom extension list` lists those that are).' },
  no_workspace: { status: 409, surfaces: LOCAL, meaning: 'No workspace folder is open, or it no longer exists.' },
  not_a_repository: { status: 409, surfaces: LOCAL, meaning: 'Git: the workspace folder is not inside a git repository (or git refuses it: safe.directory).' },
  detached_head: { status: 409, surfaces: LOCAL, meaning: 'Git: HEAD is not on a branch; push and pull need one.' },
  nothing_to_commit: { status: 409, surfaces: LOCAL, meaning: 'Git: the commit would record no change.' },
  no_remote: { status: 409, surfaces: LOCAL, meaning: 'Git: the repository has no remote of that name (origin, when none was named).' },
  git_conflict: { status: 409, surfaces: LOCAL, meaning: 'Git: files have unresolved merge conflicts; the message names them.' },
  merge_in_progress: { status: 409, surfaces: LOCAL, meaning: 'Git: a merge waits to be concluded; commit every change (no files) or abort it.' },
  uncommitted_changes: { status: 409, surfaces: LOCAL, meaning: "Git: a pull or a branch switch would overwrite local changes (the message says which files, in git's words); commit them first." },
  branch_exists: { status: 409, surfaces: LOCAL, meaning: 'Git: a branch of that name already exists; switch to it, or choose another name.' },
  unrelated_histories: { status: 409, surfaces: LOCAL, meaning: 'Git: the remote branch shares no history with the local one; git will not merge them.' },
  push_rejected: { status: 409, surfaces: LOCAL, meaning: 'Git: the remote refused the push (it has commits the branch lacks: pull first; or a hook or protection said no).' },
  commit_rejected: { status: 409, surfaces: LOCAL, meaning: 'Git: git refused the commit, usually a pre-commit or commit-msg hook; its output is in the message.' },
  repository_busy: { status: 409, surfaces: LOCAL, meaning: 'Git: another git process holds the repository lock (index.lock); try again.' },
  task_running: { status: 409, surfaces: LOCAL, meaning: 'Agents: the task is running (or waiting for an approval); a message continues only a task that has ended. Wait for `agent:complete`, or cancel it, then send the message.' },
  revert_conflict: { status: 409, surfaces: LOCAL, meaning: 'Agents: files a task changed are no longer as it left them (edited since, or being changed by another task); `files` names them and nothing was reverted.' },
  session_running: { status: 409, surfaces: BOTH, meaning: 'Composer: the session is queued or running; a message continues a session once it has ended. Wait for its end, or cancel it, then send the message.' },
  composer_unavailable: { status: 409, surfaces: LOCAL, meaning: 'Composer sessions run on the hosted API, and this server has none beside it: `loom serve` alone, or `loom up` with a Redis URL set (its sessions run on workers that know only registered workspaces). Run `loom up` (`npm start`) to have them in the window.' },
  apply_refused: { status: 409, surfaces: LOCAL, meaning: "Composer: the session's edits cannot be applied, and nothing was written: it has not ended (or ended failed or cancelled, without `partial`), it is a plan, or files it changes are no longer as it found them (changed since, or with unsaved edits in the editor; `files` names them), or it names a path no edit may touch." },
  unknown_model: { status: 400, surfaces: BOTH, meaning: 'The request names a model this server does not serve; the hint lists those it does.' },
  rate_limited: { status: 429, surfaces: BOTH, meaning: 'Too many requests; wait `Retry-After` seconds.', meaningOn: { local: 'Too many requests; wait `Retry-After` seconds. Also a 6th agent task while 5 run (`retryAfter`: when the first is expected to end).' } },
  too_many_terminals: { status: 429, surfaces: LOCAL, meaning: 'The window already has 16 terminals open; close one first.' },
  too_many_connections: { status: 429, surfaces: BOTH, meaning: 'The client address already holds `http.maxConnectionsPerClient` connections (the config file\'s `"http": {"maxConnectionsPerClient": …}`, or the environment variable LOOM_MAX_CONNECTIONS_PER_CLIENT) and none is idle; this one is closed.' },
  internal_error: { status: 500, surfaces: BOTH, meaning: 'An unexpected failure inside Loom; it is logged with its stack on the server.' },
  git_failed: { status: 500, surfaces: LOCAL, meaning: "Git: git failed in a way Loom does not recognise; git's own words are in the message." },
  upstream_unavailable: { status: 502, surfaces: HOSTED, meaning: 'The code host that serves release files, or a sign-in provider, did not answer or answered something Loom cannot read (a timeout, a refused connection, a 5xx, a redirect, not JSON, too large, wrong fields).' },
  remote_auth_failed: { status: 502, surfaces: LOCAL, meaning: 'Git: the remote wants credentials that git does not have; Loom never prompts for them.' },
  remote_unavailable: { status: 502, surfaces: LOCAL, meaning: 'Git: the remote could not be reached, timed out, or has no repository at its URL.' },
  model_failed: { status: 502, surfaces: BOTH, meaning: 'The model provider answered with an error (an OpenAI-compatible server refused the request or sent something unreadable).' },
  extension_failed: { status: 502, surfaces: LOCAL, meaning: 'The extension behind the command threw, crashed, ran out of memory or could not start; the message says which. Its process is its own: the server is unharmed. Restart it with `POST /api/extensions/{name}/restart` (`loom extension restart NAME`).' },
  language_server_failed: { status: 502, surfaces: LOCAL, meaning: 'Code intelligence: the language server crashed, went over its memory limit or the message size limit, or answered with an error or something Loom cannot use; the message says which. It is restarted (with backoff); ask again.' },
  model_unavailable: { status: 503, surfaces: BOTH, meaning: 'The configured model cannot be used: its file is missing or not a GGUF model, its runtime is not installed, or its server cannot be reached. The hint says what to do.' },
  store_unavailable: { status: 503, surfaces: BOTH, meaning: 'The database could not be reached; nothing was written.', meaningOn: { local: 'The webhook outbox cannot be written; the action was not done.' } },
  git_unavailable: { status: 503, surfaces: LOCAL, meaning: 'Git: git is not installed or not on PATH.' },
  terminal_unavailable: { status: 503, surfaces: LOCAL, meaning: "The terminal cannot start here: node-pty (its native module) did not build or load on this machine, or no shell was found. The message says which; `npm rebuild node-pty` rebuilds it." },
  language_server_unavailable: { status: 503, surfaces: LOCAL, meaning: "Code intelligence: no language server can serve the file's language here (none is bundled, named in settings.json or on PATH; it is turned off; or it runs workspace code and the workspace is not trusted), or it is restarting after a failure. The message says which." },
  git_timeout: { status: 504, surfaces: LOCAL, meaning: 'Git: a git command ran past its time limit and was stopped.' },
  model_timeout: { status: 504, surfaces: BOTH, meaning: 'The model did not finish within the completion time limit (`completion.timeoutMs`); it was stopped.' },
  extension_timeout: { status: 504, surfaces: LOCAL, meaning: 'The command did not answer within `extensions.commandTimeoutMs`. An extension whose process stopped answering altogether (an endless loop) is stopped; restart it.' },
  language_server_timeout: { status: 504, surfaces: LOCAL, meaning: 'Code intelligence: the language server did not answer within `languageServers.requestTimeoutMs`. One that stopped answering altogether is restarted.' },
} as const satisfies Record<string, ErrorCodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes one API answers with, in the table's order. */
export function codesOf(surface: Surface): ErrorCode[] {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => (ERROR_CODES[code].surfaces as readonly Surface[]).includes(surface));
}

/**
 * What a code means on one API: its own words for that API where the table has them.
 *
 * @example
 * meaningOn('payload_too_large', 'local'); // 'The body is larger than 20 MiB.'
 */
export function meaningOn(code: ErrorCode, surface: Surface): string {
  const spec: ErrorCodeSpec = ERROR_CODES[code];
  return spec.meaningOn?.[surface] ?? spec.meaning;
}

/** Codes defined by OAuth 2.0 (RFC 6749 §5.2); their bodies also carry `error_description`. */
export const OAUTH_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_request',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_client',
  'invalid_target',
  'invalid_redirect_uri',
  'invalid_client_metadata',
]);
