import type { ColumnType, Generated } from 'kysely';

/** Tables as Kysely sees them. */
export interface FeedbackTable {
  id: string;
  name: string;
  email: string;
  subject: string;
  message: string;
  /** ISO text in SQLite, timestamptz in PostgreSQL. */
  created_at: string | Date;
  client_ip: string;
  user_agent: string | null;
  seq: Generated<number>;
}

// Identity. Times are ISO 8601 text (UTC, fixed width, so they compare as strings); lists
// and keys are JSON text.
export interface SigningKeyTable {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: string;
}

export interface OAuthClientTable {
  client_id: string;
  name: string;
  type: 'public' | 'confidential';
  secret_hash: string | null;
  redirect_uris: string;
  grant_types: string;
  scopes: string;
  /** 'dynamic' for clients that registered themselves; null (before 0004) or 'operator' otherwise. */
  registration: string | null;
  created_at: string;
}

export interface UserTable {
  id: string;
  login: string;
  name: string | null;
  email: string | null;
  created_at: string;
}

export interface UserIdentityTable {
  provider: string;
  subject: string;
  user_id: string;
}

export interface GrantTable {
  id: string;
  client_id: string;
  user_id: string | null;
  scope: string;
  /** The resource's name (core/identity/resources.ts); null for grants made before 0004: the API. */
  resource: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface AuthorizationCodeTable {
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  code_challenge: string | null;
  scope: string;
  resource: string | null;
  nonce: string | null;
  expires_at: string;
  used_at: string | null;
  grant_id: string | null;
}

export interface RefreshTokenTable {
  token_hash: string;
  grant_id: string;
  expires_at: string;
  used_at: string | null;
}

export interface ApiKeyTable {
  id: string;
  user_id: string;
  name: string;
  scope: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface SessionTable {
  id_hash: string;
  user_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export interface LoginStateTable {
  state_hash: string;
  provider: string;
  source: 'web' | 'cli' | 'desktop';
  callback_port: string | null;
  scope: string;
  code_challenge: string | null;
  client_state: string | null;
  return_to: string | null;
  provider_verifier: string;
  nonce: string;
  expires_at: string;
}

// Webhooks. Times compared by the worker are integer epoch ms (bigint in PostgreSQL, which pg
// reads back as a string); times shown to people are ISO 8601 text, as in identity.
export interface WebhookDeliveryTable {
  seq: Generated<number | string>;
  /** `msg_<ulid>`, the webhook-id header. */
  id: string;
  url: string;
  event_type: string;
  /** The request body, exactly as sent. */
  payload: string;
  status: 'pending' | 'delivered' | 'failed' | 'disabled' | 'abandoned';
  attempts: number;
  next_attempt_at: ColumnType<number | string, number, number>;
  /** While set and in the future, a worker holds the row; past it, the row is claimable again. */
  claimed_until: ColumnType<number | string | null, number | null, number | null>;
  claim_token: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface WebhookEndpointDisabledTable {
  url: string;
  secret_fingerprint: string;
  disabled_at: string;
  reason: string;
}

// Agent tasks. Times are ISO 8601 text; `files` and `budgets` JSON text; a step's details JSON.
export interface AgentTaskTable {
  seq: Generated<number | string>;
  id: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  task: string;
  files: string;
  model: string;
  budgets: string;
  estimated_time: number;
  steps: number;
  /** bigint: pg reads it back as a string. */
  tokens: ColumnType<number | string, number, number>;
  created_at: string;
  ended_at: string | null;
  reason: string | null;
  error: string | null;
  summary: string | null;
  reverted_at: string | null;
  /** JSON text: the user's messages and how the work on each ended (AgentExchange[]); null before migration 0007. */
  conversation: string | null;
}

export interface AgentStepTable {
  task_id: string;
  idx: number;
  kind: 'model' | 'tool' | 'notice' | 'user';
  turn: number;
  at: string;
  data: string;
}

export interface AgentChangeTable {
  task_id: string;
  entry: number;
  path: string;
  origin: string | null;
  content_before: string | null;
  content_after: string | null;
}

// Composer sessions. `lease_until` is epoch ms (bigint: pg reads it back as a string); flags
// are 0/1 integers; lists, plan, edits and budgets JSON text.
export interface ComposerSessionTable {
  seq: Generated<number | string>;
  id: string;
  user_id: string;
  prompt: string;
  files: string;
  mode: 'edit' | 'plan';
  workspace: string | null;
  attachments: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  budgets: string;
  model: string | null;
  plan: string | null;
  edits: string | null;
  branch: string | null;
  commit_sha: string | null;
  pushed: number;
  error: string | null;
  summary: string | null;
  steps: number;
  tokens: ColumnType<number | string, number, number>;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  runner: string | null;
  attempt: number;
  lease_until: ColumnType<number | string | null, number | null, number | null>;
  cancel_requested: number;
  /** Added by 0008: null for sessions that never ran (or ran on attachments), and for those of an earlier version. */
  base_sha: string | null;
  /** JSON (ComposerExchange[]); null: never continued. */
  conversation: string | null;
  /** JSON (ComposerEdit[]); null: the run starts from the copy as it was. */
  start_edits: string | null;
}

export interface ComposerEventTable {
  session_id: string;
  seq: number;
  type: string;
  data: string;
  at: string;
}

export interface ComposerWorkspaceTable {
  name: string;
  repo: string;
  branch: string | null;
  /** 'true' or 'false' (a text table). */
  push: string;
  created_at: string;
}

export interface Database {
  feedback: FeedbackTable;
  signing_keys: SigningKeyTable;
  oauth_clients: OAuthClientTable;
  users: UserTable;
  user_identities: UserIdentityTable;
  grants: GrantTable;
  authorization_codes: AuthorizationCodeTable;
  refresh_tokens: RefreshTokenTable;
  api_keys: ApiKeyTable;
  sessions: SessionTable;
  login_states: LoginStateTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_endpoints_disabled: WebhookEndpointDisabledTable;
  agent_tasks: AgentTaskTable;
  agent_steps: AgentStepTable;
  agent_changes: AgentChangeTable;
  composer_sessions: ComposerSessionTable;
  composer_events: ComposerEventTable;
  composer_workspaces: ComposerWorkspaceTable;
}

export type Dialect = 'sqlite' | 'postgres';
