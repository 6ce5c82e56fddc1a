// What a composer session is, as the store, the runner and the API see it (docs/composer.md).
import type { AgentBudgets, ChangeAction } from '../agents/types.ts';

export type ComposerMode = 'edit' | 'plan';

/** `queued` until a runner claims it, `running` while one holds it, then how it ended. */
export type ComposerStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export const ENDED_STATUSES: readonly ComposerStatus[] = ['completed', 'failed', 'cancelled'];

/** A file sent with the request: the session's scratch copy starts from these. */
export interface ComposerAttachment {
  /** Relative, `/`-separated. */
  path: string;
  content: string;
}

/** One file's change, as `loom composer apply` needs it. */
export interface ComposerEdit {
  /** The file's path after the session (for a deleted file: the path it had). */
  file: string;
  action: ChangeAction;
  /** For `renamed`: the path it had before. */
  from?: string;
  /** Unified diff from the file before the session to the file after it. */
  diff: string;
  /** sha256 (hex) of the file's content before the session; null when the session created it. `apply` refuses when the local file differs. */
  baseHash: string | null;
  /** The file's whole content after the session; null when deleted. `apply` writes it (diffs are for people). */
  content: string | null;
}

/** What a plan-mode session answers with. */
export interface ComposerPlan {
  summary: string;
  steps: string[];
  /** Files the plan would touch. */
  files: string[];
}

/** A follow-up message, and how the work before it had ended (what the model is told of its earlier runs). */
export interface ComposerExchange {
  message: string;
  /** ISO 8601. */
  at: string;
  /** The seq of its `message` event: a client follows the run it started from there. */
  seq: number;
  earlier: {
    status: ComposerStatus;
    error: string | null;
    /** The model's last words then. */
    summary: string | null;
    /** The plan then (plan mode). */
    plan: ComposerPlan | null;
    /** The session's turns and tokens then: a follow-up's run counts on from them. */
    steps: number;
    tokens: number;
  };
}

/** A session as stored: its request, its state, its result and the claim of the runner holding it. */
export interface ComposerSessionRecord {
  /** UUID. */
  id: string;
  /** The user who created it: the only one who sees it. */
  userId: string;
  prompt: string;
  files: string[];
  mode: ComposerMode;
  /** The registered workspace it runs on; null for attachments only. */
  workspace: string | null;
  attachments: ComposerAttachment[];
  /** The commit of a git workspace its copy started from, once it ran: its follow-ups start there too, so that every edit stays a change from it. */
  base: string | null;
  /** The user's follow-up messages, oldest first (empty for a session never continued). */
  conversation: ComposerExchange[];
  /** The edits the current run starts from: a follow-up's run goes on from the session's earlier edits (null: from the copy as it was). */
  startEdits: ComposerEdit[] | null;
  status: ComposerStatus;
  budgets: AgentBudgets;
  /** The model that ran it, once running. */
  model: string | null;
  plan: ComposerPlan | null;
  edits: ComposerEdit[] | null;
  /** `loom/composer/<id>` for a git workspace in edit mode. */
  branch: string | null;
  /** The commit on `branch`. */
  commit: string | null;
  /** Whether `branch` was pushed to the workspace's origin (done once; a takeover does not push again). */
  pushed: boolean;
  error: string | null;
  /** The model's last words. */
  summary: string | null;
  steps: number;
  tokens: number;
  /** ISO 8601. */
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  /** The runner holding the claim (while running). */
  runner: string | null;
  /** Claims so far: a runner writes only while its attempt is the row's. */
  attempt: number;
  /** Epoch ms until which the claim holds; past it another runner may take the session over. */
  leaseUntil: number | null;
  cancelRequested: boolean;
}

/** What a session is made of when it is created: what the user asked, under which budgets. */
export type NewComposerSession = Pick<
  ComposerSessionRecord,
  'id' | 'userId' | 'prompt' | 'files' | 'mode' | 'workspace' | 'attachments' | 'budgets' | 'createdAt'
>;

/**
 * A session's record as it is first written: queued, nothing run, nobody holding it.
 *
 * @example
 * await sessions.create(queuedSession({ id: randomUUID(), userId, prompt, files, mode: 'edit', workspace: null, attachments, budgets, createdAt: now }));
 */
export function queuedSession(session: NewComposerSession): ComposerSessionRecord {
  return {
    ...session,
    status: 'queued',
    base: null,
    conversation: [],
    startEdits: null,
    model: null,
    plan: null,
    edits: null,
    branch: null,
    commit: null,
    pushed: false,
    error: null,
    summary: null,
    steps: 0,
    tokens: 0,
    startedAt: null,
    endedAt: null,
    runner: null,
    attempt: 0,
    leaseUntil: null,
    cancelRequested: false,
  };
}

/** A progress event, replayed to SSE clients from `seq` on. */
export interface ComposerEvent {
  /** 1-based, per session: the SSE `id:`. */
  seq: number;
  /** `status`, `step`, `edit`, `plan`. */
  type: string;
  data: Record<string, unknown>;
  /** ISO 8601. */
  at: string;
}

/** A workspace the operator registered: a git repository the server clones and fetches. */
export interface ComposerWorkspace {
  name: string;
  /** URL or path of the repository (the origin of the server's clone). */
  repo: string;
  /** The branch sessions start from; null: the origin's default branch. */
  branch: string | null;
  /** Push each session's branch back to the origin. */
  push: boolean;
  createdAt: string;
}
