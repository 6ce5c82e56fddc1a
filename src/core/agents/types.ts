// What an agent task is, as the manager, the store and the API see it.
import type { StepDiagnostics } from './intel/edit-checks.ts';
import type { LoadedRule } from './intel/rules.ts';

export type { StepDiagnostics, LoadedRule };

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

/**
 * One message of the user and the agent's work on it: the task itself, then each follow-up
 * (`AgentManager.followUp`). How the work ended is known once it has.
 */
export interface AgentExchange {
  /** The user's words. */
  message: string;
  /** ISO 8601: when it was sent. */
  at: string;
  /** The index of its first entry in the step log. */
  firstStep: number;
  endedAt?: string;
  reason?: EndReason;
  /** The model's last words on it. */
  summary?: string;
}

/** A command a task waits for the user to approve (one not in `agents.commands`). */
export interface AgentApproval {
  approvalId: string;
  command: string;
  /** Where it would run: the workspace folder. */
  cwd: string;
  /** ISO 8601. */
  askedAt: string;
  /** ISO 8601: unanswered by then, it is denied. */
  expiresAt: string;
}

/** What the user may answer to an approval request. */
export type ApprovalDecision = 'once' | 'always' | 'deny';

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
  /** The user's messages, oldest first, with how the work on each ended. */
  conversation: AgentExchange[];
  /** While the task waits for the user to approve a command. */
  approval?: AgentApproval;
}

/** A task as a list shows it: its changes without their diffs. */
export type AgentTaskSummary = Omit<AgentTaskInfo, 'changes'> & { changes: AgentChangeSummary[] };

/** The status an end reason gives a task. */
export function statusOf(reason: EndReason): Exclude<AgentStatus, 'running'> {
  return reason === 'done' ? 'completed' : reason === 'cancelled' ? 'cancelled' : 'failed';
}

/**
 * One entry of a task's step log: a model turn (`model`), a tool's call and result (`tool`),
 * what the runtime told the model on its own (`notice`: a correction, a loop warning), or the
 * user's follow-up message (`user`). Texts are trimmed (see STEP_TEXT_LIMIT).
 */
export interface AgentStep {
  /** 1-based position in the task's log. */
  index: number;
  kind: 'model' | 'tool' | 'notice' | 'user';
  /** ISO 8601. */
  at: string;
  /** The model turn this entry belongs to (1-based); for `user`, the turn it leads to. */
  turn: number;
  /** model: the answer's text; tool: the result; notice: what the model was told; user: the message. */
  text: string;
  /** tool: its name. */
  tool?: string;
  /** tool: the arguments as the model wrote them. */
  arguments?: string;
  /** tool: whether it did what was asked. */
  ok?: boolean;
  /** tool: what it changed, as a unified diff. */
  diff?: string;
  /** tool: an edit block the model wrote in its answer's text, not a tool call (the conversation is rebuilt from the log). */
  block?: true;
  /** tool: what the change did to the diagnostics of the file and the files importing it (where a language server runs). */
  diagnostics?: StepDiagnostics;
  /** notice: what the prompt carries beyond the task's words, logged before the first turn of a run or a follow-up. */
  context?: StepContext;
  /** model: the turn's tokens. */
  tokens?: { prompt: number; completion: number };
  /** model: the turn's duration. */
  durationMs?: number;
}

/** What a task's prompt carries beyond its words: the project's rules files, the repository map. */
export interface StepContext {
  /** The rules files in the system prompt, in its order. */
  rules: LoadedRule[];
  /** Rules files found and left out (over the budget, or their globs match no file in scope). */
  skippedRules?: string[];
  /** The repository map in the first message, when the task has a code index. */
  map?: { files: number; tokens: number; budget: number };
}

/** Longest text a step log entry keeps (the rest is cut, with a note). */
export const STEP_TEXT_LIMIT = 4000;

/** `text` cut to `limit` characters, saying how much was left out. */
export function trimText(text: string, limit = STEP_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… [${text.length - limit} more characters]`;
}
