// Composer sessions on the wire (docs/composer.md): the request, the session and its events.
import { Type, type Static } from 'typebox';
import { StringEnum } from './schema-helpers.ts';

export const COMPOSER_MODES = ['edit', 'plan'] as const;
export const COMPOSER_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export const MAX_PROMPT_CHARS = 32_000;
export const MAX_FILE_GLOBS = 100;
export const MAX_ATTACHMENTS = 200;
/** Characters of one attachment. */
export const MAX_ATTACHMENT_CONTENT = 1024 * 1024;
/** Characters of a session's attachments in all. */
export const MAX_ATTACHMENT_CHARS = 8 * 1024 * 1024;
/**
 * Bytes a createComposerSession body may have, whatever the server's `bodyLimit` (meant for
 * small JSON): attachments at their caps, with room for JSON's escapes (a newline is two bytes,
 * a non-ASCII character up to three in UTF-8).
 */
export const COMPOSER_BODY_LIMIT = 3 * MAX_ATTACHMENT_CHARS + 1024 * 1024;
export const WORKSPACE_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

export const ComposerSessionRequest = Type.Object(
  {
    prompt: Type.String({ minLength: 1, maxLength: MAX_PROMPT_CHARS, description: 'What to do, in words.' }),
    files: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
      minItems: 1,
      maxItems: MAX_FILE_GLOBS,
      description: 'Path globs, relative to the workspace (no absolute paths, no ".."), of the files the session may change; it may read every file.',
    }),
    mode: Type.Optional(StringEnum(COMPOSER_MODES, { description: '`edit` (default): make the change; `plan`: say what would change, change nothing.' })),
    workspace: Type.Optional(
      Type.String({
        pattern: WORKSPACE_NAME_PATTERN,
        description: 'A workspace the operator registered. Default: the only one registered, when there is exactly one and no attachments are sent.',
      }),
    ),
    attachments: Type.Optional(
      Type.Array(
        Type.Object(
          {
            path: Type.String({ minLength: 1, maxLength: 1024, description: 'Relative path, / between folders.' }),
            content: Type.String({ maxLength: MAX_ATTACHMENT_CONTENT }),
          },
          { additionalProperties: false },
        ),
        { maxItems: MAX_ATTACHMENTS, description: 'Files to work on instead of a workspace: the session edits a scratch copy of them.' },
      ),
    ),
  },
  { additionalProperties: false, title: 'ComposerSessionRequest' },
);
export type ComposerSessionRequest = Static<typeof ComposerSessionRequest>;

export const ComposerMessageRequest = Type.Object(
  {
    message: Type.String({
      minLength: 1,
      maxLength: MAX_PROMPT_CHARS,
      description: 'What the session should do next, in words: it goes on from its edits (or its plan) with this message.',
    }),
  },
  { additionalProperties: false, title: 'ComposerMessageRequest' },
);
export type ComposerMessageRequest = Static<typeof ComposerMessageRequest>;

export const ComposerSessionCreated = Type.Object(
  {
    sessionId: Type.String({ format: 'uuid' }),
    status: StringEnum(['queued', 'running'] as const),
    workspace: Type.Union([Type.String(), Type.Null()], { description: 'The workspace the session runs on; null for attachments.' }),
  },
  { title: 'ComposerSessionCreated' },
);

export const ComposerEdit = Type.Object(
  {
    file: Type.String({ description: 'The path after the session (for a deleted file, the path it had).' }),
    action: StringEnum(['created', 'modified', 'deleted', 'renamed'] as const),
    from: Type.Optional(Type.String({ description: 'For renamed: the path before.' })),
    diff: Type.String({ description: 'Unified diff from before the session to after.' }),
    baseHash: Type.Union([Type.String(), Type.Null()], { description: "sha256 (hex) of the file's content before the session; null when created." }),
    content: Type.Union([Type.String(), Type.Null()], { description: "The file's content after the session; null when deleted." }),
  },
  { title: 'ComposerEdit' },
);

export const ComposerPlan = Type.Object(
  { summary: Type.String(), steps: Type.Array(Type.String()), files: Type.Array(Type.String()) },
  { title: 'ComposerPlan' },
);

export const ComposerSession = Type.Object(
  {
    sessionId: Type.String({ format: 'uuid' }),
    status: StringEnum(COMPOSER_STATUSES),
    mode: StringEnum(COMPOSER_MODES),
    prompt: Type.String(),
    files: Type.Array(Type.String()),
    workspace: Type.Union([Type.String(), Type.Null()]),
    plan: Type.Union([ComposerPlan, Type.Null()], { description: 'plan mode, once completed.' }),
    edits: Type.Array(ComposerEdit, {
      description: 'edit mode: the changes so far (all of them once ended), each from the files as the session first found them, follow-ups included.',
    }),
    messages: Type.Array(
      Type.Object({
        message: Type.String(),
        at: Type.String({ format: 'date-time' }),
        after: StringEnum(COMPOSER_STATUSES, { description: 'How the work before the message had ended.' }),
        seq: Type.Integer({ minimum: 1, description: "The seq of the message's event: follow its run with `after` = seq - 1." }),
      }),
      { description: 'The follow-up messages that continued the session, oldest first, each with the status the work before it had ended with.' },
    ),
    base: Type.Union([Type.String(), Type.Null()], {
      description: 'A git workspace: the commit the session started from (and its follow-ups too), once it ran.',
    }),
    branch: Type.Union([Type.String(), Type.Null()], { description: 'A git workspace: loom/composer/<sessionId>, holding the commit.' }),
    commit: Type.Union([Type.String(), Type.Null()]),
    pushed: Type.Boolean({ description: "Whether the branch was pushed to the workspace's origin." }),
    error: Type.Union([Type.String(), Type.Null()]),
    summary: Type.Union([Type.String(), Type.Null()], { description: "The model's last words." }),
    model: Type.Union([Type.String(), Type.Null()]),
    steps: Type.Integer(),
    tokens: Type.Integer(),
    budgets: Type.Object({ maxSteps: Type.Integer(), maxTokens: Type.Integer(), timeoutSeconds: Type.Integer() }),
    cancelRequested: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    startedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    endedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'ComposerSession' },
);
export type ComposerSession = Static<typeof ComposerSession>;

export const ComposerSessionParams = Type.Object({ sessionId: Type.String({ format: 'uuid', description: 'The session id.' }) });

export const ComposerEventsQuery = Type.Object({
  after: Type.Optional(Type.Integer({ minimum: 0, description: 'Replay events after this seq (the `Last-Event-ID` header does the same and wins).' })),
});

/** One Server-Sent Event: `id:` is `seq`, `event:` is `type`, `data:` the JSON of `data`. */
export const ComposerEventSchema = Type.Object(
  {
    seq: Type.Integer({ minimum: 1 }),
    type: Type.String({
      description: '`status` ({status, error?}), `step` ({turn, kind, tool?, ok?, text}), `edit` ({file, action}), `plan` ({plan}), `push` ({branch, commit}).',
    }),
    data: Type.Record(Type.String(), Type.Unknown()),
    at: Type.String({ format: 'date-time' }),
  },
  { title: 'ComposerEvent' },
);
