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
  AgentApprovalAnswer,
  AgentChangeQuery,
  AgentChangeTexts,
  AgentMessageRequest,
  AgentRevertRequest,
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
  CreatedEntry,
  CreateEntryRequest,
  DeletedEntry,
  DeleteEntryRequest,
  RenamedEntry,
  RenameEntryRequest,
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
  ExtensionFileWrite,
  ExtensionFileWritten,
  ExtensionInfo,
  ExtensionList,
  ExtensionParams,
  GitBranches,
  GitBranchResult,
  GitCommitRequest,
  GitCommitResult,
  GitCreateBranchRequest,
  GitDiffQuery,
  GitFileDiff,
  GitFilesRequest,
  GitPullResult,
  GitPushResult,
  GitStatus,
  GitSwitchRequest,
  GitSyncRequest,
  InsertRequest,
  LocalHealth,
  OpenApiDocument,
  OpenRequest,
  ReloadRequest,
  ReplaceRequest,
  SaveRequest,
  TerminalMessage,
  TerminalSocketQuery,
  TerminalTicket,
  TextQuery,
  SignInLink,
  SignInLinkRequest,
  WindowSession,
  WindowSignedOut,
  WindowSignInRequest,
  WorkspaceTrustRequest,
} from './local-resources.ts';
import {
  CodeAppliedEdit,
  CodeDiagnosticsQuery,
  CodeEditPreview,
  CodeFileDiagnostics,
  CodeFiles,
  CodeFilesQuery,
  CodePaths,
  CodeHover,
  CodeIndexStatus,
  CodeIndexStatusQuery,
  CodeLocate,
  CodeLocateRequest,
  CodeMap,
  CodeMapRequest,
  CodeNavigation,
  CodePositionQuery,
  CodeProblems,
  CodeRankedSearch,
  CodeRankedSearchQuery,
  CodeReferencesQuery,
  CodeRenameRequest,
  CodeReplaceApplied,
  CodeReplacePreview,
  CodeReplaceRequest,
  CodeSymbols,
  CodeSymbolsQuery,
  CodeTextSearch,
  CodeTextSearchQuery,
} from './code-resources.ts';
import { ComposerMessageRequest, ComposerSession, ComposerSessionCreated, ComposerSessionParams } from './composer.ts';
import {
  LocalComposerApplied,
  LocalComposerApplyRequest,
  LocalComposerEvents,
  LocalComposerEventsQuery,
  LocalComposerList,
  LocalComposerListQuery,
  LocalComposerRequest,
} from './local-composer.ts';

/** The local API's rate limit budgets (requests per minute, for the server as a whole). */
export const LOCAL_LIMIT_CLASSES = ['aiComplete', 'default'] as const;
export type LocalLimitClass = (typeof LOCAL_LIMIT_CLASSES)[number];

/**
 * Who may call a route:
 * - `token`: `Authorization: Bearer <apiToken>` (the default), or the window's session;
 * - `ticket`: the token, or on a WebSocket upgrade only, a single-use ticket in `?ticket=`
 *   (a browser page cannot set headers on a WebSocket);
 * - `window`: only the signed-in window, the user at the keyboard: a session cookie started by
 *   the one-time sign-in link, and its CSRF value. For what runs code (approving an agent's
 *   command): the token means "edit the workspace" and is held by scripts, extensions and MCP
 *   clients, so it is refused (403 WINDOW_REQUIRED), and so is a session it was traded for.
 *   On a WebSocket upgrade (the terminal), the session's cookie from this server's Origin and a
 *   single-use ticket that session bought (with its CSRF value). Never an MCP tool;
 * - `public`: no credentials (only for what holds no data, such as the editor page's assets).
 */
export type LocalRouteAccess = 'token' | 'ticket' | 'window' | 'public';

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
  Files:
    "Creating, renaming and deleting the workspace's files and folders, through the workspace's gate (never `.git`, `.loom` or Loom's own folders); the editor's open documents follow.",
  Extensions: "Extensions' commands, the extensions themselves (restart, reload), and trusting the workspace to run its own.",
  Terminal: "The window's integrated terminal: a shell in the workspace folder, for the signed-in window of a trusted workspace only.",
  Composer:
    "The window's composer sessions (docs/composer.md): multi-file edits run by the hosted API beside the app under `loom up`, on the workspace as last committed; listed, started, followed, cancelled and applied to the workspace here. Under `loom serve` alone every route is 409 `COMPOSER_UNAVAILABLE`.",
  Code: "Code intelligence (docs/code-intelligence.md): the code index's status, files, symbols and text search, locate and the repository map; definition, references, hover, diagnostics and rename from the language servers. Positions are 1-based lines and columns (UTF-16 code units), as in the editor's routes.",
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
  /**
   * A POST that changes nothing (its input is too large for a query string: a task in words, a
   * rename to preview): its MCP tool is marked read-only, as every GET's is.
   */
  readOnly?: true;
}

/** A window-only route as a tool of `loom mcp` would hand what runs code to whoever drives the tool: the table refuses it. */
type NoWindowTool<R> = R extends { access: 'window'; mcpTool: string } ? never : R;

/** Checks an entry against LocalRoute while keeping its literal types (id, tag, schemas, websocket). */
function defineRoute<const R extends LocalRoute>(route: R & NoWindowTool<R>): R {
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

/** What reading a file may meet: besides reaching it, a path in Loom's own folders (protected, for reading too). */
const READ_ERRORS = ['protected_path', ...FILE_ERRORS] as const satisfies readonly ErrorCode[];

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
  errors: ['no_active_file', ...READ_ERRORS],
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
  errors: [...READ_ERRORS],
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
  errors: ['no_active_file', ...READ_ERRORS],
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
  errors: ['no_active_file', 'out_of_range', ...READ_ERRORS],
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
  errors: ['no_active_file', 'unsaved_changes', ...READ_ERRORS],
  mcpTool: 'close_file',
});

// ---- AI ------------------------------------------------------------------------------------

export const completeCode = defineRoute({
  id: 'completeCode',
  method: 'POST',
  path: '/api/ai/complete',
  summary: 'Complete code',
  description:
    'A completion from the engine the hosted tab completion uses. `prompt` and `context` (or `prompt` and `suffix`) become a cursor by the rule in docs/completion.md; the completion never repeats the text after the cursor, and an empty one means the model has nothing it is sure of.',
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
    "Starts a task and answers once it runs. Refused at once, never started to fail later: an empty task, globs that match no file, a model that is unknown or cannot chat (400, with a hint), a glob whose folder leads out of the workspace through a symbolic link (403 `FORBIDDEN_PATH`) or into Loom's own folders (403 `PROTECTED_PATH`), a 6th task while 5 run (429 with `retryAfter`). Its progress follows on `/events` (`agent:step`, then `agent:complete`) and in its status.",
  tag: 'Agents',
  request: { body: AgentRunRequest },
  success: { status: 200, description: 'The task runs.', schema: AgentRunStarted },
  emits: ['agent:start'],
  errors: ['unknown_model', 'forbidden_path', 'protected_path', 'symlink_loop', 'name_too_long', 'permission_denied', 'rate_limited', 'model_unavailable'],
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
    "Without a body, undoes every change of a task as a whole (a running task is cancelled first). With `files`, undoes only those files' changes, or only the listed hunks of a file (`hunks`, counted on the `version` that `GET /api/agent/change/:taskId` answered): what a review rejects; the task's changes are then what is left, and a whole revert later undoes that. A running task is 409 `TASK_RUNNING` then (cancel it, or wait for its end). Either way every file is checked first and refused with REVERT_CONFLICT and `files`, nothing undone, when one is no longer as the task left it (edited since, unsaved edits, held by a task, or a `version` that is not the task's text now). Writes go through the editor's documents (`file:save` follows). Reverting again changes nothing.",
  tag: 'Agents',
  request: { params: AgentTaskParams, body: AgentRevertRequest },
  success: { status: 200, description: 'The task, with `revertedAt`.', schema: AgentTask },
  emits: ['agent:complete'],
  errors: ['revert_conflict', 'task_running', ...FILE_ERRORS, ...WRITE_ERRORS],
  mcpTool: 'revert_agent_task',
});

export const getAgentChange = defineRoute({
  id: 'getAgentChange',
  method: 'GET',
  path: '/api/agent/change/:taskId',
  summary: 'One file an agent task changed, both sides',
  description:
    "The file before the task and as the task left it, in full (up to 1 MiB each, the agents' file limit; the status's diffs are cut), with the `version` a revert of some of its hunks is counted on and whether the file changed since (a revert of it would be 409). What a review shows as a diff to accept or reject. A file that is not among the task's changes is 404.",
  tag: 'Agents',
  request: { params: AgentTaskParams, query: AgentChangeQuery },
  success: { status: 200, description: 'Both sides of the change.', schema: AgentChangeTexts },
  errors: [],
  mcpTool: 'get_agent_change',
});

export const sendAgentMessage = defineRoute({
  id: 'sendAgentMessage',
  method: 'POST',
  path: '/api/agent/message/:taskId',
  summary: 'Continue an agent task with a message',
  description:
    "Continues a task that has ended (completed, failed or cancelled) with the user's message: the same task, its changes and its conversation kept, new budgets. Answers once it runs again, like `run`; its step log goes on where it stopped (a `user` entry, then the new turns), and `agent:step` and `agent:complete` follow. A task still running (or waiting for an approval) is 409 `TASK_RUNNING`: wait for its end or cancel it. A reverted task continues from the files as they are now (its reverted changes are no longer listed). The 6th running task is 429, as for `run`.",
  tag: 'Agents',
  request: { params: AgentTaskParams, body: AgentMessageRequest },
  success: { status: 200, description: 'The task runs again.', schema: AgentRunStarted },
  emits: ['agent:message'],
  errors: ['task_running', 'unknown_model', 'rate_limited', 'model_unavailable'],
  mcpTool: 'send_agent_message',
});

// Never an MCP tool, never the token: approving runs a command on this machine, which only the
// user at the keyboard may decide (a prompt-injected model or a script holding the token would).
export const answerAgentApproval = defineRoute({
  id: 'answerAgentApproval',
  method: 'POST',
  path: '/api/agent/approve/:taskId',
  summary: "Answer an agent's request to run a command",
  description:
    "Answers the command a task waits to run (`approval` in its status, the `agent:approval` event): `once` runs it, `always` also adds it to settings.json's `agents.commands`, `deny` tells the model it was not approved. Only the signed-in window may answer (access `window`): the API token is 403 `WINDOW_REQUIRED`. Running it needs a trusted workspace (else 403 `WORKSPACE_UNTRUSTED`; `deny` works anyway). An approval no longer waiting (answered, expired, the task ended) is 404. Answers the task's status.",
  tag: 'Agents',
  request: { params: AgentTaskParams, body: AgentApprovalAnswer },
  success: { status: 200, description: 'The task, running on.', schema: AgentTask },
  access: 'window',
  emits: ['agent:approval'],
  // Writing settings.json (for `always`) may meet what any write meets.
  errors: ['workspace_untrusted', 'permission_denied', 'read_only_file_system', 'disk_full', 'file_system_busy', 'file_system_error'],
});

// ---- git -----------------------------------------------------------------------------------

export const getGitStatus = defineRoute({
  id: 'getGitStatus',
  method: 'GET',
  path: '/api/git/status',
  summary: 'Repository status',
  description:
    "The branch, its upstream and the changed, untracked and conflicted files inside the workspace folder, but for Loom's own config, data and models folders when the workspace holds them.",
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
    "Commits every change under the workspace, or exactly `files`, but never Loom's own config, data and models folders when the workspace holds them (a file named in one is 403 `PROTECTED_PATH`). A refused commit leaves the index as it was. During a merge, committing every change concludes it.",
  tag: 'Git',
  request: { body: GitCommitRequest },
  success: { status: 200, description: "The commit (also the `git:commit` event's data).", schema: GitCommitResult },
  emits: ['git:commit'],
  errors: [...GIT_ERRORS, ...FILE_ERRORS, 'protected_path', 'nothing_to_commit', 'commit_rejected', 'git_conflict', 'merge_in_progress'],
  mcpTool: 'git_commit',
});

export const push = defineRoute({
  id: 'push',
  method: 'POST',
  path: '/api/git/push',
  summary: 'Push',
  description:
    'Pushes a branch (the current one by default) to its upstream, else to `origin`; never forces, and sets the upstream when there is none. While it runs, `git:progress` events say how far it got (a few a second at most). A client that goes away stops git.',
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
    'Fetches a branch and merges it into the current one (a fast-forward when it can), with `git:progress` events while it runs. A conflicted pull leaves the merge in progress and answers GIT_CONFLICT with `files`. A client that goes away stops git.',
  tag: 'Git',
  request: { body: GitSyncRequest },
  success: { status: 200, description: 'What the pull did.', schema: GitPullResult },
  errors: [...GIT_ERRORS, ...SYNC_ERRORS, 'git_conflict', 'merge_in_progress', 'uncommitted_changes', 'unrelated_histories'],
  mcpTool: 'git_pull',
});

export const getGitDiff = defineRoute({
  id: 'getGitDiff',
  method: 'GET',
  path: '/api/git/diff',
  summary: "A file's change against HEAD",
  description:
    "Both sides of a changed file, for a side-by-side or unified diff: the text HEAD holds (at `originalPath` for a staged rename) and the text in the working tree. A side that is missing, binary (a NUL byte in its first 8,000 bytes) or larger than 1 MiB says so and carries no text. The path is checked as a commit's: inside the workspace, never in `.git` or Loom's own folders.",
  tag: 'Git',
  request: { query: GitDiffQuery },
  success: { status: 200, description: 'Both sides of the file.', schema: GitFileDiff },
  errors: [...GIT_ERRORS, ...READ_ERRORS, 'validation_error'],
  mcpTool: 'git_diff',
});

export const stage = defineRoute({
  id: 'stage',
  method: 'POST',
  path: '/api/git/stage',
  summary: 'Stage files',
  description:
    "Stages `files` (new, changed and deleted ones; a folder stands for everything under it), or every change in the workspace without a body, as `git add -A` does; never Loom's own folders. Answers the status afterwards.",
  tag: 'Git',
  request: { body: GitFilesRequest },
  success: { status: 200, description: 'The status after staging.', schema: GitStatus },
  errors: [...GIT_ERRORS, ...FILE_ERRORS, 'protected_path', 'validation_error'],
  mcpTool: 'git_stage',
});

export const unstage = defineRoute({
  id: 'unstage',
  method: 'POST',
  path: '/api/git/unstage',
  summary: 'Unstage files',
  description:
    'Puts the index back to HEAD for `files`, or for every file in the workspace without a body (`git reset -- <files>`); the working tree keeps its changes. Answers the status afterwards.',
  tag: 'Git',
  request: { body: GitFilesRequest },
  success: { status: 200, description: 'The status after unstaging.', schema: GitStatus },
  errors: [...GIT_ERRORS, ...FILE_ERRORS, 'protected_path', 'validation_error'],
  mcpTool: 'git_unstage',
});

export const createBranch = defineRoute({
  id: 'createBranch',
  method: 'POST',
  path: '/api/git/branch',
  summary: 'Create a branch',
  description:
    'Makes a branch at `from` (a local or remote-tracking branch; HEAD by default) and switches to it unless `switch` is false, in one step: a switch git refuses makes no branch. A name that is not a plain branch name (`-x`, `a..b`, `@{`) is 400 `INVALID_REF` and never reaches git.',
  tag: 'Git',
  request: { body: GitCreateBranchRequest },
  success: { status: 200, description: 'The branch made.', schema: GitBranchResult },
  errors: [...GIT_ERRORS, 'invalid_ref', 'unknown_branch', 'branch_exists', 'uncommitted_changes', 'merge_in_progress'],
});

export const switchBranch = defineRoute({
  id: 'switchBranch',
  method: 'POST',
  path: '/api/git/switch',
  summary: 'Switch branch',
  description:
    "Checks out a local branch, or makes one tracking the only remote that has that branch. When local changes would be overwritten, git refuses and so does the route: 409 `UNCOMMITTED_CHANGES` with git's reason and the files, nothing changed.",
  tag: 'Git',
  request: { body: GitSwitchRequest },
  success: { status: 200, description: 'Where HEAD is now.', schema: GitBranchResult },
  errors: [...GIT_ERRORS, 'invalid_ref', 'unknown_branch', 'uncommitted_changes', 'merge_in_progress'],
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

// ---- terminal ------------------------------------------------------------------------------

// A shell runs anything: only the user at the keyboard, in a workspace they trust. The ticket is
// bought over HTTP with the window session's CSRF value (which only the page can have read), and
// opens the socket once, for that same session.
export const issueTerminalTicket = defineRoute({
  id: 'issueTerminalTicket',
  method: 'POST',
  path: '/api/terminal/ticket',
  summary: 'A ticket to open a terminal',
  description:
    'A single-use ticket that opens `/terminal?ticket=…` once, within 30 seconds, as a WebSocket upgrade carrying the same window session. Only the signed-in window may ask (access `window`): the API token is 403 `WINDOW_REQUIRED`. The workspace must be trusted (else 403 `WORKSPACE_UNTRUSTED`): a shell runs its code.',
  tag: 'Terminal',
  request: {},
  success: { status: 200, description: 'The ticket.', schema: TerminalTicket },
  access: 'window',
  errors: ['workspace_untrusted', 'terminal_unavailable', 'too_many_terminals'],
});

export const openTerminal = defineRoute({
  id: 'openTerminal',
  method: 'GET',
  path: '/terminal',
  summary: 'A terminal',
  description:
    "A WebSocket to a shell in a pseudo-terminal, in the workspace folder: the window sends keystrokes and its size as JSON text frames (`{type: 'input', data}`, `{type: 'resize', cols, rows}`), the server sends the shell's output as binary frames and these messages as text. Opened with a ticket from `POST /api/terminal/ticket` and the window's session cookie, from this server's Origin; never with the token. Closing the socket ends the shell and every process it started (its session); so do the shell's exit, signing the window out and rotating the token. A window that stops reading pauses the shell's output rather than growing a buffer. Nothing the terminal shows or is sent is logged, emitted as an event or sent to a webhook.",
  tag: 'Terminal',
  request: { query: TerminalSocketQuery },
  success: {
    status: 101,
    description: "Switching to the WebSocket; its text messages have this schema (the shell's output comes as binary frames).",
    schema: TerminalMessage,
  },
  access: 'window',
  websocket: true,
  errors: ['workspace_untrusted'],
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

export const createSignInLink = defineRoute({
  id: 'createSignInLink',
  method: 'POST',
  path: '/api/session/link',
  summary: 'A one-time sign-in link',
  description:
    "A link that signs the window in once, within 60 seconds, as the one `loom serve --open` opens: what `loom open` asks the running app for. Besides the API token it needs the data dir's link key (`window-link.key`), since a window signed in by a link may run code, which the token alone never may: a wrong or missing key is 403 `FORBIDDEN`. Not a tool of `loom mcp`.",
  tag: 'Window',
  request: { body: SignInLinkRequest },
  success: { status: 200, description: 'The link, to open in the browser.', schema: SignInLink },
  errors: ['forbidden'],
});

export const listFolder = defineRoute({
  id: 'listFolder',
  method: 'GET',
  path: '/api/files',
  summary: 'A folder of the workspace',
  description:
    "The files and folders in a folder of the workspace (the window's file tree), `.git`, `.loom`, Loom's own folders and symbolic links that lead out of the workspace left out.",
  tag: 'Window',
  request: { query: FolderQuery },
  success: { status: 200, description: 'The folder.', schema: FolderListing },
  errors: [...READ_ERRORS],
  mcpTool: 'list_folder',
});

// ---- files ---------------------------------------------------------------------------------

/** What a file operation may meet: reaching the path, the gate's refusals, the file system's. */
const ENTRY_ERRORS = [
  'protected_path',
  'already_exists',
  'read_only_file_system',
  'disk_full',
  'folder_not_empty',
  ...FILE_ERRORS,
] as const satisfies readonly ErrorCode[];

export const createEntry = defineRoute({
  id: 'createEntry',
  method: 'POST',
  path: '/api/files/create',
  summary: 'Create a file or a folder',
  description:
    'Creates a file (with `text`, empty when absent) or, with `kind: "folder"`, a folder, and the missing folders on its way. Anything already at the path is 409 `ALREADY_EXISTS` and nothing is written. The path is workspace-relative: absolute, `..`, a control character or a blank name is 400 `VALIDATION_ERROR`, a name over 255 bytes 400 `NAME_TOO_LONG`, a path out of the workspace (through a symbolic link) 403 `FORBIDDEN_PATH`, one in `.git`, `.loom` or Loom\'s own folders 403 `PROTECTED_PATH`.',
  tag: 'Files',
  request: { body: CreateEntryRequest },
  success: { status: 200, description: 'What was created.', schema: CreatedEntry },
  emits: ['file:create'],
  errors: [...ENTRY_ERRORS],
  mcpTool: 'create_file',
});

export const renameEntry = defineRoute({
  id: 'renameEntry',
  method: 'POST',
  path: '/api/files/rename',
  summary: 'Rename or move a file or a folder',
  description:
    "Renames (moves) a file or a folder; the folders on the new path's way are created. A missing source is 404 `NOT_FOUND`; an existing target 409 `ALREADY_EXISTS` (never replaced); a folder moved into itself 400; a folder that holds a protected path (a nested repository's `.git`) 403 `PROTECTED_PATH`. Open documents at or under the old path follow it, unsaved edits and all (`documents` lists them). Paths are checked as for create.",
  tag: 'Files',
  request: { body: RenameEntryRequest },
  success: { status: 200, description: 'What was renamed, and the open documents that followed.', schema: RenamedEntry },
  emits: ['file:rename'],
  errors: [...ENTRY_ERRORS],
  mcpTool: 'rename_file',
});

export const deleteEntry = defineRoute({
  id: 'deleteEntry',
  method: 'POST',
  path: '/api/files/delete',
  summary: 'Delete a file or a folder',
  description:
    'Deletes a file, a symbolic link (never its target) or a folder with everything in it, for good (no trash). Never the workspace folder (400), never a folder that holds a protected path (403 `PROTECTED_PATH`). An open document at or under the path with unsaved edits is 409 `UNSAVED_CHANGES` unless `discard` is set; the open documents are closed (`closed` lists them). A missing path is 404 `NOT_FOUND`. Paths are checked as for create.',
  tag: 'Files',
  request: { body: DeleteEntryRequest },
  success: { status: 200, description: 'What was deleted, and the open documents closed.', schema: DeletedEntry },
  emits: ['file:delete'],
  errors: ['unsaved_changes', ...ENTRY_ERRORS],
  mcpTool: 'delete_file',
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

// The code a trusted workspace runs: written only by the user at the keyboard, never by the
// token (which an extension or a prompt-injected model driving an MCP client may hold).
export const writeExtensionFile = defineRoute({
  id: 'writeExtensionFile',
  method: 'POST',
  path: '/api/extensions/files',
  summary: "Write a file of the workspace's extensions",
  description:
    "Writes a file under `.loom/extensions/<extension>/`, the workspace's own extensions, which every other write refuses (403 `PROTECTED_PATH`). Only the signed-in window may (access `window`: the API token is 403 `WINDOW_REQUIRED`), in a trusted workspace (else 403 `WORKSPACE_UNTRUSTED`): the workspace runs that code. The path must be spelled so, with no symbolic link on the way and nothing protected below it. `POST /api/extensions/reload` then runs what was written.",
  tag: 'Extensions',
  request: { body: ExtensionFileWrite },
  success: { status: 200, description: 'Written.', schema: ExtensionFileWritten },
  access: 'window',
  errors: [
    'workspace_untrusted',
    'protected_path',
    'forbidden_path',
    'not_a_file',
    'name_too_long',
    'permission_denied',
    'read_only_file_system',
    'disk_full',
    'file_system_busy',
    'file_system_error',
    'symlink_loop',
  ],
});

// ---- code intelligence ---------------------------------------------------------------------

/** What asking a language server about a file may meet: reading the file, a position outside it, the server. */
const LANGUAGE_ERRORS = [
  ...READ_ERRORS,
  'out_of_range',
  'language_server_unavailable',
  'language_server_failed',
  'language_server_timeout',
] as const satisfies readonly ErrorCode[];

export const getCodeIndexStatus = defineRoute({
  id: 'getCodeIndexStatus',
  method: 'GET',
  path: '/api/code/status',
  summary: "The code index's status",
  description:
    "The code index's state (`empty`, `building` with its progress, `ready`, `failed`), what it holds, the files and folders it left out with the reason, and every language server this workspace could use with its state. `index:progress` events tell a build's progress as it goes.",
  tag: 'Code',
  request: { query: CodeIndexStatusQuery },
  success: { status: 200, description: 'The status.', schema: CodeIndexStatus },
  errors: [],
  mcpTool: 'code_index_status',
});

export const findCodeFiles = defineRoute({
  id: 'findCodeFiles',
  method: 'GET',
  path: '/api/code/files',
  summary: 'Files by fuzzy path',
  description:
    "Files of the workspace whose path matches `query` fuzzily (the characters in order), best first: the editor's Ctrl+P. An empty query lists files in path order.",
  tag: 'Code',
  request: { query: CodeFilesQuery },
  success: { status: 200, description: 'The files.', schema: CodeFiles },
  errors: [],
  mcpTool: 'find_files',
});

export const listCodePaths = defineRoute({
  id: 'listCodePaths',
  method: 'GET',
  path: '/api/code/paths',
  summary: "Every indexed file's path",
  description:
    "The path of every file the code index lists, in path order: what the window's quick open scores in the page on each key, with no request per key (it asks again once files come or go). `GET /api/code/files` asks the server instead, one query at a time.",
  tag: 'Code',
  request: {},
  success: { status: 200, description: 'The paths.', schema: CodePaths },
  errors: [],
});

export const findCodeSymbols = defineRoute({
  id: 'findCodeSymbols',
  method: 'GET',
  path: '/api/code/symbols',
  summary: 'Definitions by fuzzy name',
  description:
    "Definitions (classes, functions, methods, types, variables…) whose name matches `query` fuzzily, best first, from the code index: the editor's Ctrl+T. With `path`, those of one file (Ctrl+Shift+O), all of them in order for an empty query. Without `path`, `query` is required.",
  tag: 'Code',
  request: { query: CodeSymbolsQuery },
  success: { status: 200, description: 'The definitions.', schema: CodeSymbols },
  errors: [],
  mcpTool: 'find_symbols',
});

export const searchCodeText = defineRoute({
  id: 'searchCodeText',
  method: 'GET',
  path: '/api/code/search',
  summary: 'Search text',
  description:
    "Lines of the workspace's files matching literal text or an RE2 regular expression, as ripgrep finds them (.gitignore followed, binary files skipped). Bounded, not streamed: at most `maxMatches` (500 by default, 10,000 at most) in `timeoutMs` (10 s by default); `truncated` says which bound stopped it. A regular expression RE2 cannot run or a bad glob is 400 VALIDATION_ERROR.",
  tag: 'Code',
  request: { query: CodeTextSearchQuery },
  success: { status: 200, description: 'The matching lines.', schema: CodeTextSearch },
  errors: [],
  mcpTool: 'search_text',
});

export const searchCodeRanked = defineRoute({
  id: 'searchCodeRanked',
  method: 'GET',
  path: '/api/code/ranked',
  summary: 'Ranked search',
  description:
    'Chunks of files ranked by BM25 (SQLite FTS5) for words and identifiers, with code-aware tokens: `parseUrl`, `parse_url` and `parse url` find each other.',
  tag: 'Code',
  request: { query: CodeRankedSearchQuery },
  success: { status: 200, description: 'The chunks, best first.', schema: CodeRankedSearch },
  errors: [],
  mcpTool: 'search_code',
});

export const locateCode = defineRoute({
  id: 'locateCode',
  method: 'POST',
  path: '/api/code/locate',
  summary: 'Locate the files a task changes',
  description:
    'The files most likely to need a change for a task in words (an issue, a commit message, a request), best first, with the reasons: lexical relevance, the definitions of symbols the task names, the definition–reference graph and, where the workspace has it, git history. Changes nothing (a POST for the length of the task).',
  tag: 'Code',
  request: { body: CodeLocateRequest },
  success: { status: 200, description: 'The files.', schema: CodeLocate },
  readOnly: true,
  errors: [],
  mcpTool: 'locate_files',
});

export const mapCode = defineRoute({
  id: 'mapCode',
  method: 'POST',
  path: '/api/code/map',
  summary: 'The repository map',
  description:
    "A compact map of the repository for a model's prompt, within a token budget: the focus files, then the files that matter for the task, each with its key definitions' first lines, numbered by line. Changes nothing.",
  tag: 'Code',
  request: { body: CodeMapRequest },
  success: { status: 200, description: 'The map.', schema: CodeMap },
  readOnly: true,
  errors: [],
  mcpTool: 'repository_map',
});

export const findDefinition = defineRoute({
  id: 'findDefinition',
  method: 'GET',
  path: '/api/code/definition',
  summary: 'Go to definition',
  description:
    'Where the symbol at a position (1-based line and column, UTF-16) is defined, from the language server of the file\'s language, on the text the editor shows. Where no server runs for it (none bundled or configured, or the workspace is not trusted for it), the code index answers by name, `source: "index"`.',
  tag: 'Code',
  request: { query: CodePositionQuery },
  success: { status: 200, description: 'The definitions.', schema: CodeNavigation },
  errors: [...LANGUAGE_ERRORS],
  mcpTool: 'go_to_definition',
});

export const findReferences = defineRoute({
  id: 'findReferences',
  method: 'GET',
  path: '/api/code/references',
  summary: 'Find references',
  description:
    'Where the symbol at a position is used (its declaration too unless `includeDeclaration=false`); the code index answers by name where no server runs.',
  tag: 'Code',
  request: { query: CodeReferencesQuery },
  success: { status: 200, description: 'The references.', schema: CodeNavigation },
  errors: [...LANGUAGE_ERRORS],
  mcpTool: 'find_references',
});

export const hoverCode = defineRoute({
  id: 'hoverCode',
  method: 'GET',
  path: '/api/code/hover',
  summary: 'Hover',
  description: 'What the language server says about the symbol at a position: its type and documentation, as Markdown (`markdown: null` when nothing).',
  tag: 'Code',
  request: { query: CodePositionQuery },
  success: { status: 200, description: 'The hover.', schema: CodeHover },
  errors: [...LANGUAGE_ERRORS],
  mcpTool: 'hover',
});

export const getFileDiagnostics = defineRoute({
  id: 'getFileDiagnostics',
  method: 'GET',
  path: '/api/code/diagnostics',
  summary: "A file's diagnostics",
  description:
    "A file's errors and warnings from its language server, for its text as it is now (the editor's unsaved text, else the disk): the server is given the text and its report waited for (`fresh=false`: its last report, at once). What an agent asks after an edit.",
  tag: 'Code',
  request: { query: CodeDiagnosticsQuery },
  success: { status: 200, description: 'The diagnostics.', schema: CodeFileDiagnostics },
  errors: [...LANGUAGE_ERRORS],
  mcpTool: 'get_diagnostics',
});

export const listProblems = defineRoute({
  id: 'listProblems',
  method: 'GET',
  path: '/api/code/problems',
  summary: "The workspace's problems",
  description:
    'Every file with diagnostics, errors first, with the counts by severity: what the language servers last reported for the files they were given (open documents and files asked about). `diagnostics:change` events tell each new report.',
  tag: 'Code',
  request: {},
  success: { status: 200, description: 'The problems.', schema: CodeProblems },
  errors: [],
  mcpTool: 'list_problems',
});

export const previewRename = defineRoute({
  id: 'previewRename',
  method: 'POST',
  path: '/api/code/rename',
  summary: 'Preview a rename',
  description:
    "What renaming the symbol at a position to `newName` would change, file by file: the text edits, what they were made against (an open document's version, or the SHA-256 of the file on disk) and the unified diff. Nothing changes: `POST /api/code/rename/apply` applies the preview. Nothing to rename there is 400 BAD_REQUEST; an edit that would create, rename or delete files, or leave the workspace, is refused.",
  tag: 'Code',
  request: { body: CodeRenameRequest },
  success: { status: 200, description: 'The preview.', schema: CodeEditPreview },
  readOnly: true,
  errors: [...LANGUAGE_ERRORS, 'bad_request', 'version_conflict'],
  mcpTool: 'rename_preview',
});

export const applyRename = defineRoute({
  id: 'applyRename',
  method: 'POST',
  path: '/api/code/rename/apply',
  summary: 'Apply a previewed rename',
  description:
    'Applies a preview (as `POST /api/code/rename` answered it) while every file is still as previewed: to an open document as unsaved edits (`file:change` events, so the window, undo and agents see it), to a file that is not open by writing it atomically. Every file is checked before any changes: one edited, saved, opened or closed since is 409 VERSION_CONFLICT and nothing changes; a protected path (.git, .loom) is 403.',
  tag: 'Code',
  request: { body: CodeEditPreview },
  success: { status: 200, description: 'The files changed.', schema: CodeAppliedEdit },
  errors: ['bad_request', 'out_of_range', 'version_conflict', ...READ_ERRORS, ...WRITE_ERRORS],
  mcpTool: 'apply_rename',
});

export const previewReplace = defineRoute({
  id: 'previewReplace',
  method: 'POST',
  path: '/api/code/replace',
  summary: 'Preview a replace in files',
  description:
    "Find and replace across the workspace's files (the window's Search view, Ctrl+Shift+H), previewed: each file with matches (the text open documents show, else the disk), each match with the line before, what it matched and what replaces it, and the text edits with what they were made against (an open document's version, or the SHA-256 of the file on disk). Nothing changes: `POST /api/code/replace/apply` applies the edits kept. The search is the text search's (`GET /api/code/search`: RE2, linear time, .gitignore followed, files found through the code index) and pages by file in path order: at most `maxFiles` files (100 by default, 1,000 at most) and `maxMatches` matches (2,000, 10,000 at most; `maxMatchesPerFile` 1,000) per answer, and `next` names the path to pass as `after` for the next page; a client shows each page as it comes. With an empty `replacement` it is a search whose answer can be applied. A regular expression RE2 cannot run (lookaround, backreferences), a replacement naming a group the pattern lacks, or a bad glob is 400 VALIDATION_ERROR. Files Loom does not write (.git, .loom, read-only documents) are left out and counted in `unwritable`.",
  tag: 'Code',
  request: { body: CodeReplaceRequest },
  success: { status: 200, description: 'The preview, one page of files.', schema: CodeReplacePreview },
  readOnly: true,
  errors: [],
  mcpTool: 'replace_preview',
});

export const applyReplace = defineRoute({
  id: 'applyReplace',
  method: 'POST',
  path: '/api/code/replace/apply',
  summary: 'Apply a previewed replace',
  description:
    "Applies the edits of a replace preview (`POST /api/code/replace`'s files with only `path`, `base` and the `edits` kept: leave out a file or an edit to spare it) while every file is still as previewed: an open document takes them as edits (`file:change` events, so the window, undo and agents see it) and is saved when it had no unsaved edits before; a file that is not open is written atomically through the workspace's gate. Every file is checked before any changes: one edited, saved, opened or closed since the preview is 409 VERSION_CONFLICT and nothing changes; a path outside the workspace is 403 FORBIDDEN_PATH, a protected one (.git, .loom) 403 PROTECTED_PATH.",
  tag: 'Code',
  request: { body: CodeEditPreview },
  success: { status: 200, description: 'The files changed.', schema: CodeReplaceApplied },
  errors: ['bad_request', 'out_of_range', 'version_conflict', ...READ_ERRORS, ...WRITE_ERRORS],
  mcpTool: 'apply_replace',
});

// ---- composer ------------------------------------------------------------------------------

/** What every composer route may meet: no hosted API beside this server (`loom serve` alone). */
const COMPOSER_ERRORS = ['composer_unavailable', 'not_found', 'store_unavailable'] as const satisfies readonly ErrorCode[];

export const listComposerSessions = defineRoute({
  id: 'listComposerSessions',
  method: 'GET',
  path: '/api/composer/sessions',
  summary: "The window's composer sessions",
  description:
    "The sessions started from this app (the machine's user on the hosted API beside it), newest first, without their edits: read a session for those.",
  tag: 'Composer',
  request: { query: LocalComposerListQuery },
  success: { status: 200, description: 'The sessions.', schema: LocalComposerList },
  errors: [...COMPOSER_ERRORS],
});

export const startComposerSession = defineRoute({
  id: 'startComposerSession',
  method: 'POST',
  path: '/api/composer/sessions',
  summary: 'Start a composer session on the workspace',
  description:
    'Starts a session on the workspace as last committed (what is not committed is not in it): `files` are the globs it may change. Refused at once: a workspace that is not a git repository with a commit, bad globs (400 `VALIDATION_ERROR`), no model that can chat (503 `MODEL_UNAVAILABLE`, with a hint), an 11th waiting session (429). Its progress follows on `/events` (`composer:progress`, `composer:status`) and in its events.',
  tag: 'Composer',
  request: { body: LocalComposerRequest },
  success: { status: 200, description: 'The session, queued (or already running).', schema: ComposerSessionCreated },
  emits: ['composer:status'],
  errors: [...COMPOSER_ERRORS, 'rate_limited', 'model_unavailable'],
});

export const getComposerSession = defineRoute({
  id: 'getComposerSession',
  method: 'GET',
  path: '/api/composer/sessions/:sessionId',
  summary: 'A composer session',
  description:
    "The session as the hosted API's `getComposerSession` answers it: status, plan, edits (each with its unified diff, base hash and content), summary, budgets.",
  tag: 'Composer',
  request: { params: ComposerSessionParams },
  success: { status: 200, description: 'The session.', schema: ComposerSession },
  errors: [...COMPOSER_ERRORS],
});

export const listComposerEvents = defineRoute({
  id: 'listComposerEvents',
  method: 'GET',
  path: '/api/composer/sessions/:sessionId/events',
  summary: "A composer session's events",
  description:
    'What the session did, in order, as the hosted event stream sends it (`status`, `step`, `edit`, `plan`, `push`), at most 200 after `after`. The window asks again after each `composer:progress`.',
  tag: 'Composer',
  request: { params: ComposerSessionParams, query: LocalComposerEventsQuery },
  success: { status: 200, description: 'The events.', schema: LocalComposerEvents },
  errors: [...COMPOSER_ERRORS],
});

export const cancelComposerSession = defineRoute({
  id: 'cancelComposerSession',
  method: 'POST',
  path: '/api/composer/sessions/:sessionId/cancel',
  summary: 'Cancel a composer session',
  description:
    'A queued session ends `cancelled` at once, a running one within a heartbeat, keeping its edits so far; an ended one is left as it is. Answers the session after.',
  tag: 'Composer',
  request: { params: ComposerSessionParams },
  success: { status: 200, description: 'The session.', schema: ComposerSession },
  errors: [...COMPOSER_ERRORS],
});

export const continueComposerSession = defineRoute({
  id: 'continueComposerSession',
  method: 'POST',
  path: '/api/composer/sessions/:sessionId/message',
  summary: 'Continue a composer session with a message',
  description:
    "Continues a session that has ended with the user's message, as the hosted API's `continueComposerSession` does: it goes on from its edits (or its plan) with new budgets, and its events go on (`message`, then `status`). A session still queued or running is 409 `SESSION_RUNNING`. Apply the edits once it has ended for good: they stay changes from the workspace as the session first found it.",
  tag: 'Composer',
  request: { params: ComposerSessionParams, body: ComposerMessageRequest },
  success: { status: 200, description: 'The session, queued again.', schema: ComposerSession },
  emits: ['composer:status'],
  errors: [...COMPOSER_ERRORS, 'session_running', 'rate_limited', 'model_unavailable'],
});

export const applyComposerSession = defineRoute({
  id: 'applyComposerSession',
  method: 'POST',
  path: '/api/composer/sessions/:sessionId/apply',
  summary: "Apply a composer session's edits to the workspace",
  description:
    "Writes a completed session's edits into the workspace, all or nothing, through the workspace's gate (never .git, .loom or Loom's own folders): every file must be as the session found it (its sha256 is the edit's `baseHash`; a file it created must not exist) and have no unsaved edits in the editor, else 409 `APPLY_REFUSED` with `files` and nothing is written. Open documents take the new text (`file:open` with `reloaded`), removed ones close; `composer:apply` follows. A session still running, or a plan, is 409 `APPLY_REFUSED`; one that failed or was cancelled only with `partial`. Applying again is refused: the files are no longer as the session found them.",
  tag: 'Composer',
  request: { params: ComposerSessionParams, body: LocalComposerApplyRequest },
  success: { status: 200, description: 'What was written.', schema: LocalComposerApplied },
  emits: ['composer:apply'],
  errors: [...COMPOSER_ERRORS, 'apply_refused', ...FILE_ERRORS, ...WRITE_ERRORS],
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
  getAgentChange,
  sendAgentMessage,
  answerAgentApproval,
  getGitStatus,
  listBranches,
  commit,
  push,
  pull,
  getGitDiff,
  stage,
  unstage,
  createBranch,
  switchBranch,
  issueEventTicket,
  openEventStream,
  listWebhookDeliveries,
  startWindowSession,
  getWindowSession,
  endWindowSession,
  createSignInLink,
  listFolder,
  createEntry,
  renameEntry,
  deleteEntry,
  listCommands,
  runCommand,
  listExtensions,
  restartExtension,
  reloadExtensions,
  trustWorkspace,
  writeExtensionFile,
  issueTerminalTicket,
  openTerminal,
  getCodeIndexStatus,
  findCodeFiles,
  listCodePaths,
  findCodeSymbols,
  searchCodeText,
  searchCodeRanked,
  locateCode,
  mapCode,
  findDefinition,
  findReferences,
  hoverCode,
  getFileDiagnostics,
  listProblems,
  previewRename,
  applyRename,
  previewReplace,
  applyReplace,
  listComposerSessions,
  startComposerSession,
  getComposerSession,
  listComposerEvents,
  cancelComposerSession,
  continueComposerSession,
  applyComposerSession,
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
