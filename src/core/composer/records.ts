// The repositories composer needs; src/store implements them on SQLite and PostgreSQL.
import type { ComposerEdit, ComposerEvent, ComposerPlan, ComposerSessionRecord, ComposerStatus, ComposerWorkspace } from './types.ts';

/** Who holds a session: a runner's id and the attempt its claim made. */
export interface Claim {
  runner: string;
  attempt: number;
}

/** What a runner writes while it holds the claim (null clears what an earlier attempt wrote). */
export interface ComposerProgress {
  status?: ComposerStatus;
  model?: string;
  plan?: ComposerPlan | null;
  edits?: ComposerEdit[];
  /** The commit a git workspace's copy started from. */
  base?: string | null;
  branch?: string | null;
  commit?: string | null;
  pushed?: boolean;
  error?: string | null;
  summary?: string | null;
  steps?: number;
  tokens?: number;
  startedAt?: string;
  endedAt?: string;
}

export interface ComposerSessionRepository {
  create(record: ComposerSessionRecord): Promise<void>;
  get(id: string): Promise<ComposerSessionRecord | undefined>;
  /** The user's sessions, newest first, at most `limit`. */
  listByUser(userId: string, limit: number): Promise<ComposerSessionRecord[]>;
  /** The user's sessions waiting and running. */
  countActive(userId: string): Promise<{ queued: number; running: number }>;
  /**
   * Takes the session for `runner` when it is queued, or running under a lease that ended
   * before `now` (its runner died): status running, attempt + 1, lease until `leaseUntil`.
   * Atomic: of two runners claiming at once, one gets it. Undefined when not claimable, or
   * when its user already has `maxRunningPerUser` sessions running (it stays queued).
   */
  claim(
    id: string,
    runner: string,
    now: number,
    leaseUntil: number,
    limits?: { maxRunningPerUser?: number },
  ): Promise<{ record: ComposerSessionRecord; claim: Claim } | undefined>;
  /** Extends the lease while `claim` holds; undefined when it no longer does (taken over, ended), else whether a cancel was asked. */
  renew(id: string, claim: Claim, leaseUntil: number): Promise<{ cancelRequested: boolean } | undefined>;
  /**
   * Writes progress while `claim` holds; false (nothing written) when it does not. With
   * `event`, the event is appended in the same transaction (a session's end and its last
   * event are seen together).
   */
  update(id: string, claim: Claim, progress: ComposerProgress, event?: { type: string; data: Record<string, unknown>; at: string }): Promise<boolean>;
  /** Gives a claimed session back (the runner's queue is closing): queued again, for any runner. */
  release(id: string, claim: Claim): Promise<boolean>;
  /**
   * Asks for the session to stop: a queued one is cancelled at once (`cancelled: true`), a
   * running one is flagged for its runner to notice. Answers the record after.
   */
  requestCancel(id: string, now: string): Promise<{ record: ComposerSessionRecord; cancelled: boolean } | undefined>;
  /**
   * Continues an ended session with the user's `message`: queued again under `budgets`, the
   * message added to its conversation with how the work before it ended, its edits kept as
   * what the next run starts from, and `message` then `status` (queued) events, all in one
   * transaction. `continued` is false (nothing written) when the session has not ended, or
   * another message continued it first. Undefined when there is no such session.
   */
  continueWith(
    id: string,
    message: { message: string; at: string },
    budgets: ComposerSessionRecord['budgets'],
  ): Promise<{ record: ComposerSessionRecord; continued: boolean } | undefined>;
  /** Ids of sessions a runner should pick up: queued, or running with a lease ended before `now`. Oldest first. */
  runnable(now: number, limit: number): Promise<string[]>;
  /** Appends an event (numbered after the last one); with `claim`, only while it holds. Answers its seq, or undefined when the claim was lost. */
  appendEvent(id: string, event: { type: string; data: Record<string, unknown>; at: string }, claim?: Claim): Promise<number | undefined>;
  /** Events with seq above `after`, in order, at most `limit`. */
  events(id: string, after: number, limit: number): Promise<ComposerEvent[]>;
}

export interface ComposerWorkspaceRepository {
  /** Adds or replaces. */
  put(workspace: ComposerWorkspace): Promise<void>;
  get(name: string): Promise<ComposerWorkspace | undefined>;
  list(): Promise<ComposerWorkspace[]>;
  /** Whether there was one. */
  remove(name: string): Promise<boolean>;
}
