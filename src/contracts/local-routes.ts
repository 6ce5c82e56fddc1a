// The local route table: every route of the desktop application's local API, declared once.
// The routes and their validation, who may call each and which budget it draws on, the
// OpenAPI document the server serves, the reference tables of docs/local-api.md and the typed
// client (src/client/local.ts) are all derived from it. A new route is an entry here plus its
// handler in src/local/handlers/.
//
// Rules belong to the route that answers (its Fastify `config`), never to a pattern on the raw
// URL: `/api/ai/%63omplete` and `/api/ai/complete` are one route with one rule.
import type { Static, TSchema } from 'typebox';
import type { ErrorCode } from './errors.ts';
import { allFieldsOptional, type ValidatedInput } from './schema-helpers.ts';
import {
  ActiveDocument,
  AgentRunRequest,
  AgentRunStarted,
  AgentStepLog,
  AgentStepsQuery,
  AgentTask,
  AgentTaskList,
  AgentTaskParams,
  AgentTasksQuery,
  AiCompleteRequest,
  AiCompletion,
  ClosedDocument,
  CommandList,
  CommandParams,
  CommandResult,
  CommandRunRequest,
  CloseRequest,
  CursorRequest,
  DeliveriesQuery,
  DeliveryLog,
  DocumentList,
  DocumentSummary,
  DocumentText,
  EditResult,
  EventMessage,
  EventTicket,
  FolderListing,
  FolderQuery,
  ExtensionInfo,
  ExtensionList,
  ExtensionParams,
  GitBranches,
  GitCommitRequest,
  GitCommitResult,
  GitPullResult,
  GitPushResult,
  GitStatus,
  GitSyncRequest,
  InsertRequest,
  LocalHealth,
  OpenApiDocument,
  OpenRequest,
  ReloadRequest,
  ReplaceRequest,
  SaveRequest,
  TextQuery,
  WindowSession,
  WindowSignedOut,
  WindowSignInRequest,
  WorkspaceTrustRequest,
} from './local-resources.ts';

/** The local API's rate limit budgets (requests per minute, for the server as a whole). */
export const LOCAL_LIMIT_CLASSES = ['aiComplete', 'default'] as const;
export type LocalLimitClass = (typeof LOCAL_LIMIT_CLASSES)[number];

/**
 * Who may call a route:
 * - `token`: `Authorization: Bearer <apiToken>` (the default);
 * - `ticket`: the token, or on a WebSocket upgrade only, a single-use ticket in `?ticket=`
 *   (a browser page cannot set headers on a WebSocket);
 * - `public`: no credentials (only for what holds no data, such as the editor page's assets).
 */
export type LocalRouteAccess = 'token' | 'ticket' | 'public';

/** What a route promises about who may call it and which budget it draws on (its Fastify `config`). */
export interface LocalRouteRules {
  /** The budget the route draws on; `default` when absent. */
  limit?: LocalLimitClass;
  /** `token` when absent. */
  access?: LocalRouteAccess;
  /** The route is a WebSocket: it is the only kind of route that accepts an upgrade. */
  websocket?: boolean;
}

/** The groups the reference documentation and the OpenAPI document list routes under. */
export const LOCAL_TAGS = {
  Service: 'Health and the OpenAPI document.',
  Editor: 'The open documents: opening, editing, saving, reloading and closing them.',
  AI: 'Completion on the engine the hosted tab completion uses.',
  Agents: 'Autonomous coding tasks on the workspace: starting them, following, cancelling and reverting them.',
  Git: "The workspace's repository, with real git.",
  Events: 'The event stream (a WebSocket), and tickets that let a browser page open it.',
  Webhooks: 'The delivery log of the webhooks set in settings.json.',
  Window: "The window's sign-in (a session cookie and its CSRF value) and the workspace's files as its tree shows them.",
  Extensions: "Extensions' commands, the extensions themselves (restart, reload), and trusting the workspace to run its own.",
} as const;
export type LocalTag = keyof typeof LOCAL_TAGS;

interface LocalRouteRequest {
  params?: TSchema;
  query?: TSchema;
  /** A JSON body; one whose fields are all optional may be left out. */
  body?: TSchema;
}

export interface LocalRoute<
  Req extends LocalRouteRequest = LocalRouteRequest,
  Res extends TSchema = TSchema,
  Id extends string = string,
> extends LocalRouteRules {
  id: Id;
  method: 'GET' | 'POST';
  /** The whole path, Fastify style (`/api/editor/open`). */
  path: string;
  summary: string;
  description: string;
  tag: LocalTag;
  request: Req;
  /** 101 for a WebSocket, whose schema is then that of its messages. */
  success: { status: 200 | 101; description: string; schema: Res };
  /** Event types the route emits when it succeeds (each is queued for webhooks before it answers). */
  emits?: readonly string[];
  /** Error codes the route answers with besides those every route may (see localRouteErrors). */
  errors: readonly ErrorCode[];
  /**
   * The route's name as a tool of `loom mcp` (the desktop app over MCP stdio); a route without
   * one is not a tool. The tool takes the route's input and answers its success schema.
   */
  mcpTool?: string;
}

/** Checks an entry against LocalRoute while keeping its literal types (id, tag, schemas, websocket). */
function defineRoute<const R extends LocalRoute>(route: R): R {
  return route;
}

/** What reaching a file of the workspace may meet: its path leaves the workspace, or the file system refuses. */
const FILE_ERRORS = [
  'forbidden_path',
  'not_found',
  'not_a_file',
  'not_a_folder',
  'symlink_loop',
  'name_too_long',
  'permission_denied',
  'payload_too_large',
  'file_system_busy',
  'file_system_error',
] as const satisfies readonly ErrorCode[];

/** What editing or writing a document may meet besides reaching it. */
const WRITE_ERRORS = ['protected_path', 'edit_conflict', 'read_only_file_system', 'disk_full', 'already_exists'] as const satisfies readonly ErrorCode[];

/** What any git command may meet. */
const GIT_ERRORS = [
  'no_workspace',
  'not_a_repository',
  'git_unavailable',
  'git_timeout',
  'git_failed',
  'repository_busy',
  'protocol_not_allowed',
] as const satisfies readonly ErrorCode[];

/** What push and pull may meet besides any git command's failures. */
const SYNC_ERRORS = [
  'invalid_ref',
  'unknown_branch',
  'detached_head',
  'no_remote',
  'remote_auth_failed',
  'remote_unavailable',
] as const satisfies readonly ErrorCode[];

const MODEL_ERRORS = ['unknown_model', 'model_failed', 'model_unavailable', 'model_timeout'] as const satisfies readonly ErrorCode[];

// ---- service -------------------------------------------------------------------------------

export const getHealth = defineRoute({
  id: 'getHealth',
  method: 'GET',
  path: '/api/health',
  summary: 'Health check',
  description: 'Reports that the server is up, its version and uptime.',
  tag: 'Service',
  request: {},
  success: { status: 200, description: 'The server is up.', schema: LocalHealth },
  errors: [],
});

export const getOpenApi = defineRoute({
  id: 'getOpenApi',
  method: 'GET',
  path: '/api/openapi.json',
  summary: 'The OpenAPI document of this API',
  description: 'The OpenAPI 3.1 description of every route of this server, built from the same table the routes are.',
  tag: 'Service',
  request: {},
  success: { status: 200, description: 'The OpenAPI document.', schema: OpenApiDocument },
  errors: [],
});

// ---- editor --------------------------------------------------------------------------------

export const getActiveFile = defineRoute({
  id: 'getActiveFile',
  method: 'GET',
  path: '/api/editor/file',
  summary: 'The active document',
  description: 'The summary of the active document, after picking up changes made on disk.',
  tag: 'Editor',
  request: {},
  success: { status: 200, description: 'The active document.', schema: ActiveDocument },
  errors: ['no_active_file'],
  mcpTool: 'get_active_file',
});

export const listDocuments = defineRoute({
  id: 'listDocuments',
  method: 'GET',
  path: '/api/editor/documents',
  summary: 'The open documents',
  description: 'Every open document, the most recently activated last.',
  tag: 'Editor',
  request: {},
  success: { status: 200, description: 'The open documents.', schema: DocumentList },
  errors: [],
  mcpTool: 'list_documents',
});

export const getText = defineRoute({
  id: 'getText',
  method: 'GET',
  path: '/api/editor/text',
  summary: "A document's text",
  description: 'The text of an open document (the active one when `path` is left out) and its version.',
  tag: 'Editor',
  request: { query: TextQuery },
  success: { status: 200, description: 'The text.', schema: DocumentText },
  errors: ['no_active_file', ...FILE_ERRORS],
  mcpTool: 'get_text',
});

export const openDocument = defineRoute({
  id: 'openDocument',
  method: 'POST',
  path: '/api/editor/open',
  summary: 'Open a file',
  description: 'Opens a workspace file (or activates it when it is open) and makes it the active document. A file in a protected path opens read-only.',
  tag: 'Editor',
  request: { body: OpenRequest },
  success: { status: 200, description: "The document's summary.", schema: DocumentSummary },
  emits: ['file:open'],
  errors: [...FILE_ERRORS],
  mcpTool: 'open_file',
});

export const insertText = defineRoute({
  id: 'insertText',
  method: 'POST',
  path: '/api/editor/insert',
  summary: 'Insert text',
  description:
    "Inserts text at a position. With neither `line` nor `column`, at the cursor; with only `line`, at the start of that line; with only `column`, on the cursor's line. The cursor moves to the end of the new text.",
  tag: 'Editor',
  request: { body: InsertRequest },
  success: { status: 200, description: 'The edit.', schema: EditResult },
  errors: ['no_active_file', 'out_of_range', ...FILE_ERRORS, ...WRITE_ERRORS],
  mcpTool: 'insert_text',
});

export const replaceText = defineRoute({
  id: 'replaceText',
  method: 'POST',
  path: '/api/editor/replace',
  summary: 'Replace a range',
  description:
    'Replaces the text from the start position (inclusive) to the end position (exclusive). The cursor moves to the end of the new text. With `version`, only if the document is still at that version (the window sends it, so that its edit never lands where another one moved the text).',
  tag: 'Editor',
  request: { body: ReplaceRequest },
  success: { status: 200, description: 'The edit.', schema: EditResult },
  errors: ['no_active_file', 'out_of_range', 'version_conflict', ...FILE_ERRORS, ...WRITE_ERRORS],
  mcpTool: 'replace_text',
});

export const saveDocument = defineRoute({
  id: 'saveDocument',
  method: 'POST',
  path: '/api/editor/save',
  summary: 'Save a document',
  description:
    'Writes a document atomically (a temporary file, fsync, rename). A document whose file changed on disk while it had unsaved edits is refused unless `overwrite` is set; a deleted file is written again.',
  tag: 'Editor',
  request: { body: SaveRequest },
  success: { status: 200, description: "The document's summary (`dirty: false`).", schema: DocumentSummary },
  emits: ['file:save'],
  errors: ['no_active_file', ...FILE_ERRORS, ...WRITE_ERRORS],
  mcpTool: 'save_file',
});

export const reloadDocument = defineRoute({
  id: 'reloadDocument',
  method: 'POST',
  path: '/api/editor/reload',
  summary: 'Reload a document from disk',
  description:
    'Reads a document again from disk, discarding its unsaved edits (the way out of a conflict). The cursor stays where it was, within the new text.',
  tag: 'Editor',
  request: { body: ReloadRequest },
  success: { status: 200, description: "The document's summary.", schema: DocumentSummary },
  emits: ['file:open'],
  errors: ['no_active_file', ...FILE_ERRORS],
  mcpTool: 'reload_file',
});

export const moveCursor = defineRoute({
  id: 'moveCursor',
  method: 'POST',
  path: '/api/editor/cursor',
  summary: 'Move the cursor',
  description:
    "Puts a document's cursor at a position (where an insert without a position goes; what an extension's `editor.insert` uses). The window sends it when the user moves the cursor.",
  tag: 'Editor',
  request: { body: CursorRequest },
  success: { status: 200, description: "The document's summary.", schema: DocumentSummary },
  errors: ['no_active_file', 'out_of_range', ...FILE_ERRORS],
});

export const closeDocument = defineRoute({
  id: 'closeDocument',
  method: 'POST',
  path: '/api/editor/close',
  summary: 'Close a document',
  description:
    'Closes a document; one with unsaved edits is refused unless `discard` is set. Closing the active document makes the most recently activated other one active.',
  tag: 'Editor',
  request: { body: CloseRequest },
  success: { status: 200, description: 'The document closed and the one now active.', schema: ClosedDocument },
  errors: ['no_active_file', 'unsaved_changes', ...FILE_ERRORS],
  mcpTool: 'close_file',
});

// ---- AI ------------------------------------------------------------------------------------

export const completeCode = defineRoute({
  id: 'completeCode',
  method: 'POST',
  path: '/api/ai/complete',
  summary: 'Complete code',
  description:
    'A completion from the engine the hosted tab completion uses. `prompt` and `context` become a cursor by the rule in docs/completion.md; an empty completion means the model has nothing it is sure of.',
  tag: 'AI',
  request: { body: AiCompleteRequest },
  success: { status: 200, description: 'The completion.', schema: AiCompletion },
  // Completion has its own, smaller budget (60 a minute by default).
  limit: 'aiComplete',
  emits: ['ai:complete'],
  errors: [...MODEL_ERRORS],
  mcpTool: 'complete_code',
});

// ---- agents --------------------------------------------------------------------------------

export const runAgent = defineRoute({
  id: 'runAgent',
  method: 'POST',
  path: '/api/agent/run',
  summary: 'Start an agent task',
  description:
    'Starts a task and answers once it runs. Refused at once, never started to fail later: an empty task, globs that match no file, a model that is unknown or cannot chat (400, with a hint), a 6th task while 5 run (429 with `retryAfter`). Its progress follows on `/events` (`agent:step`, then `agent:complete`) and in its status.',
  tag: 'Agents',
  request: { body: AgentRunRequest },
  success: { status: 200, description: 'The task runs.', schema: AgentRunStarted },
  emits: ['agent:start'],
  errors: ['unknown_model', 'rate_limited', 'model_unavailable'],
  mcpTool: 'run_agent',
});

export const getAgentStatus = defineRoute({
  id: 'getAgentStatus',
  method: 'GET',
  path: '/api/agent/status/:taskId',
  summary: "An agent task's status",
  description: "A task's status, counters and, once ended, why; each file it changed with the change's unified diff.",
  tag: 'Agents',
  request: { params: AgentTaskParams },
  success: { status: 200, description: 'The task.', schema: AgentTask },
  errors: [],
  mcpTool: 'get_agent_status',
});

export const listAgentTasks = defineRoute({
  id: 'listAgentTasks',
  method: 'GET',
  path: '/api/agent/tasks',
  summary: 'Agent tasks',
  description: "The workspace's tasks, newest first, running and ended (the changes without their diffs: ask a task's status for those).",
  tag: 'Agents',
  request: { query: AgentTasksQuery },
  success: { status: 200, description: 'The tasks.', schema: AgentTaskList },
  errors: [],
  mcpTool: 'list_agent_tasks',
});

export const getAgentSteps = defineRoute({
  id: 'getAgentSteps',
  method: 'GET',
  path: '/api/agent/steps/:taskId',
  summary: "An agent task's step log",
  description: 'Each model turn, tool call and result, and what Loom told the model, in order, trimmed. Page with `after` (the last index seen).',
  tag: 'Agents',
  request: { params: AgentTaskParams, query: AgentStepsQuery },
  success: { status: 200, description: 'The steps.', schema: AgentStepLog },
  errors: [],
  mcpTool: 'get_agent_steps',
});

export const cancelAgentTask = defineRoute({
  id: 'cancelAgentTask',
  method: 'POST',
  path: '/api/agent/cancel/:taskId',
  summary: 'Cancel an agent task',
  description:
    "Stops a running task: the model call under way is aborted at once and the task ends `cancelled`, keeping the changes it applied (revert them with the revert route). An ended task is left as it is. Answers the task's status.",
  tag: 'Agents',
  request: { params: AgentTaskParams },
  success: { status: 200, description: 'The task, ended.', schema: AgentTask },
  emits: ['agent:complete'],
  errors: [],
  mcpTool: 'cancel_agent_task',
});

export const revertAgentTask = defineRoute({
  id: 'revertAgentTask',
  method: 'POST',
  path: '/api/agent/revert/:taskId',
  summary: "Revert an agent task's changes",
  description:
    'Undoes every change of a task as a whole (a running task is cancelled first). Refused with REVERT_CONFLICT and `files`, nothing undone, when a file is no longer as the task left it. Reverting again changes nothing.',
  tag: 'Agents',
  request: { params: AgentTaskParams },
  success: { status: 200, description: 'The task, with `revertedAt`.', schema: AgentTask },
  emits: ['agent:complete'],
  errors: ['revert_conflict', ...FILE_ERRORS, ...WRITE_ERRORS],
  mcpTool: 'revert_agent_task',
});

// ---- git -----------------------------------------------------------------------------------

export const getGitStatus = defineRoute({
  id: 'getGitStatus',
  method: 'GET',
  path: '/api/git/status',
  summary: 'Repository status',
  description: 'The branch, its upstream and the changed, untracked and conflicted files inside the workspace folder.',
  tag: 'Git',
  request: {},
  success: { status: 200, description: 'The status.', schema: GitStatus },
  errors: [...GIT_ERRORS],
  mcpTool: 'git_status',
});

export const listBranches = defineRoute({
  id: 'listBranches',
  method: 'GET',
  path: '/api/git/branches',
  summary: 'Branches',
  description: 'The local branches and the remote-tracking ones.',
  tag: 'Git',
  request: {},
  success: { status: 200, description: 'The branches.', schema: GitBranches },
  errors: [...GIT_ERRORS],
  mcpTool: 'git_branches',
});

export const commit = defineRoute({
  id: 'commit',
  method: 'POST',
  path: '/api/git/commit',
  summary: 'Commit',
  description:
    'Commits every change under the workspace, or exactly `files`. A refused commit leaves the index as it was. During a merge, committing every change concludes it.',
  tag: 'Git',
  request: { body: GitCommitRequest },
  success: { status: 200, description: "The commit (also the `git:commit` event's data).", schema: GitCommitResult },
  emits: ['git:commit'],
  errors: [...GIT_ERRORS, ...FILE_ERRORS, 'nothing_to_commit', 'commit_rejected', 'git_conflict', 'merge_in_progress'],
  mcpTool: 'git_commit',
});

export const push = defineRoute({
  id: 'push',
  method: 'POST',
  path: '/api/git/push',
  summary: 'Push',
  description:
    'Pushes a branch (the current one by default) to its upstream, else to `origin`; never forces, and sets the upstream when there is none. A client that goes away stops git.',
  tag: 'Git',
  request: { body: GitSyncRequest },
  success: { status: 200, description: 'What was pushed.', schema: GitPushResult },
  errors: [...GIT_ERRORS, ...SYNC_ERRORS, 'push_rejected'],
  mcpTool: 'git_push',
});

export const pull = defineRoute({
  id: 'pull',
  method: 'POST',
  path: '/api/git/pull',
  summary: 'Pull',
  description:
    'Fetches a branch and merges it into the current one (a fast-forward when it can). A conflicted pull leaves the merge in progress and answers GIT_CONFLICT with `files`. A client that goes away stops git.',
  tag: 'Git',
  request: { body: GitSyncRequest },
  success: { status: 200, description: 'What the pull did.', schema: GitPullResult },
  errors: [...GIT_ERRORS, ...SYNC_ERRORS, 'git_conflict', 'merge_in_progress', 'uncommitted_changes', 'unrelated_histories'],
  mcpTool: 'git_pull',
});

// ---- events --------------------------------------------------------------------------------

export const openEventStream = defineRoute({
  id: 'openEventStream',
  method: 'GET',
  path: '/events',
  summary: 'The event stream',
  description:
    'A WebSocket: a hello, then one message per event. Open it with the token, or from a browser page with a ticket (`?ticket=`). A rotated token closes it with code 4401.',
  tag: 'Events',
  request: {},
  success: { status: 101, description: 'Switching to the WebSocket; its messages have this schema.', schema: EventMessage },
  access: 'ticket',
  websocket: true,
  errors: [],
});

export const issueEventTicket = defineRoute({
  id: 'issueEventTicket',
  method: 'POST',
  path: '/api/events/ticket',
  summary: 'A ticket to open the event stream',
  description:
    'A single-use ticket that opens `/events?ticket=…` once, within 30 seconds, as a WebSocket upgrade, while the token that bought it is in force: a browser page cannot set headers on a WebSocket.',
  tag: 'Events',
  request: {},
  success: { status: 200, description: 'The ticket.', schema: EventTicket },
  errors: [],
});

// ---- webhooks ------------------------------------------------------------------------------

export const listWebhookDeliveries = defineRoute({
  id: 'listWebhookDeliveries',
  method: 'GET',
  path: '/api/webhooks/deliveries',
  summary: 'Webhook delivery log',
  description: 'The deliveries of webhooks, newest first: no secrets, no signatures.',
  tag: 'Webhooks',
  request: { query: DeliveriesQuery },
  success: { status: 200, description: 'The deliveries.', schema: DeliveryLog },
  errors: ['store_unavailable'],
});

// ---- the window ----------------------------------------------------------------------------

export const startWindowSession = defineRoute({
  id: 'startWindowSession',
  method: 'POST',
  path: '/api/session',
  summary: 'Sign the window in',
  description:
    'Trades a one-time code (from the link `loom serve --open` opens; single use, 60 seconds) or the API token for a session: an HttpOnly, SameSite=Strict cookie, and the CSRF value to send in `X-Loom-CSRF` with every state-changing request made with it. A used, expired or wrong code is 401.',
  tag: 'Window',
  request: { body: WindowSignInRequest },
  success: { status: 200, description: 'Signed in; the cookie is set.', schema: WindowSession },
  access: 'public',
  errors: [],
});

export const getWindowSession = defineRoute({
  id: 'getWindowSession',
  method: 'GET',
  path: '/api/session',
  summary: "The window's session",
  description: "The CSRF value of the session the request's cookie names (a reloaded page asks for it again). Without a live session cookie, 401.",
  tag: 'Window',
  request: {},
  success: { status: 200, description: 'The session.', schema: WindowSession },
  errors: [],
});

export const endWindowSession = defineRoute({
  id: 'endWindowSession',
  method: 'POST',
  path: '/api/session/end',
  summary: 'Sign the window out',
  description: "Ends the session the request's cookie names and clears the cookie.",
  tag: 'Window',
  request: {},
  success: { status: 200, description: 'Signed out.', schema: WindowSignedOut },
  errors: [],
});

export const listFolder = defineRoute({
  id: 'listFolder',
  method: 'GET',
  path: '/api/files',
  summary: 'A folder of the workspace',
  description: "The files and folders in a folder of the workspace (the window's file tree), `.git` and `.loom` left out.",
  tag: 'Window',
  request: { query: FolderQuery },
  success: { status: 200, description: 'The folder.', schema: FolderListing },
  errors: ['protected_path', ...FILE_ERRORS],
  mcpTool: 'list_folder',
});

// ---- extensions ----------------------------------------------------------------------------

export const listCommands = defineRoute({
  id: 'listCommands',
  method: 'GET',
  path: '/api/commands',
  summary: "Extensions' commands",
  description:
    "Every command an extension contributes (its manifest's `contributes.commands`) or registered, for the command palette. A workspace extension's commands are listed once the workspace is trusted.",
  tag: 'Extensions',
  request: {},
  success: { status: 200, description: 'The commands.', schema: CommandList },
  errors: [],
  mcpTool: 'list_commands',
});

export const runCommand = defineRoute({
  id: 'runCommand',
  method: 'POST',
  path: '/api/commands/:name',
  summary: 'Run a command',
  description:
    "Runs an extension's command with JSON arguments and answers its JSON result; its extension is started first when it is not running. A handler that throws is 502 EXTENSION_FAILED (and a notification); one that runs past `extensions.commandTimeoutMs` is 504 EXTENSION_TIMEOUT, and its extension is stopped when its process no longer answers (an endless loop).",
  tag: 'Extensions',
  request: { params: CommandParams, body: CommandRunRequest },
  success: { status: 200, description: "The handler's result.", schema: CommandResult },
  errors: ['unknown_command', 'workspace_untrusted', 'extension_failed', 'extension_timeout'],
  mcpTool: 'run_command',
});

export const listExtensions = defineRoute({
  id: 'listExtensions',
  method: 'GET',
  path: '/api/extensions',
  summary: 'Extensions',
  description: "Every extension found (the user's and the workspace's), its state and commands; whether the workspace is trusted; the folders skipped and why.",
  tag: 'Extensions',
  request: {},
  success: { status: 200, description: 'The extensions.', schema: ExtensionList },
  errors: [],
});

export const restartExtension = defineRoute({
  id: 'restartExtension',
  method: 'POST',
  path: '/api/extensions/:name/restart',
  summary: 'Restart an extension',
  description:
    'Deactivates the extension (time-limited) and ends its process, then starts it again: the way back after a crash, a memory blow-up or an endless loop. Answers its state; a start that fails again is `failed` with the reason.',
  tag: 'Extensions',
  request: { params: ExtensionParams },
  success: { status: 200, description: 'The extension, restarted.', schema: ExtensionInfo },
  errors: ['unknown_extension', 'workspace_untrusted'],
});

export const reloadExtensions = defineRoute({
  id: 'reloadExtensions',
  method: 'POST',
  path: '/api/extensions/reload',
  summary: 'Reload the extensions',
  description: 'Deactivates every extension, reads the extension folders again (new, changed and removed ones) and starts those that activate on start-up.',
  tag: 'Extensions',
  request: {},
  success: { status: 200, description: 'The extensions, reloaded.', schema: ExtensionList },
  errors: [],
});

// Never an MCP tool: trusting a workspace runs the code it carries, which is the user's call to
// make in the window or with `loom extension trust`, never a model's (a prompt-injected one would).
export const trustWorkspace = defineRoute({
  id: 'trustWorkspace',
  method: 'POST',
  path: '/api/workspace/trust',
  summary: 'Trust the workspace',
  description:
    "Trusts the workspace to run its own extensions (`.loom/extensions`), remembered in the config folder, and starts them; `{trusted: false}` stops trusting it and stops them. A workspace's extensions never run before this.",
  tag: 'Extensions',
  request: { body: WorkspaceTrustRequest },
  success: { status: 200, description: 'The extensions, as they now are.', schema: ExtensionList },
  errors: [],
});

/** Every route, in the order of the documentation. */
export const localRoutes = [
  getHealth,
  getOpenApi,
  getActiveFile,
  listDocuments,
  getText,
  openDocument,
  insertText,
  replaceText,
  saveDocument,
  reloadDocument,
  moveCursor,
  closeDocument,
  completeCode,
  runAgent,
  getAgentStatus,
  listAgentTasks,
  getAgentSteps,
  cancelAgentTask,
  revertAgentTask,
  getGitStatus,
  listBranches,
  commit,
  push,
  pull,
  issueEventTicket,
  openEventStream,
  listWebhookDeliveries,
  startWindowSession,
  getWindowSession,
  endWindowSession,
  listFolder,
  listCommands,
  runCommand,
  listExtensions,
  restartExtension,
  reloadExtensions,
  trustWorkspace,
] as const;

export type AnyLocalRoute = (typeof localRoutes)[number];
/** The routes answered over HTTP (all but the WebSocket). */
export type HttpLocalRoute = Exclude<AnyLocalRoute, { websocket: true }>;
export type LocalRouteId = HttpLocalRoute['id'];
export type LocalRouteById<Id extends LocalRouteId> = Extract<HttpLocalRoute, { id: Id }>;

/** What a handler receives: validated input, never a framework object. */
export type LocalRouteInput<R extends LocalRoute> = ValidatedInput<R['request']>;

export type LocalRouteOutput<R extends LocalRoute> = Static<R['success']['schema']>;

/** Whether a route's body may be left out: it has one, and none of its fields is required. */
export function bodyOptional(route: LocalRoute): boolean {
  return route.request.body !== undefined && allFieldsOptional(route.request.body);
}
