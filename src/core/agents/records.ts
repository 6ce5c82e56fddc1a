// What the store keeps of agent tasks, behind an interface the store implements (SQLite or
// PostgreSQL): tasks, their step logs and their changes (each file's content before the task
// and now, for diffs and revert). Written as a task goes, so that a restart loses nothing it
// applied.
import type { ChangeEntry } from './files/change-log.ts';
import type { AgentExchange, AgentStep, AgentTaskBasics, EndReason } from './types.ts';

/**
 * A task as stored: what it is from its start, and what is known once it runs or ends (null
 * until then). A follow-up message runs it again: `budgets` and `estimatedTime` are then those
 * of the work on the latest message, the end fields are cleared, and `conversation` grows.
 */
export interface AgentTaskRecord extends AgentTaskBasics {
  id: string;
  endedAt: string | null;
  reason: EndReason | null;
  error: string | null;
  summary: string | null;
  revertedAt: string | null;
  /** The user's messages (the task first); the last one's end is the task's own. */
  conversation: AgentExchange[];
}

/** What changes of a task as it runs, ends and runs again. */
export type AgentTaskUpdate = Partial<
  Pick<
    AgentTaskRecord,
    'status' | 'steps' | 'tokens' | 'endedAt' | 'reason' | 'error' | 'summary' | 'revertedAt' | 'budgets' | 'estimatedTime' | 'conversation'
  >
>;

export interface AgentTaskRepository {
  create(task: AgentTaskRecord): Promise<void>;
  update(id: string, update: AgentTaskUpdate): Promise<void>;
  get(id: string): Promise<AgentTaskRecord | undefined>;
  /** Newest first; `before`: only tasks created before that task (the next page). */
  list(options: { limit: number; before?: string }): Promise<AgentTaskRecord[]>;
  /** Appends steps to the task's log and, in the same transaction, applies `update` to the task. */
  addSteps(taskId: string, steps: readonly AgentStep[], update?: AgentTaskUpdate): Promise<void>;
  /** Steps with an index above `after`, in order, at most `limit`. */
  steps(taskId: string, options: { after: number; limit: number }): Promise<AgentStep[]>;
  /** Steps with an index below `before`, newest first, at most `limit` (a conversation rebuilt from its end). */
  stepsBefore(taskId: string, options: { before: number; limit: number }): Promise<AgentStep[]>;
  /** Inserts a change entry, or updates its path and content now (by the task and the entry's id; its origin and content before are set once). */
  saveChange(taskId: string, entry: ChangeEntry): Promise<void>;
  deleteChange(taskId: string, id: number): Promise<void>;
  /** Forgets every change entry of the task (they were reverted, and it runs again from the files as they are). */
  clearChanges(taskId: string): Promise<void>;
  /** The task's change entries, by id. */
  changes(taskId: string): Promise<ChangeEntry[]>;
  /**
   * Ends every task still `running` (the process that ran it stopped): failed, reason
   * `interrupted`, with `error`. Returns the tasks ended.
   */
  interruptRunning(endedAt: string, error: string): Promise<AgentTaskRecord[]>;
}
