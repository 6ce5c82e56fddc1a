// What an agent task is, as the manager, the store and the API see it.

/** `running` until the task ends; then how it ended. */
export type AgentStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * Why a task ended:
 * - `done`: the model answered without asking for anything more (completed);
 * - `max_steps`, `max_tokens`, `timeout`: a budget ran out (failed);
 * - `loop`: the model repeated the same call with the same result after being told to change course (failed);
 * - `unusable_answers`: the model's answers could not be acted on (malformed calls, unknown tools), corrections did not help (failed);
 * - `model_error`: the model failed or could not be reached (failed; `error` says how);
 * - `cancelled`: cancelled by the user;
 * - `interrupted`: Loom stopped (or restarted) while the task ran (failed);
 * - `error`: Loom itself failed (its database could not be reached; failed, `error` says how).
 */
export type EndReason = 'done' | 'max_steps' | 'max_tokens' | 'timeout' | 'loop' | 'unusable_answers' | 'model_error' | 'cancelled' | 'interrupted' | 'error';

export type ChangeAction = 'created' | 'modified' | 'deleted' | 'renamed';

/** Limits on one task; each ends the task when reached. */
export interface AgentBudgets {
  /** Model turns. */
  maxSteps: number;
  /** Tokens of every turn's prompt and answer, summed. */
  maxTokens: number;
  /** Wall time from the start, in seconds. */
  timeoutSeconds: number;
}

export interface AgentRequest {
  /** What to do, in the user's words. */
  task: string;
  /** Globs of the files the task may change (it may read the whole workspace). */
  files: string[];
  /** A model that can chat, by name or kind (`openai`, `gguf`); the default one when absent. */
  model?: string;
  /** Overrides of the default budgets. */
  budgets?: Partial<AgentBudgets>;
}

/** A change as a task's status shows it. */
export interface AgentChange {
  /** The file's path now (for a deleted file: the path it had). */
  file: string;
  action: ChangeAction;
  /** For `renamed`: the path it had before. */
  from?: string;
  /** Unified diff from the file before the task to the file now (`--- /dev/null` for created files). */
  diff: string;
}

/** A change as a task list shows it (the status has the diff). */
export type AgentChangeSummary = Omit<AgentChange, 'diff'>;

/** What a task is from its start, wherever it is shown or stored. */
export interface AgentTaskBasics {
  status: AgentStatus;
  task: string;
  files: string[];
  /** The model's name. */
  model: string;
  budgets: AgentBudgets;
  /** Seconds the task was expected to take when it started. */
  estimatedTime: number;
  /** Model turns so far. */
  steps: number;
  /** Tokens so far (prompts and answers). */
  tokens: number;
  /** ISO 8601. */
  createdAt: string;
}

/** A task as the status answers describe it. */
export interface AgentTaskInfo extends AgentTaskBasics {
  taskId: string;
  endedAt?: string;
  reason?: EndReason;
  /** What went wrong, for a task that failed on an error (`model_error`, `interrupted`). */
  error?: string;
  /** The model's last words. */
  summary?: string;
  changes: AgentChange[];
  /** When the task's changes were reverted. */
  revertedAt?: string;
}

/** A task as a list shows it: its changes without their diffs. */
export type AgentTaskSummary = Omit<AgentTaskInfo, 'changes'> & { changes: AgentChangeSummary[] };

/** The status an end reason gives a task. */
export function statusOf(reason: EndReason): Exclude<AgentStatus, 'running'> {
  return reason === 'done' ? 'completed' : reason === 'cancelled' ? 'cancelled' : 'failed';
}

/**
 * One entry of a task's step log: a model turn (`model`), a tool's call and result (`tool`),
 * or what the runtime told the model on its own (`notice`: a correction, a loop warning).
 * Texts are trimmed (see STEP_TEXT_LIMIT).
 */
export interface AgentStep {
  /** 1-based position in the task's log. */
  index: number;
  kind: 'model' | 'tool' | 'notice';
  /** ISO 8601. */
  at: string;
  /** The model turn this entry belongs to (1-based). */
  turn: number;
  /** model: the answer's text; tool: the result; notice: what the model was told. */
  text: string;
  /** tool: its name. */
  tool?: string;
  /** tool: the arguments as the model wrote them. */
  arguments?: string;
  /** tool: whether it did what was asked. */
  ok?: boolean;
  /** tool: what it changed, as a unified diff. */
  diff?: string;
  /** model: the turn's tokens. */
  tokens?: { prompt: number; completion: number };
  /** model: the turn's duration. */
  durationMs?: number;
}

/** Longest text a step log entry keeps (the rest is cut, with a note). */
export const STEP_TEXT_LIMIT = 4000;

/** `text` cut to `limit` characters, saying how much was left out. */
export function trimText(text: string, limit = STEP_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… [${text.length - limit} more characters]`;
}
