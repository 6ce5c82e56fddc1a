// The operation table: every hosted operation, declared once. Routes, validation, OpenAPI,
// llms.txt, sitemap.xml, the MCP tools (and later the CLI client) are all derived from it.
import { Type, type Static, type TSchema } from 'typebox';
import { CodeHostAuthQuery, SignInRedirect, TokenRequest, TokenResponse, type OperationAuth } from './auth.ts';
import {
  COMPOSER_BODY_LIMIT,
  ComposerEventSchema,
  ComposerEventsQuery,
  ComposerSession,
  ComposerSessionCreated,
  ComposerMessageRequest,
  ComposerSessionParams,
  ComposerSessionRequest,
} from './composer.ts';
import type { ErrorCode } from './errors.ts';
import type { ApiVersion } from './versioning.ts';
import { StringEnum, type ValidatedInput } from './schema-helpers.ts';
import {
  DownloadAsset,
  FeedbackRequest,
  FeedbackStored,
  Health,
  Model,
  PLATFORMS,
  PRODUCT_IDS,
  ProductDownloads,
  TabCompleteRequest,
  TabCompletion,
} from './schemas.ts';

export interface OperationRequest {
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  /** Content types the body may come in; JSON when omitted. */
  contentTypes?: readonly string[];
}

export interface Operation<Req extends OperationRequest = OperationRequest, Res extends TSchema = TSchema, Id extends string = string> {
  operationId: Id;
  method: 'GET' | 'POST';
  /** Path below the version prefix, Fastify style (`/download/:product/:asset`). */
  path: string;
  summary: string;
  description: string;
  tag: string;
  /** Values of the `API-Version` request header this operation accepts; the first is the default. */
  versions: readonly [ApiVersion, ...ApiVersion[]];
  /** Who may call it (docs/auth.md, "Who may call what"); checked in one place. */
  auth: OperationAuth;
  request: Req;
  /** A 302's schema describes what the handler returns (`{location}`), not a body. */
  success: { status: 200 | 201 | 302; description: string; schema: Res };
  /** Absolute paths where the operation is served too (e.g. the authorization server's /auth/token). */
  aliases?: readonly string[];
  /** Responses carry `Cache-Control: no-store` (they hold credentials). */
  noStore?: boolean;
  /** Bytes its body may have when that is more than the server's `bodyLimit` (which is meant for small JSON). */
  bodyLimit?: number;
  /** Error codes this operation answers with besides the universal ones (rate_limited, …). */
  errors: readonly ErrorCode[];
  /** OpenAPI says its responses may carry Deprecation and Sunset (the interface promises them for listDownloads). */
  announcesDeprecation?: boolean;
  /**
   * The name of the MCP tool that mirrors this operation (snake_case); operations without one
   * are not tools. Giving an operation a name is all it takes to serve it over MCP.
   */
  mcpTool?: string;
  /**
   * `sse`: the answer is a stream of Server-Sent Events, each one `success.schema` (`id:` its
   * `seq`, `event:` its `type`, `data:` its `data` as JSON), resumable with `Last-Event-ID`.
   */
  stream?: 'sse';
}

function defineOperation<const Id extends string, const Req extends OperationRequest, const Res extends TSchema>(
  operation: Operation<Req, Res, Id>,
): Operation<Req, Res, Id> {
  return operation;
}

/** An operation answered with a stream of events (`stream: 'sse'`); its type keeps the marker, so its handler returns the stream. */
function defineStream<const Id extends string, const Req extends OperationRequest, const Res extends TSchema>(
  operation: Operation<Req, Res, Id> & { stream: 'sse' },
): Operation<Req, Res, Id> & { stream: 'sse' } {
  return operation;
}

export const getHealth = defineOperation({
  operationId: 'getHealth',
  method: 'GET',
  path: '/health',
  summary: 'Health check',
  description: 'Reports that the service is up, its version and uptime. With `API-Version: v2` the body also carries `checks`, the state of the store.',
  tag: 'Service',
  versions: ['v1', 'v2'],
  auth: { anonymous: true },
  request: {},
  success: { status: 200, description: 'The service is up.', schema: Health },
  errors: ['unsupported_version'],
});

export const listDownloads = defineOperation({
  operationId: 'listDownloads',
  mcpTool: 'list_downloads',
  method: 'GET',
  path: '/download',
  summary: 'List downloadable builds',
  description:
    'Lists the products (ide, omni, cli) and their release assets. `product` keeps one product; `platform` keeps the assets of one platform and drops products left with none (`all`, or no platform, keeps every asset).',
  tag: 'Downloads',
  versions: ['v1'],
  auth: { oauth2: ['read:downloads'], bearer: true, anonymous: true },
  request: {
    query: Type.Object({
      product: Type.Optional(StringEnum(PRODUCT_IDS, { description: 'Keep only this product.' })),
      platform: Type.Optional(StringEnum([...PLATFORMS, 'all'] as const, { description: 'Keep only assets for this platform; `all` keeps every asset.' })),
    }),
  },
  success: {
    status: 200,
    description: 'The products and their assets after filtering.',
    schema: Type.Object({ products: Type.Array(ProductDownloads) }),
  },
  errors: ['validation_error', 'unsupported_version'],
  announcesDeprecation: true,
});

export const getDownloadAsset = defineOperation({
  operationId: 'getDownloadAsset',
  mcpTool: 'get_download_asset',
  method: 'GET',
  path: '/download/:product/:asset',
  summary: 'Resolve a build asset to its download URL',
  description:
    'Resolves one asset of a product to its direct download URL, after checking (HEAD, or a one-byte ranged GET) that the release file exists on the code host. Checks are cached briefly.',
  tag: 'Downloads',
  versions: ['v1'],
  auth: { oauth2: ['read:downloads'], anonymous: true },
  request: {
    params: Type.Object({
      product: StringEnum(PRODUCT_IDS, { description: 'Product id.' }),
      asset: Type.String({ minLength: 1, maxLength: 100, description: 'Asset key, e.g. linux-x64.' }),
    }),
  },
  success: { status: 200, description: 'The asset, verified to exist upstream.', schema: DownloadAsset },
  errors: ['validation_error', 'not_found', 'upstream_unavailable', 'unsupported_version'],
});

export const listModels = defineOperation({
  operationId: 'listModels',
  mcpTool: 'list_models',
  method: 'GET',
  path: '/models',
  summary: 'List open-source models',
  description: 'Lists the open-source models Loom can run, from the catalog.',
  tag: 'Models',
  versions: ['v1'],
  auth: { oauth2: ['read:models'], anonymous: true },
  request: {},
  success: { status: 200, description: 'The models.', schema: Type.Object({ models: Type.Array(Model) }) },
  errors: ['unsupported_version'],
});

export const submitFeedback = defineOperation({
  operationId: 'submitFeedback',
  mcpTool: 'submit_feedback',
  method: 'POST',
  path: '/feedback',
  summary: 'Submit product feedback',
  description:
    "Stores a piece of product feedback durably and returns its id. The 201 is sent only after the write is on disk. With a token carrying write:feedback the email may be omitted (the signed-in user's is used); without a token a valid email is required.",
  tag: 'Feedback',
  versions: ['v1'],
  auth: { oauth2: ['write:feedback'], anonymous: true },
  request: { body: FeedbackRequest, contentTypes: ['application/json'] },
  success: { status: 201, description: 'Stored.', schema: FeedbackStored },
  errors: ['validation_error', 'store_unavailable', 'unsupported_version'],
});

export const startCodeHostAuth = defineOperation({
  operationId: 'startCodeHostAuth',
  method: 'GET',
  path: '/auth/codehost',
  summary: 'Sign in through the code host',
  description:
    'Starts sign-in at the code host (GitHub, GitHub Enterprise, Gitea or Forgejo). `source=cli|desktop` with `callbackPort` and a PKCE `code_challenge` ends with a redirect to http://127.0.0.1:{callbackPort}/callback carrying a code for POST /auth/token (client_id loom-cli); `source=web` signs the user into the dashboard.',
  tag: 'Authentication',
  versions: ['v1'],
  auth: { anonymous: true },
  request: { query: CodeHostAuthQuery },
  success: { status: 302, description: "Redirect to the code host's authorize page.", schema: SignInRedirect },
  errors: ['validation_error', 'invalid_scope', 'not_found', 'unsupported_version'],
});

export const startOidcAuth = defineOperation({
  operationId: 'startOidcAuth',
  method: 'GET',
  path: '/auth/oidc',
  summary: 'Sign in through OpenID Connect',
  description:
    "The interface's second sign-in provider: any OpenID Connect provider configured by its issuer (LOOM_OIDC_*). Takes the same parameters and ends the same way as startCodeHostAuth.",
  tag: 'Authentication',
  versions: ['v1'],
  auth: { anonymous: true },
  request: { query: CodeHostAuthQuery },
  success: { status: 302, description: "Redirect to the provider's authorize page.", schema: SignInRedirect },
  errors: ['validation_error', 'invalid_scope', 'not_found', 'upstream_unavailable', 'unsupported_version'],
});

export const exchangeToken = defineOperation({
  operationId: 'exchangeToken',
  method: 'POST',
  path: '/auth/token',
  summary: 'Exchange a grant for tokens',
  description:
    'The OAuth 2.0 token endpoint (also at {auth_url}/auth/token): authorization_code with PKCE, refresh_token (rotated on every use; reuse revokes the sign-in) and client_credentials (confidential clients; read:downloads, read:models, read:health, write:feedback). `code` is used only by authorization_code and ignored by the other grants. Confidential clients authenticate with HTTP Basic or client_secret.',
  tag: 'Authentication',
  versions: ['v1'],
  auth: { anonymous: true, clientBasic: true },
  request: { body: TokenRequest, contentTypes: ['application/x-www-form-urlencoded'] },
  success: { status: 200, description: 'Tokens (Cache-Control: no-store).', schema: TokenResponse },
  errors: [
    'invalid_request',
    'invalid_grant',
    'unauthorized_client',
    'unsupported_grant_type',
    'invalid_scope',
    'invalid_client',
    'validation_error',
    'unsupported_version',
  ],
  aliases: ['/auth/token'],
  noStore: true,
});

export const tabComplete = defineOperation({
  operationId: 'tabComplete',
  mcpTool: 'tab_complete',
  method: 'POST',
  path: '/tab/complete',
  summary: 'Complete code at the cursor',
  description:
    "Tab completion: the text that belongs between `prefix` and `suffix`, from the engine the desktop app's /api/ai/complete uses too. An empty completion means the model has nothing it is sure of. Typing the suggestion's characters gets the rest from a cache without a model call; a newer request for the same `filePath` from the same caller answers the older one with an empty completion. What a request carries is used for that request only; it never trains the shared model.",
  tag: 'Completion',
  versions: ['v1'],
  auth: { oauth2: ['read:tab'], bearer: true },
  request: { body: TabCompleteRequest, contentTypes: ['application/json'] },
  success: { status: 200, description: 'The completion.', schema: TabCompletion },
  errors: ['validation_error', 'unknown_model', 'model_failed', 'model_unavailable', 'model_timeout', 'unsupported_version'],
});

const COMPOSER_AUTH = { oauth2: ['write:composer'], bearer: true } as const satisfies OperationAuth;

export const createComposerSession = defineOperation({
  operationId: 'createComposerSession',
  mcpTool: 'create_composer_session',
  method: 'POST',
  path: '/composer/session',
  summary: 'Start a composer session',
  description:
    "Starts a multi-file editing session that runs on the server with the server's model, on a workspace the operator registered (a git repository; the edits land on a branch `loom/composer/<sessionId>`) or on attached files. `plan` answers with a plan and changes nothing. Answered once the session is stored: it runs even if the server restarts. Per user, `composer.maxQueuedPerUser` sessions may wait (429 beyond) and `composer.maxRunningPerUser` run. See docs/composer.md.",
  tag: 'Composer',
  versions: ['v1'],
  auth: COMPOSER_AUTH,
  request: { body: ComposerSessionRequest, contentTypes: ['application/json'] },
  bodyLimit: COMPOSER_BODY_LIMIT,
  success: { status: 201, description: 'The session is stored and queued.', schema: ComposerSessionCreated },
  errors: ['validation_error', 'model_unavailable', 'store_unavailable', 'unsupported_version'],
});

export const getComposerSession = defineOperation({
  operationId: 'getComposerSession',
  mcpTool: 'get_composer_session',
  method: 'GET',
  path: '/composer/session/:sessionId',
  summary: 'Read a composer session',
  description:
    "A session's status (`queued`, `running`, `completed`, `failed`, `cancelled`), its plan or edits (unified diffs, each file's base hash and content after), its branch and commit, its error and times. Only its creator sees it; anyone else gets 404.",
  tag: 'Composer',
  versions: ['v1'],
  auth: COMPOSER_AUTH,
  request: { params: ComposerSessionParams },
  success: { status: 200, description: 'The session.', schema: ComposerSession },
  errors: ['not_found', 'store_unavailable', 'unsupported_version'],
});

export const cancelComposerSession = defineOperation({
  operationId: 'cancelComposerSession',
  mcpTool: 'cancel_composer_session',
  method: 'POST',
  path: '/composer/session/:sessionId/cancel',
  summary: 'Cancel a composer session',
  description:
    'Cancels a session: a queued one ends `cancelled` at once; a running one stops within a few seconds (wherever it runs) and ends `cancelled`, keeping the edits it had made. An ended session is answered as it is (cancelling twice is harmless). Answers the session.',
  tag: 'Composer',
  versions: ['v1'],
  auth: COMPOSER_AUTH,
  request: { params: ComposerSessionParams },
  success: { status: 200, description: 'The session after the cancel.', schema: ComposerSession },
  errors: ['not_found', 'store_unavailable', 'unsupported_version'],
});

export const continueComposerSession = defineOperation({
  operationId: 'continueComposerSession',
  mcpTool: 'continue_composer_session',
  method: 'POST',
  path: '/composer/session/:sessionId/message',
  summary: 'Continue a composer session with a message',
  description:
    "Continues a session that has ended (completed, failed or cancelled) with the user's message: the same session goes on from its edits (a git workspace's from the commit it started from, so every edit stays a change from the files as it first found them) or from its plan, with new budgets. The model is told what it did, how that ended, and the message. Answers the session, queued again; its event stream goes on with `message` and `status` events. A session still queued or running is 409 `session_running`. Apply a session's edits once it has ended for good: a follow-up's edits are counted from the same base. See docs/composer.md.",
  tag: 'Composer',
  versions: ['v1'],
  auth: COMPOSER_AUTH,
  request: { params: ComposerSessionParams, body: ComposerMessageRequest, contentTypes: ['application/json'] },
  success: { status: 200, description: 'The session, queued again.', schema: ComposerSession },
  errors: ['validation_error', 'not_found', 'session_running', 'model_unavailable', 'store_unavailable', 'unsupported_version'],
});

export const streamComposerEvents = defineStream({
  operationId: 'streamComposerEvents',
  method: 'GET',
  path: '/composer/session/:sessionId/events',
  summary: "Follow a composer session's progress",
  description:
    "The session's progress as Server-Sent Events (`text/event-stream`): every event from the start (or after `Last-Event-ID` / `after`), then each new one as it happens; the stream ends after the `status` event that ends the session. A comment line keeps the connection alive every 15 s.",
  tag: 'Composer',
  versions: ['v1'],
  auth: COMPOSER_AUTH,
  request: { params: ComposerSessionParams, query: ComposerEventsQuery },
  success: { status: 200, description: 'The event stream; each event is one ComposerEvent.', schema: ComposerEventSchema },
  errors: ['validation_error', 'not_found', 'store_unavailable', 'unsupported_version'],
  stream: 'sse',
});

/** Every operation, in the order docs/api.md and OpenAPI list them. */
export const operations = [
  getHealth,
  listDownloads,
  getDownloadAsset,
  listModels,
  submitFeedback,
  startCodeHostAuth,
  startOidcAuth,
  exchangeToken,
  tabComplete,
  createComposerSession,
  getComposerSession,
  cancelComposerSession,
  continueComposerSession,
  streamComposerEvents,
] as const;

export type AnyOperation = (typeof operations)[number];

/** What a handler receives: validated input, never a framework object. */
export type OperationInput<O extends Operation> = ValidatedInput<O['request']>;

export type OperationOutput<O extends Operation> = O extends { stream: 'sse' } ? AsyncIterable<Static<O['success']['schema']>> : Static<O['success']['schema']>;
