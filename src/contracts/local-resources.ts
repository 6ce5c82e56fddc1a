// The resources of the local API: what its routes take and answer, as schemas. The route table
// (local-routes.ts) names them per route; the types the rest of the code uses are derived from
// them (core's git results and document summaries included), so each shape is written once.
import { Type, type Static } from 'typebox';
import { AGENT_BUDGET_LIMITS } from './agent-limits.ts';
import type { ErrorCode } from './errors.ts';
import { StringEnum, Text } from './schema-helpers.ts';
import { CompletionContinuation, LanguageId } from './schemas.ts';

// ---- errors --------------------------------------------------------------------------------

/** A code of the error table as the local API spells it: UPPER_SNAKE_CASE; rate_limited keeps the interface's name. */
export type LocalErrorCode = 'RATE_LIMIT_EXCEEDED' | Uppercase<Exclude<ErrorCode, 'rate_limited'>>;

/** The local spelling of an error code. */
export function localCode(code: ErrorCode): LocalErrorCode;
export function localCode(code: string): string;
export function localCode(code: string): string {
  return code === 'rate_limited' ? 'RATE_LIMIT_EXCEEDED' : code.toUpperCase();
}

/** Every failure of the local API answers in this envelope. */
export const LocalErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Machine-readable, UPPER_SNAKE_CASE, e.g. NOT_FOUND.' }),
      message: Type.String({ description: 'Human-readable explanation.' }),
      retryAfter: Type.Optional(Type.Number({ description: 'Seconds to wait before retrying (also sent as Retry-After).' })),
      hint: Type.Optional(Type.String({ description: 'What to do about it.' })),
      details: Type.Optional(
        Type.Array(Type.Object({ field: Type.String({ description: 'e.g. body.path' }), message: Type.String() }), {
          description: 'On VALIDATION_ERROR: every failing field.',
        }),
      ),
      files: Type.Optional(
        Type.Array(Type.String(), {
          description:
            "On GIT_CONFLICT: the conflicted files; on REVERT_CONFLICT: the files no longer as the task left them; on APPLY_REFUSED: the files a composer session's edits cannot be applied to.",
        }),
      ),
    }),
  },
  { title: 'LocalError' },
);
export type LocalErrorBody = Static<typeof LocalErrorBody>;

// ---- service -------------------------------------------------------------------------------

export const LocalHealth = Type.Object(
  {
    status: Type.Literal('ok'),
    version: Type.String({ description: 'Loom version.' }),
    uptime: Type.Number({ description: 'Seconds since the server started, to 1/100 s.' }),
  },
  { title: 'LocalHealth' },
);
export type LocalHealth = Static<typeof LocalHealth>;

export const EventTicket = Type.Object(
  {
    ticket: Type.String({ description: 'Opens `/events?ticket=…` once, as a WebSocket upgrade.' }),
    expiresIn: Type.Integer({ description: 'Seconds the ticket stays valid.' }),
  },
  { title: 'EventTicket' },
);
export type EventTicket = Static<typeof EventTicket>;

/** The OpenAPI document: its top-level fields (the rest is whatever OpenAPI 3.1 holds). */
export const OpenApiDocument = Type.Object(
  {
    openapi: Type.String(),
    info: Type.Object({ title: Type.String(), version: Type.String(), description: Type.String() }),
    servers: Type.Array(Type.Object({ url: Type.String(), description: Type.String() })),
    tags: Type.Array(Type.Object({ name: Type.String(), description: Type.String() })),
    paths: Type.Record(Type.String(), Type.Unknown()),
    components: Type.Record(Type.String(), Type.Unknown()),
  },
  { title: 'OpenApiDocument' },
);
export type OpenApiDocument = Static<typeof OpenApiDocument>;

// ---- editor --------------------------------------------------------------------------------

const WorkspacePath = Type.String({ minLength: 1, maxLength: 4096, description: 'Path relative to the workspace.' });
const Line = Type.Integer({ minimum: 1, description: '1-based line.' });
const Column = Type.Integer({ minimum: 1, description: '1-based column, in UTF-16 code units.' });
/** Edits carry at most this much text (a paste of a large file still fits). */
const EditText = Type.String({ maxLength: 16 * 1024 * 1024 });

export const Position = Type.Object(
  {
    line: Type.Integer({ minimum: 1, description: '1-based.' }),
    column: Type.Integer({ minimum: 1, description: '1-based, in UTF-16 code units.' }),
  },
  { title: 'Position' },
);
export type Position = Static<typeof Position>;

const documentFields = {
  path: Type.String({ description: 'Relative to the workspace.' }),
  language: Type.String({ description: 'From the file name, a shebang or the content; `plaintext` otherwise.' }),
  lineCount: Type.Integer(),
  cursorLine: Type.Integer({ description: "The cursor's line (1-based)." }),
  cursor: Position,
  version: Type.Integer({ description: 'Increases with every edit.' }),
  dirty: Type.Boolean({ description: 'Unsaved edits.' }),
  conflict: Type.Boolean({
    description: 'The file changed on disk while the document had unsaved edits: saving answers EDIT_CONFLICT until it is reloaded or saved with `overwrite`.',
  }),
  readOnly: Type.Boolean({ description: 'Opened from a protected path (.git, .loom): edits and saves are refused.' }),
};

/** The active document, as `GET /api/editor/file` shows it. */
export const ActiveDocument = Type.Object(documentFields, { title: 'ActiveDocument' });
export type ActiveDocument = Static<typeof ActiveDocument>;

export const DocumentSummary = Type.Object(
  { ...documentFields, active: Type.Boolean({ description: 'It is the active document.' }) },
  { title: 'DocumentSummary' },
);
export type DocumentSummary = Static<typeof DocumentSummary>;

export const DocumentList = Type.Object({ documents: Type.Array(DocumentSummary) }, { title: 'DocumentList' });
export type DocumentList = Static<typeof DocumentList>;

export const DocumentText = Type.Object({ path: Type.String(), text: Type.String(), version: Type.Integer() }, { title: 'DocumentText' });
export type DocumentText = Static<typeof DocumentText>;

export const EditResult = Type.Object(
  {
    path: Type.String(),
    version: Type.Integer(),
    lineCount: Type.Integer(),
    cursorLine: Type.Integer(),
    cursor: Position,
    range: Type.Object({ start: Position, end: Position }, { description: 'Where the edit happened, after it: the new text spans from `start` to `end`.' }),
  },
  { title: 'EditResult' },
);
export type EditResult = Static<typeof EditResult>;

export const ClosedDocument = Type.Object(
  {
    path: Type.String({ description: 'The document closed.' }),
    active: Type.Union([Type.String(), Type.Null()], { description: 'The document now active; null when none is open.' }),
  },
  { title: 'ClosedDocument' },
);
export type ClosedDocument = Static<typeof ClosedDocument>;

export const TextQuery = Type.Object({ path: Type.Optional(WorkspacePath) });

export const OpenRequest = Type.Object({ path: WorkspacePath }, { additionalProperties: false });

export const InsertRequest = Type.Object(
  { text: EditText, line: Type.Optional(Line), column: Type.Optional(Column), path: Type.Optional(WorkspacePath) },
  { additionalProperties: false },
);
export type InsertRequest = Static<typeof InsertRequest>;

export const ReplaceRequest = Type.Object(
  {
    text: EditText,
    startLine: Line,
    startColumn: Column,
    endLine: Line,
    endColumn: Column,
    path: Type.Optional(WorkspacePath),
    version: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Apply only to this version of the document (positions are in it); another version is 409 VERSION_CONFLICT, nothing changed.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ReplaceRequest = Static<typeof ReplaceRequest>;

export const SaveRequest = Type.Object(
  {
    path: Type.Optional(WorkspacePath),
    overwrite: Type.Optional(Type.Boolean({ description: 'Replace a change made on disk since the document was loaded (else 409 EDIT_CONFLICT).' })),
  },
  { additionalProperties: false },
);

export const ReloadRequest = Type.Object({ path: Type.Optional(WorkspacePath) }, { additionalProperties: false });

export const CursorRequest = Type.Object(
  { line: Line, column: Column, path: Type.Optional(WorkspacePath) },
  { additionalProperties: false, title: 'CursorRequest' },
);
export type CursorRequest = Static<typeof CursorRequest>;

export const CloseRequest = Type.Object(
  {
    path: Type.Optional(WorkspacePath),
    discard: Type.Optional(Type.Boolean({ description: 'Close even with unsaved edits, dropping them (else 409 UNSAVED_CHANGES).' })),
  },
  { additionalProperties: false },
);

// ---- the window ----------------------------------------------------------------------------

export const WindowSignInRequest = Type.Object(
  {
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The one-time code of the link `loom serve --open` opened.' })),
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Or the API token itself (`loom token`), typed into the sign-in form.' })),
  },
  { additionalProperties: false, title: 'WindowSignInRequest' },
);
export type WindowSignInRequest = Static<typeof WindowSignInRequest>;

export const WindowSession = Type.Object(
  {
    csrf: Type.String({ description: 'Send it back in `X-Loom-CSRF` with every state-changing request made with the session cookie.' }),
    runsCode: Type.Boolean({
      description:
        "Whether the session may do what runs code (the routes whose access is `window`, such as approving an agent's command): a session started by the one-time link may, one started with the API token may not.",
    }),
  },
  { title: 'WindowSession' },
);
export type WindowSession = Static<typeof WindowSession>;

export const SignInLinkRequest = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "The data dir's link key (`window-link.key`, owner-only): it shows the asker is a process of the user on this machine (`loom open`), not a client holding only the API token.",
    }),
  },
  { additionalProperties: false, title: 'SignInLinkRequest' },
);
export type SignInLinkRequest = Static<typeof SignInLinkRequest>;

export const SignInLink = Type.Object(
  {
    url: Type.String({
      description: 'The window with a one-time code (`/?code=…`): it signs in the first browser that opens it. Open it; never print or log it.',
    }),
    expiresIn: Type.Integer({ description: 'Seconds the code stays valid.' }),
  },
  { title: 'SignInLink' },
);
export type SignInLink = Static<typeof SignInLink>;

export const WindowSignedOut = Type.Object({ signedOut: Type.Literal(true) }, { title: 'WindowSignedOut' });

export const FolderQuery = Type.Object({
  path: Type.Optional(Type.String({ maxLength: 4096, description: 'A folder, relative to the workspace; the workspace itself when absent or empty.' })),
});

export const FolderEntry = Type.Object(
  {
    name: Type.String(),
    path: Type.String({ description: 'Relative to the workspace, forward slashes.' }),
    kind: StringEnum(['file', 'folder'] as const, { description: 'What it is, symlinks followed.' }),
  },
  { title: 'FolderEntry' },
);
export type FolderEntry = Static<typeof FolderEntry>;

export const FolderListing = Type.Object(
  {
    path: Type.String({ description: 'The folder, relative to the workspace (`` for the workspace).' }),
    entries: Type.Array(FolderEntry, {
      description: 'Folders first, then files, each by name. `.git` and `.loom` are left out, and so are symlinks that lead outside the workspace or nowhere.',
    }),
  },
  { title: 'FolderListing' },
);
export type FolderListing = Static<typeof FolderListing>;

// ---- files ---------------------------------------------------------------------------------

const EntryKind = StringEnum(['file', 'folder'] as const, { description: 'A file or a folder.' });
/** A path the file operations take: checked further by the server (relative, no `..`, names of at most 255 bytes). */
const EntryPath = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: "Relative to the workspace (forward or back slashes); never absolute, never `..`, never in `.git`, `.loom` or Loom's own folders.",
});

export const CreateEntryRequest = Type.Object(
  {
    path: EntryPath,
    kind: Type.Optional(StringEnum(['file', 'folder'] as const, { description: 'What to create; `file` when absent.' })),
    text: Type.Optional(Type.String({ maxLength: 16 * 1024 * 1024, description: "A new file's content; empty when absent. Not for a folder." })),
  },
  { additionalProperties: false, title: 'CreateEntryRequest' },
);

export const CreatedEntry = Type.Object(
  { path: Type.String({ description: 'Relative to the workspace, forward slashes.' }), kind: EntryKind },
  { title: 'CreatedEntry' },
);
export type CreatedEntry = Static<typeof CreatedEntry>;

export const RenameEntryRequest = Type.Object({ from: EntryPath, to: EntryPath }, { additionalProperties: false, title: 'RenameEntryRequest' });

const MovedDocument = Type.Object({ from: Type.String(), to: Type.String() }, { title: 'MovedDocument' });

export const RenamedEntry = Type.Object(
  {
    from: Type.String(),
    to: Type.String(),
    kind: EntryKind,
    documents: Type.Array(MovedDocument, { description: 'The open documents that moved with it (each keeps its unsaved edits).' }),
  },
  { title: 'RenamedEntry' },
);
export type RenamedEntry = Static<typeof RenamedEntry>;

export const DeleteEntryRequest = Type.Object(
  {
    path: EntryPath,
    discard: Type.Optional(Type.Boolean({ description: 'Delete even when an open document at or under the path has unsaved edits (they are lost).' })),
  },
  { additionalProperties: false, title: 'DeleteEntryRequest' },
);

export const DeletedEntry = Type.Object(
  {
    path: Type.String(),
    kind: EntryKind,
    closed: Type.Array(Type.String(), { description: 'The open documents closed with it.' }),
  },
  { title: 'DeletedEntry' },
);
export type DeletedEntry = Static<typeof DeletedEntry>;

// ---- AI ------------------------------------------------------------------------------------

const PROMPT_MODES = ['auto', 'continue', 'instruct'] as const;
export type PromptMode = (typeof PROMPT_MODES)[number];

export const AiCompleteRequest = Type.Object(
  {
    prompt: Type.String({ maxLength: 1_000_000, description: 'The text to continue (or, with a chat-capable model, an instruction).' }),
    language: LanguageId,
    context: Type.Optional(Type.String({ maxLength: 16 * 1024 * 1024, description: "The file's content." })),
    suffix: Type.Optional(
      Type.String({
        maxLength: 16 * 1024 * 1024,
        description: 'The text after the cursor; with it, `prompt` is the text before the cursor (instead of `context`).',
      }),
    ),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A provider or model name; the configured default when absent.' })),
    mode: Type.Optional(StringEnum(PROMPT_MODES, { description: 'How `prompt` and `context` become a cursor; `auto` by default.' })),
    filePath: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: "The document's path; keys the type-ahead cache." })),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096 })),
  },
  { additionalProperties: false, title: 'AiCompleteRequest' },
);
export type AiCompleteRequest = Static<typeof AiCompleteRequest>;

export const AiCompletion = Type.Object(
  {
    completion: Type.String({
      description: 'The text to insert at the cursor; it never repeats the text after the cursor. Empty when the model has nothing it is sure of.',
    }),
    continuation: Type.Optional(CompletionContinuation),
    tokens: Type.Integer({ minimum: 0, description: 'Tokens the model generated.' }),
    model: Type.String({ description: 'The model that answered.' }),
    latencyMs: Type.Integer({ minimum: 0, description: 'Server-side time from the request to the answer.' }),
  },
  { title: 'AiCompletion' },
);
export type AiCompletion = Static<typeof AiCompletion>;

// ---- git -----------------------------------------------------------------------------------

/** Longest commit message taken. */
export const MAX_COMMIT_MESSAGE_LENGTH = 10_000;
/** Most paths one commit may name. */
export const MAX_COMMIT_FILES = 10_000;

const GitRef = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });
const Sha = Type.String({ description: 'A commit id.' });
const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

/**
 * The state of one side of a file, as `git status` letters: `M` modified, `T` type changed
 * (file ↔ symlink), `A` added, `D` deleted, `R` renamed, `C` copied, `U` unmerged (both sides
 * changed it in a merge), `?` untracked, `' '` unchanged. In a conflicted entry the two letters
 * say what each side did (`UU` both modified, `AA` both added, `DU` deleted by us, …).
 */
const GIT_FILE_STATES = ['M', 'T', 'A', 'D', 'R', 'C', 'U', '?', ' '] as const;
export type GitFileState = (typeof GIT_FILE_STATES)[number];

export const GitFileStatus = Type.Object(
  {
    path: Type.String({ description: 'Relative to the workspace root, forward slashes, never quoted.' }),
    index: StringEnum(GIT_FILE_STATES, { description: 'What the index (the staging area) holds compared with HEAD.' }),
    workingTree: StringEnum(GIT_FILE_STATES, { description: 'What the working tree holds compared with the index.' }),
    staged: Type.Boolean({ description: 'The index differs from HEAD for this file (it is staged, fully or partly).' }),
    conflicted: Type.Boolean({ description: 'The file has unresolved merge conflicts.' }),
    originalPath: Type.Optional(Type.String({ description: 'For a rename or copy (`R`, `C`): the path it came from.' })),
  },
  { title: 'GitFileStatus' },
);
export type GitFileStatus = Static<typeof GitFileStatus>;

export const GitStatus = Type.Object(
  {
    branch: NullableString('The checked-out branch; null when HEAD is detached. Set in an empty repository too.'),
    detached: Type.Boolean(),
    head: NullableString('The commit HEAD points at; null in a repository with no commit yet.'),
    upstream: NullableString("The branch's upstream, e.g. `origin/main`; null when none is set."),
    ahead: Type.Integer({ minimum: 0, description: 'Commits on the branch not on its upstream (0 without an upstream).' }),
    behind: Type.Integer({ minimum: 0, description: 'Commits on the upstream not on the branch, as of the last fetch (0 without an upstream).' }),
    merging: Type.Boolean({ description: 'A merge stopped on conflicts and waits for a commit (or an abort).' }),
    files: Type.Array(GitFileStatus, { description: 'Changed, untracked and conflicted files inside the workspace folder; ignored files are not listed.' }),
    clean: Type.Boolean({ description: 'No changed, untracked or conflicted file.' }),
  },
  { title: 'GitStatus' },
);
export type GitStatus = Static<typeof GitStatus>;

export const GitBranch = Type.Object(
  {
    name: Type.String({ description: 'Short name, e.g. `main` or `feature/x`.' }),
    current: Type.Boolean(),
    upstream: NullableString('Its upstream, e.g. `origin/main`; null when none is set.'),
    head: Type.String({ description: 'The commit it points at.' }),
  },
  { title: 'GitBranch' },
);
export type GitBranch = Static<typeof GitBranch>;

export const GitRemoteBranch = Type.Object(
  {
    name: Type.String({ description: '`<remote>/<branch>`, e.g. `origin/main`.' }),
    remote: Type.String({ description: 'The remote it belongs to.' }),
    head: Type.String({ description: 'The commit it pointed at when last fetched.' }),
  },
  { title: 'GitRemoteBranch' },
);
export type GitRemoteBranch = Static<typeof GitRemoteBranch>;

export const GitBranches = Type.Object(
  {
    current: NullableString(
      'The checked-out branch; null when HEAD is detached. In a repository with no commit yet, the branch the first commit will create (not in `branches` yet).',
    ),
    branches: Type.Array(GitBranch, { description: 'Sorted by name.' }),
    remotes: Type.Array(GitRemoteBranch, { description: 'Sorted by name; `origin/HEAD` style aliases are left out.' }),
  },
  { title: 'GitBranches' },
);
export type GitBranches = Static<typeof GitBranches>;

export const GitCommitRequest = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: MAX_COMMIT_MESSAGE_LENGTH, description: 'Not blank; kept as written (lines starting with `#` too).' }),
    files: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
        minItems: 1,
        maxItems: MAX_COMMIT_FILES,
        description:
          'Paths (relative to the workspace, or absolute inside it) to commit, exactly these; a folder stands for everything under it. Omitted: every change in the workspace, new files included.',
      }),
    ),
  },
  { additionalProperties: false, title: 'GitCommitRequest' },
);
export type GitCommitRequest = Static<typeof GitCommitRequest>;

export const GitCommitResult = Type.Object(
  {
    commit: Sha,
    branch: NullableString('The branch it was made on; null when HEAD was detached.'),
    summary: Type.String({ description: 'The first line of the message.' }),
    files: Type.Array(Type.String(), { description: 'Paths the commit changed, added or deleted; for a merge, against its first parent.' }),
    merge: Type.Boolean({ description: 'The commit concluded a merge (it has two parents).' }),
  },
  { title: 'GitCommitResult' },
);
export type GitCommitResult = Static<typeof GitCommitResult>;

/** All optional: no body at all means `{}`. */
export const GitSyncRequest = Type.Object(
  {
    remote: Type.Optional(GitRef("A configured remote's name. Default: the branch's upstream remote, else `origin`.")),
    branch: Type.Optional(
      GitRef(
        "Push: the local branch to push (default: the current one). Pull: the remote branch to merge into the current one (default: the upstream branch, else the current branch's name).",
      ),
    ),
  },
  { additionalProperties: false, title: 'GitSyncRequest' },
);
export type GitSyncRequest = Static<typeof GitSyncRequest>;

export const GitPushResult = Type.Object(
  {
    remote: Type.String(),
    branch: Type.String({ description: 'The local branch pushed.' }),
    remoteBranch: Type.String({ description: 'The branch it was pushed to on the remote.' }),
    head: Type.String({ description: 'The commit pushed.' }),
    updated: Type.Boolean({ description: 'False when the remote already had it.' }),
    upstreamSet: Type.Boolean({ description: 'The branch had no upstream; this push set it.' }),
    summary: Type.String({ description: 'One human line, e.g. `Pushed main to origin/main (1a2b3c4..5d6e7f8).`' }),
  },
  { title: 'GitPushResult' },
);
export type GitPushResult = Static<typeof GitPushResult>;

export const GitPullResult = Type.Object(
  {
    remote: Type.String(),
    branch: Type.String({ description: 'The remote branch merged.' }),
    head: Type.String({ description: 'HEAD after the pull.' }),
    previousHead: NullableString('HEAD before the pull; null in a repository that had no commit.'),
    updated: Type.Boolean({ description: 'False when already up to date.' }),
    merged: Type.Boolean({ description: 'A merge commit was made (the branches had diverged); false for a fast-forward.' }),
    commits: Type.Integer({ minimum: 0, description: 'How many commits the branch gained (a merge commit included).' }),
    summary: Type.String({ description: 'One human line, e.g. `Fast-forwarded main to origin/main: 3 new commits.`' }),
  },
  { title: 'GitPullResult' },
);
export type GitPullResult = Static<typeof GitPullResult>;

/** Longest side of a file's diff sent as text; a larger side is sent as `tooLarge`, without text. */
export const MAX_DIFF_SIDE_BYTES = 1024 * 1024;

export const GitDiffQuery = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 4096, description: 'A file, relative to the workspace (or absolute inside it).' }),
  },
  { additionalProperties: false },
);
export type GitDiffQuery = Static<typeof GitDiffQuery>;

export const GitFileSide = Type.Object(
  {
    exists: Type.Boolean({ description: 'False when the file is not on this side (added since HEAD, or deleted).' }),
    binary: Type.Boolean({ description: "The content has a NUL byte in its first 8,000 bytes (git's test): no text is sent." }),
    tooLarge: Type.Boolean({ description: `Larger than ${MAX_DIFF_SIDE_BYTES} bytes: no text is sent.` }),
    size: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Bytes; null when the file does not exist on this side.' }),
    text: Type.Union([Type.String(), Type.Null()], { description: 'The content as UTF-8; null when missing, binary or too large.' }),
  },
  { title: 'GitFileSide' },
);
export type GitFileSide = Static<typeof GitFileSide>;

export const GitFileDiff = Type.Object(
  {
    path: Type.String({ description: 'Relative to the workspace, forward slashes.' }),
    originalPath: Type.Union([Type.String(), Type.Null()], { description: 'For a staged rename: the path HEAD holds the file at.' }),
    head: GitFileSide,
    workingTree: GitFileSide,
  },
  { title: 'GitFileDiff' },
);
export type GitFileDiff = Static<typeof GitFileDiff>;

/** All optional: no body at all means every change. */
export const GitFilesRequest = Type.Object(
  {
    files: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
        minItems: 1,
        maxItems: MAX_COMMIT_FILES,
        description:
          'Paths (relative to the workspace, or absolute inside it); a folder stands for everything under it. Omitted: every change in the workspace.',
      }),
    ),
  },
  { additionalProperties: false, title: 'GitFilesRequest' },
);
export type GitFilesRequest = Static<typeof GitFilesRequest>;

export const GitCreateBranchRequest = Type.Object(
  {
    name: GitRef('The new branch, by git check-ref-format rules (never starting with `-`, no `..`).'),
    from: Type.Optional(GitRef('Where it starts: a local branch (`main`) or a remote-tracking one (`origin/main`). Default: HEAD.')),
    switch: Type.Optional(Type.Boolean({ description: 'Switch to it once made (default true).' })),
  },
  { additionalProperties: false, title: 'GitCreateBranchRequest' },
);
export type GitCreateBranchRequest = Static<typeof GitCreateBranchRequest>;

export const GitSwitchRequest = Type.Object(
  {
    branch: GitRef('A local branch; or a branch only one remote has, which is then created locally, tracking it.'),
  },
  { additionalProperties: false, title: 'GitSwitchRequest' },
);
export type GitSwitchRequest = Static<typeof GitSwitchRequest>;

export const GitBranchResult = Type.Object(
  {
    branch: Type.String({ description: 'The branch made or switched to.' }),
    head: Type.String({ description: 'The commit it points at.' }),
    current: NullableString('The checked-out branch afterwards.'),
    created: Type.Boolean({ description: 'The branch was made by this request.' }),
    switched: Type.Boolean({ description: 'HEAD moved to the branch.' }),
    summary: Type.String({ description: 'One human line, e.g. `Switched to feature (1a2b3c4).`' }),
  },
  { title: 'GitBranchResult' },
);
export type GitBranchResult = Static<typeof GitBranchResult>;

/** The data of a `git:progress` event: one line of git's progress during a push or a pull. */
export const GitProgress = Type.Object(
  {
    operation: StringEnum(['push', 'pull'] as const),
    phase: Type.String({ description: "What git is doing, e.g. `Writing objects`, `Receiving objects`; `remote` for a line of the remote's." }),
    text: Type.String({ description: "git's line as it printed it (at most 300 characters, credentials masked)." }),
    percent: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()]),
    done: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    total: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  },
  { title: 'GitProgress' },
);
export type GitProgress = Static<typeof GitProgress>;

// ---- webhooks ------------------------------------------------------------------------------

/**
 * pending: waiting for its next attempt (or being attempted). delivered: an attempt got a 2xx.
 * failed: every attempt of the schedule failed. disabled: the endpoint answered 410 Gone.
 * abandoned: the endpoint left the settings (or stopped subscribing) before delivery.
 */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'disabled', 'abandoned'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'At most this many; 50 by default.' })),
  before: Type.Optional(Type.String({ maxLength: 100, description: 'A delivery id: list the ones enqueued before it.' })),
  status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only deliveries in this state.' })),
});
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

/** One line of the delivery log: no secret, no signature. */
export const DeliveryLogEntry = Type.Object(
  {
    id: Type.String({ description: '`msg_…`: the `webhook-id` header, the same on every attempt.' }),
    event: Type.String({ description: 'The event type.' }),
    url: Type.String({ description: 'The endpoint, without credentials.' }),
    status: StringEnum(DELIVERY_STATUSES),
    attempts: Type.Integer({ minimum: 0 }),
    lastStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt; null when it got no response.' }),
    lastError: NullableString('Why the last attempt failed.'),
    createdAt: Type.String({ description: 'ISO 8601.' }),
    deliveredAt: NullableString('ISO 8601; null until delivered.'),
    nextAttemptAt: NullableString('ISO 8601 while pending, else null.'),
  },
  { title: 'DeliveryLogEntry' },
);
export type DeliveryLogEntry = Static<typeof DeliveryLogEntry>;

export const DeliveryLog = Type.Object({ deliveries: Type.Array(DeliveryLogEntry, { description: 'Newest first.' }) }, { title: 'DeliveryLog' });
export type DeliveryLog = Static<typeof DeliveryLog>;

// ---- agents --------------------------------------------------------------------------------

/**
 * What a task's budgets may be, a request's or the configured defaults' (the config schema
 * takes its limits from here).
 */
// The limits alone live in agent-limits.ts, free of the schema library: the settings table reads them.
export { AGENT_BUDGET_LIMITS } from './agent-limits.ts';

export const AGENT_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export const AGENT_END_REASONS = [
  'done',
  'max_steps',
  'max_tokens',
  'timeout',
  'loop',
  'unusable_answers',
  'model_error',
  'cancelled',
  'interrupted',
  'error',
] as const;
export const AGENT_CHANGE_ACTIONS = ['created', 'modified', 'deleted', 'renamed'] as const;

const AgentBudgets = Type.Object(
  {
    maxSteps: Type.Integer({ ...AGENT_BUDGET_LIMITS.maxSteps, description: 'Model turns.' }),
    maxTokens: Type.Integer({ ...AGENT_BUDGET_LIMITS.maxTokens, description: "Tokens of every turn's prompt and answer, summed." }),
    timeoutSeconds: Type.Integer({ ...AGENT_BUDGET_LIMITS.timeoutSeconds, description: 'Wall time from the start.' }),
  },
  { title: 'AgentBudgets' },
);

const TaskId = Type.String({ minLength: 1, maxLength: 100, description: 'A task id, `task_…`.' });

export const AgentTaskParams = Type.Object({ taskId: TaskId });

export const AgentRunRequest = Type.Object(
  {
    task: Text({ minLength: 1, maxLength: 32_000, description: 'What to do, in your words.' }),
    files: Type.Array(Text({ minLength: 1, maxLength: 4096 }), {
      minItems: 1,
      maxItems: 100,
      description:
        'Globs, relative to the workspace, of the files the task may change (it may read the whole workspace), e.g. `src/**/*.ts`. At least one file must match.',
    }),
    model: Type.Optional(
      Text({
        minLength: 1,
        maxLength: 200,
        description: 'A model that can chat, by name or kind (`openai`, `gguf`). Default: the default provider if it can chat, else the first that can.',
      }),
    ),
    budgets: Type.Optional(
      Type.Partial(AgentBudgets, {
        additionalProperties: false,
        description: 'Any of the budgets, over the defaults (settings.json `agents`, then the configuration).',
      }),
    ),
  },
  { additionalProperties: false, title: 'AgentRunRequest' },
);
export type AgentRunRequest = Static<typeof AgentRunRequest>;

export const AgentMessageRequest = Type.Object(
  {
    message: Text({ minLength: 1, maxLength: 32_000, description: 'What the user says to the agent next, in their words.' }),
    budgets: Type.Optional(
      Type.Partial(AgentBudgets, {
        additionalProperties: false,
        description:
          'The budgets of the work on this message, each over the defaults (settings.json `agents`, then the configuration); counted afresh from the message.',
      }),
    ),
  },
  { additionalProperties: false, title: 'AgentMessageRequest' },
);
export type AgentMessageRequest = Static<typeof AgentMessageRequest>;

export const AGENT_APPROVAL_DECISIONS = ['once', 'always', 'deny'] as const;

export const AgentApprovalAnswer = Type.Object(
  {
    approvalId: Type.String({
      minLength: 1,
      maxLength: 100,
      description: "The request's id (`approval.approvalId` of the status, or the `agent:approval` event's).",
    }),
    decision: StringEnum(AGENT_APPROVAL_DECISIONS, {
      description:
        '`once`: run it this time; `always`: run it, and add it to settings.json `agents.commands` so that it runs without asking from now on; `deny`: do not run it (the model is told).',
    }),
  },
  { additionalProperties: false, title: 'AgentApprovalAnswer' },
);
export type AgentApprovalAnswer = Static<typeof AgentApprovalAnswer>;

/** A range of lines: `start` is 1-based; `count` 0 is the empty range just before line `start`. */
const AgentLineRange = Type.Object(
  {
    start: Type.Integer({
      minimum: 1,
      maximum: 10_000_000,
      description: '1-based first line (for an empty range: the line it comes before; one past the last line at the end).',
    }),
    count: Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'Lines in the range; 0 for none.' }),
  },
  { additionalProperties: false },
);

/**
 * One change the task made to a file, to undo: its lines in the task's text (`changed`) are
 * replaced by its lines in the original (`original`). Lines are counted as an editor counts them
 * (`\n`, `\r\n` and `\r` each end one; a text ending in a line break has an empty last line).
 */
export const AgentRevertHunk = Type.Object(
  {
    original: AgentLineRange,
    changed: AgentLineRange,
  },
  { additionalProperties: false, title: 'AgentRevertHunk' },
);

export const AgentRevertFile = Type.Object(
  {
    file: Type.String({ minLength: 1, maxLength: 4096, description: "A change's `file` (its path now; a deleted file's path)." }),
    version: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          "The change's `version` (`GET /api/agent/change/:taskId`) the request was made on: when the task's text is no longer that one (a follow-up changed it), 409 `REVERT_CONFLICT`. Required with `hunks`.",
      }),
    ),
    hunks: Type.Optional(
      Type.Array(AgentRevertHunk, {
        minItems: 1,
        maxItems: 10_000,
        description:
          'Undo only these changes of the file, in order, none overlapping another (a modified or renamed file: both sides must be text); the rest of the task’s change is kept. Without: undo the whole change of the file (a created file is removed, a deleted one written back, a renamed one moved back).',
      }),
    ),
  },
  { additionalProperties: false, title: 'AgentRevertFile' },
);

export const AgentRevertRequest = Type.Object(
  {
    files: Type.Optional(
      Type.Array(AgentRevertFile, {
        minItems: 1,
        maxItems: 1000,
        description: 'Revert only these files (or parts of them). Without: every change of the task, as a whole.',
      }),
    ),
  },
  { additionalProperties: false, title: 'AgentRevertRequest' },
);
export type AgentRevertRequest = Static<typeof AgentRevertRequest>;

export const AgentChangeQuery = Type.Object({
  file: Type.String({ minLength: 1, maxLength: 4096, description: "A change's `file` (its path now; a deleted file's path)." }),
});

/** One file a task changed, both sides in full: what the review of a change shows. */
export const AgentChangeTexts = Type.Object(
  {
    file: Type.String(),
    action: StringEnum(AGENT_CHANGE_ACTIONS),
    from: Type.Optional(Type.String({ description: 'For `renamed`: the path it had before.' })),
    original: Type.Union([Type.String(), Type.Null()], { description: 'The file before the task (null: the task created it).' }),
    current: Type.Union([Type.String(), Type.Null()], { description: 'The file as the task left it (null: the task deleted it).' }),
    version: Type.String({ description: 'Names `current`: what a revert of some of its hunks is counted on (`files[].version` of the revert).' }),
    changedSince: Type.Boolean({
      description:
        'The file is no longer as the task left it (edited since, unsaved edits in the editor, or held by a running task): a revert of it would be refused (409).',
    }),
  },
  { title: 'AgentChangeTexts' },
);
export type AgentChangeTexts = Static<typeof AgentChangeTexts>;

export const AgentRunStarted = Type.Object(
  {
    taskId: Type.String(),
    status: Type.Literal('running'),
    estimatedTime: Type.Integer({
      minimum: 1,
      description: "Seconds the task is expected to take, from the model's measured speed and the size of the files in scope.",
    }),
  },
  { title: 'AgentRunStarted' },
);

const changeFields = {
  file: Type.String({ description: "The file's path now (for a deleted file, the path it had)." }),
  action: StringEnum(AGENT_CHANGE_ACTIONS),
  from: Type.Optional(Type.String({ description: 'For `renamed`: the path it had before.' })),
};

/** A change as the task list shows it: which file and how, without its diff. */
export const AgentChangeSummary = Type.Object(changeFields, { title: 'AgentChangeSummary' });

export const AgentChange = Type.Object(
  {
    ...changeFields,
    diff: Type.String({
      description:
        'Unified diff from the file before the task to the file now (`--- /dev/null` for a created file). Over 64,000 characters (or past 1,000,000 for all changes together) it is cut at a line end and ends with a line `\\ diff too large: N characters, the first M shown`.',
    }),
  },
  { title: 'AgentChange' },
);

/** One message of the user and the agent's work on it. */
export const AgentExchange = Type.Object(
  {
    message: Type.String({ description: "The user's words: the task itself, then each follow-up." }),
    at: Type.String({ description: 'ISO 8601: when it was sent.' }),
    firstStep: Type.Integer({ minimum: 1, description: 'The index of its first entry in the step log (`GET /api/agent/steps/:taskId?after=firstStep-1`).' }),
    endedAt: Type.Optional(Type.String({ description: "ISO 8601: when the agent's work on it ended." })),
    reason: Type.Optional(StringEnum(AGENT_END_REASONS, { description: 'How it ended.' })),
    summary: Type.Optional(Type.String({ description: "The model's last words on it." })),
  },
  { title: 'AgentExchange' },
);

/** A command the task waits for the user to approve. */
export const AgentApproval = Type.Object(
  {
    approvalId: Type.String({ description: 'What `POST /api/agent/approve/:taskId` answers.' }),
    command: Type.String({ description: 'The command, exactly as it would run (no shell).' }),
    cwd: Type.String({ description: 'The folder it would run in: the workspace.' }),
    askedAt: Type.String({ description: 'ISO 8601.' }),
    expiresAt: Type.String({ description: 'ISO 8601: unanswered by then, it is denied (`agents.approvalTimeoutSeconds`).' }),
  },
  { title: 'AgentApproval', description: 'Present while the task waits for the user to approve a command not in `agents.commands`.' },
);

const taskFields = {
  taskId: Type.String(),
  status: StringEnum(AGENT_STATUSES, { description: '`running` until the task ends; then how it ended.' }),
  task: Type.String(),
  files: Type.Array(Type.String(), { description: 'The globs of the files it may change.' }),
  model: Type.String({ description: "The model's name." }),
  budgets: AgentBudgets,
  estimatedTime: Type.Integer({ description: 'Seconds the task was expected to take when it started.' }),
  steps: Type.Integer({ minimum: 0, description: 'Model turns so far.' }),
  tokens: Type.Integer({ minimum: 0, description: 'Tokens so far, prompts and answers.' }),
  createdAt: Type.String({ description: 'ISO 8601.' }),
  endedAt: Type.Optional(Type.String({ description: 'ISO 8601, once ended.' })),
  reason: Type.Optional(StringEnum(AGENT_END_REASONS, { description: 'Why it ended (see "Agents" in docs/local-api.md).' })),
  error: Type.Optional(Type.String({ description: 'What went wrong, for a task that failed on an error (`model_error`, `interrupted`, `error`).' })),
  summary: Type.Optional(Type.String({ description: "The model's last words." })),
  changes: Type.Array(AgentChange, { description: 'What the task changed, one entry per file, as it is now.' }),
  revertedAt: Type.Optional(Type.String({ description: "ISO 8601: when the task's changes were reverted." })),
  conversation: Type.Array(AgentExchange, {
    description: "The user's messages, oldest first: the task, then each follow-up, with how the agent's work on each ended.",
  }),
  approval: Type.Optional(AgentApproval),
};

export const AgentTask = Type.Object(taskFields, { title: 'AgentTask' });
export type AgentTask = Static<typeof AgentTask>;

export const AgentTasksQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'At most this many; 50 by default.' })),
  before: Type.Optional(Type.String({ maxLength: 100, description: 'A task id: list the tasks started before it (the next page).' })),
});

/** A task as the list shows it: its changes without their diffs (the status of one task has them). */
export const AgentTaskSummary = Type.Object(
  { ...taskFields, changes: Type.Array(AgentChangeSummary, { description: 'What the task changed, one entry per file, as it is now.' }) },
  { title: 'AgentTaskSummary' },
);

export const AgentTaskList = Type.Object({ tasks: Type.Array(AgentTaskSummary, { description: 'Newest first.' }) }, { title: 'AgentTaskList' });

export const AgentStepsQuery = Type.Object({
  after: Type.Optional(Type.Integer({ minimum: 0, description: 'Only entries with a higher index (the next page); 0 by default.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'At most this many; 100 by default.' })),
});

const AgentStepDiagnostic = Type.Object({
  path: Type.String(),
  line: Type.Integer({ minimum: 1 }),
  column: Type.Integer({ minimum: 1 }),
  severity: StringEnum(['error', 'warning'] as const),
  message: Type.String(),
  code: Type.Optional(Type.String()),
});

export const AgentStep = Type.Object(
  {
    index: Type.Integer({ minimum: 1, description: "1-based position in the task's log." }),
    kind: StringEnum(['model', 'tool', 'notice', 'user'] as const, {
      description:
        "`model`: a model turn; `tool`: a tool call and its result; `notice`: what Loom told the model on its own (a correction, a loop warning); `user`: the user's follow-up message (`POST /api/agent/message/:taskId`).",
    }),
    at: Type.String({ description: 'ISO 8601.' }),
    turn: Type.Integer({ minimum: 1, description: 'The model turn the entry belongs to (for `user`: the turn it leads to).' }),
    text: Type.String({
      description: "model: the answer's text; tool: the result; notice: what the model was told; user: the message. Trimmed to 4000 characters.",
    }),
    tool: Type.Optional(Type.String()),
    arguments: Type.Optional(Type.String({ description: 'tool: the arguments as the model wrote them.' })),
    ok: Type.Optional(Type.Boolean({ description: 'tool: whether it did what was asked.' })),
    diff: Type.Optional(Type.String({ description: 'tool: what it changed, as a unified diff.' })),
    block: Type.Optional(Type.Literal(true, { description: "tool: an edit block the model wrote in its answer's text, not a tool call." })),
    diagnostics: Type.Optional(
      Type.Object(
        {
          checked: Type.Array(Type.String(), { description: 'Files whose diagnostics were compared: the changed ones, then files importing them.' }),
          introduced: Type.Array(AgentStepDiagnostic, { description: 'Errors first, at most 20.' }),
          fixed: Type.Array(AgentStepDiagnostic, { description: 'Errors first, at most 20.' }),
          more: Type.Optional(Type.Object({ introduced: Type.Integer(), fixed: Type.Integer() }, { description: 'How many were not listed.' })),
          notChecked: Type.Optional(Type.Array(Type.String(), { description: 'Files the language server did not report on in time: not compared.' })),
        },
        { description: 'tool: which errors and warnings the change introduced and fixed, where a language server runs for the file.' },
      ),
    ),
    context: Type.Optional(
      Type.Object(
        {
          rules: Type.Array(
            Type.Object({
              path: Type.String(),
              tokens: Type.Integer({ description: 'Tokens it takes in the prompt (estimated).' }),
              cut: Type.Optional(Type.Literal(true, { description: "Cut to fit the rules' budget (agents.rulesTokens)." })),
            }),
            { description: 'The rules files in the system prompt, in order.' },
          ),
          skippedRules: Type.Optional(
            Type.Array(Type.String(), { description: 'Rules files left out: over the budget, or their globs match no file in scope.' }),
          ),
          map: Type.Optional(
            Type.Object(
              { files: Type.Integer(), tokens: Type.Integer(), budget: Type.Integer({ description: 'agents.mapTokens.' }) },
              { description: 'The repository map in the first message.' },
            ),
          ),
        },
        { description: "notice: what the prompt carries beyond the task's words, logged before the first turn of a run or a follow-up." },
      ),
    ),
    tokens: Type.Optional(Type.Object({ prompt: Type.Integer(), completion: Type.Integer() }, { description: "model: the turn's tokens." })),
    durationMs: Type.Optional(Type.Number({ description: "model: the turn's duration." })),
  },
  { title: 'AgentStep' },
);
export type AgentStep = Static<typeof AgentStep>;

export const AgentStepLog = Type.Object({ steps: Type.Array(AgentStep, { description: 'In order.' }) }, { title: 'AgentStepLog' });

// ---- extensions ----------------------------------------------------------------------------

const CommandName = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$', description: 'A command, e.g. `wordCount.count`.' });
const ExtensionName = Type.String({ pattern: '^[a-z0-9][a-z0-9._-]{0,99}$', description: "An extension's name (its package.json `name`)." });

export const NOTIFICATION_LEVELS = ['info', 'warning', 'error'] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];

export const CommandInfo = Type.Object(
  {
    name: Type.String({ description: 'What `POST /api/commands/:name` takes.' }),
    title: Type.String({
      description: "What the command palette shows (the manifest's `contributes.commands` title; the name for a command registered at run time).",
    }),
    extension: Type.String({ description: 'The extension that provides it.' }),
  },
  { title: 'CommandInfo' },
);
export type CommandInfo = Static<typeof CommandInfo>;

export const CommandList = Type.Object({ commands: Type.Array(CommandInfo, { description: 'Sorted by name.' }) }, { title: 'CommandList' });

export const CommandParams = Type.Object({ name: CommandName });

export const CommandRunRequest = Type.Object(
  { args: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100, description: "The handler's arguments, as JSON; none by default." })) },
  { additionalProperties: false, title: 'CommandRunRequest' },
);

export const CommandResult = Type.Object(
  { result: Type.Unknown({ description: 'What the handler returned, as JSON (null for nothing).' }) },
  { title: 'CommandResult' },
);

const EXTENSION_STATES = ['inactive', 'starting', 'active', 'failed', 'untrusted'] as const;

export const ExtensionInfo = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    title: Type.String({ description: '`displayName`, else the name.' }),
    scope: StringEnum(['user', 'workspace'] as const, { description: '`user`: from the config folder (trusted); `workspace`: from `.loom/extensions`.' }),
    dir: Type.String({ description: "The extension's folder." }),
    state: StringEnum(EXTENSION_STATES, {
      description:
        '`inactive`: not started yet (it starts on its first command); `starting`; `active`: its process runs; `failed`: it crashed, threw while activating, ran out of memory or stopped answering (`failure` says which; restart it); `untrusted`: a workspace extension of an untrusted workspace, never run.',
    }),
    failure: Type.Optional(Type.String({ description: 'Why it failed.' })),
    pid: Type.Optional(Type.Integer({ description: 'Its process, while active.' })),
    commands: Type.Array(Type.String(), { description: 'The commands it contributes or registered.' }),
  },
  { title: 'ExtensionInfo' },
);
export type ExtensionInfo = Static<typeof ExtensionInfo>;

export const ExtensionList = Type.Object(
  {
    workspace: Type.String({ description: 'The workspace folder.' }),
    workspaceTrusted: Type.Boolean({ description: "Whether the workspace's extensions may run." }),
    extensions: Type.Array(ExtensionInfo),
    problems: Type.Array(Type.Object({ dir: Type.String(), message: Type.String() }), {
      description: 'Folders skipped: an invalid manifest, a name or command taken.',
    }),
  },
  { title: 'ExtensionList' },
);
export type ExtensionList = Static<typeof ExtensionList>;

export const ExtensionParams = Type.Object({ name: ExtensionName });

export const WorkspaceTrustRequest = Type.Object(
  { trusted: Type.Optional(Type.Boolean({ description: 'false stops trusting it (its extensions stop); true by default.' })) },
  { additionalProperties: false, title: 'WorkspaceTrustRequest' },
);

export const ExtensionFileWrite = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 4096, description: 'Workspace-relative: `.loom/extensions/<extension>/<file>`.' }),
    text: Type.String({ description: "The file's whole new content." }),
  },
  { additionalProperties: false, title: 'ExtensionFileWrite' },
);

export const ExtensionFileWritten = Type.Object(
  {
    path: Type.String({ description: 'Workspace-relative.' }),
    bytes: Type.Integer({ minimum: 0, description: 'Bytes written (UTF-8).' }),
  },
  { title: 'ExtensionFileWritten' },
);
export type ExtensionFileWritten = Static<typeof ExtensionFileWritten>;

// ---- events --------------------------------------------------------------------------------

/** The messages of the `/events` WebSocket: a hello, then one per event. */
export const EventMessage = Type.Union(
  [
    Type.Object(
      {
        type: Type.Literal('hello'),
        seq: Type.Integer({ minimum: 0, description: 'The sequence number of the last event before this connection.' }),
        version: Type.String({ description: 'Loom version.' }),
      },
      { title: 'EventHello' },
    ),
    Type.Object(
      {
        seq: Type.Integer({ minimum: 1, description: 'Increases by one per event: a gap means events were dropped for this client.' }),
        type: Type.String({ description: 'The event type, e.g. `file:save`.' }),
        time: Type.String({ description: 'ISO 8601.' }),
        data: Type.Record(Type.String(), Type.Unknown(), { description: 'What happened; its fields depend on the type.' }),
      },
      { title: 'Event' },
    ),
  ],
  { title: 'EventMessage' },
);
export type EventMessage = Static<typeof EventMessage>;

// ---- terminal ------------------------------------------------------------------------------

export const TerminalTicket = Type.Object(
  {
    ticket: Type.String({ description: 'Opens `/terminal?ticket=…` once, as a WebSocket upgrade of the same window session.' }),
    expiresIn: Type.Integer({ description: 'Seconds the ticket stays valid.' }),
  },
  { title: 'TerminalTicket' },
);
export type TerminalTicket = Static<typeof TerminalTicket>;

export const TerminalSocketQuery = Type.Object(
  {
    ticket: Type.Optional(
      Type.String({ maxLength: 200, description: 'A ticket from `POST /api/terminal/ticket`, single use; the upgrade is refused without it (401).' }),
    ),
  },
  { title: 'TerminalSocketQuery' },
);

/**
 * What the window sends on `/terminal`, as text frames: keystrokes (and pastes) for the shell,
 * and the size of its view.
 */
export const TerminalInput = Type.Union(
  [
    Type.Object({ type: Type.Literal('input'), data: Type.String({ description: "Bytes for the shell's input, as typed." }) }, { title: 'TerminalKeys' }),
    Type.Object(
      {
        type: Type.Literal('resize'),
        cols: Type.Integer({ minimum: 1, maximum: 1000 }),
        rows: Type.Integer({ minimum: 1, maximum: 1000 }),
      },
      { title: 'TerminalResize' },
    ),
  ],
  { title: 'TerminalInput' },
);
export type TerminalInput = Static<typeof TerminalInput>;

/**
 * What the server sends on `/terminal` as text frames; the terminal's output itself comes as
 * binary frames (the bytes the shell wrote, UTF-8 as a rule), never as text.
 */
export const TerminalMessage = Type.Union(
  [
    Type.Object({ type: Type.Literal('ready'), shell: Type.String({ description: 'The shell started, by name (`bash`).' }) }, { title: 'TerminalReady' }),
    Type.Object(
      {
        type: Type.Literal('exit'),
        exitCode: Type.Integer({ description: "The shell's exit code." }),
        signal: Type.Optional(Type.Integer({ description: 'The signal that ended it, if one did.' })),
      },
      { title: 'TerminalExit' },
    ),
  ],
  { title: 'TerminalMessage' },
);
export type TerminalMessage = Static<typeof TerminalMessage>;
