// The agent tasks of a workspace: starting them (checked at once: a task that cannot run is
// refused, never started to fail later), at most MAX_RUNNING at a time, their status, list,
// step log, cancel and revert; continuing an ended task with the user's message (its changes
// kept, its conversation rebuilt from the step log, new budgets); asking the user to approve a
// command not in `agents.commands` and waiting for the answer; events `agent:start`,
// `agent:message`, `agent:step`, `agent:approval`, `agent:complete`; and their record in the
// store as they go, so that a restart loses nothing that was applied and ended tasks stay
// queryable and can be continued.
import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../clock.ts';
import type { ChatMessage, ChatProvider } from '../completion/chat.ts';
import { LoomError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import { AgentCapacityError, RevertConflictError } from './errors.ts';
import { ModelSpeeds } from './estimate.ts';
import { publicError } from './public-error.ts';
import type { AgentFiles } from './files/agent-files.ts';
import { ChangeLog, describeEntry, type ChangeEntry } from './files/change-log.ts';
import { changeVersion, revertHunks, type ChangeTexts, type RevertFileRequest } from './files/review.ts';
import { FileLocks } from './files/file-locks.ts';
import { TaskFiles, type ChangeRecord } from './files/task-files.ts';
import { EditChecks } from './intel/edit-checks.ts';
import type { AgentIntel } from './intel/intel.ts';
import { describeContext, taskContext, type TaskContext } from './intel/task-context.ts';
import { joinUserMessages, rebuildHistory } from './loop/history.ts';
import { firstMessage, followUpMessage, shownContents, systemPrompt } from './loop/prompt.ts';
import { runLoop, TaskStop, type LoopEnd, type StepInput } from './loop/run-loop.ts';
import type { AgentTaskRecord, AgentTaskRepository, AgentTaskUpdate } from './records.ts';
import { GlobSet } from './scope/glob.ts';
import { walkFiles, withSizes, type WalkedFile } from './scope/walk.ts';
import { resolveBudgets, type AgentSettings } from './settings.ts';
import { CommandRunner, Toolbox, type ApprovalOutcome } from './tools/index.ts';
import { boundedDiffs, cutDiff, STEP_DIFF_CHARS } from './diffs.ts';
import {
  statusOf,
  trimText,
  type AgentApproval,
  type AgentBudgets,
  type AgentChange,
  type AgentChangeSummary,
  type AgentExchange,
  type AgentRequest,
  type AgentStep,
  type AgentTaskInfo,
  type AgentTaskSummary,
  type ApprovalDecision,
  type EndReason,
} from './types.ts';

/** Tasks that run at once; one more is refused (AgentCapacityError) until one ends. */
export const MAX_RUNNING = 5;
/** Longest task text. */
const MAX_TASK_CHARS = 32_000;
const MAX_GLOBS = 100;
/** Files of the scope looked at to check the globs and estimate the work. */
const SCOPE_FILES = 10_000;
/** retryAfter when the running task expected to end first is past its estimate already. */
const OVERDUE_RETRY_SECONDS = 5;
/** Characters of a step's text an agent:step event carries (the step log has more). */
const EVENT_TEXT_CHARS = 500;

/** What a follow-up message asks for. */
export interface AgentFollowUp {
  /** The user's words. */
  message: string;
  /** Overrides of the default budgets for the work on it. */
  budgets?: Partial<AgentBudgets>;
}

export interface AgentManagerOptions {
  /** The workspace, through the editor's documents. */
  files: AgentFiles;
  /** Picks the model a task names (ProviderSet.selectChat). */
  providers: { selectChat(model?: string): ChatProvider & { name: string } };
  events: EventBus;
  repository: AgentTaskRepository;
  /** The settings in force (configuration and settings.json), read when a task starts. */
  settings: () => AgentSettings;
  /** Values no command an agent runs may see in its environment (the local API token, provider keys). */
  secrets: () => string[];
  /**
   * Adds a command to those that run without asking (settings.json's `agents.commands`), for an
   * approval answered `always`, so that `settings().commands` lists it at once. Throws a
   * LoomError when it cannot (a file-system failure, a full list). Without it, `always` is refused.
   */
  rememberCommand?(command: string): void;
  /**
   * What the task may know of the code (the workspace's code index, its language servers), read
   * when a task starts: the first turn's repository map, the code tools, diagnostics after each
   * edit. Without it (or with a half missing) tasks list files and go without those tools.
   */
  intel?: () => AgentIntel | undefined;
  /** The server's log: hears of what the store failed to record (the step log, a task's end), with the store's error. */
  log?: { error(message: string, cause: unknown): void };
  clock?: Clock;
}

interface RunningTask {
  record: AgentTaskRecord;
  controller: AbortController;
  changes: ChangeLog;
  /** Settles when the task has ended and its end is recorded. */
  done: Promise<void>;
  /** Steps logged so far. */
  logged: number;
  /**
   * Steps not written yet, and the counters to write with them. The log is written a turn at a
   * time, behind the task, in one transaction: it records what happened, it is not what must
   * survive a crash (a change is written before its tool answers).
   */
  unlogged: AgentStep[];
  unloggedUpdate?: AgentTaskUpdate;
  /** The log's writes, in order. */
  log: Promise<void>;
  /** The first failure to write the log: the task ends on its next step, or at its end, with reason `error`. */
  logFailure?: unknown;
  /** On the manager's clock: when the task started, or the message it works on came. */
  startedAt: number;
  /** The command the task waits for the user to approve. */
  approval?: PendingApproval;
  /** Commands the user denied in this run: the model is told at once if it asks again. */
  denied: Set<string>;
  /** A request expired in this run (the user is away): no other is asked. */
  unanswered: boolean;
}

/** How an approval request ends: the user's answer, no answer in time, or the task ending first. */
type ApprovalEnd = ApprovalDecision | 'expired' | 'cancelled';

interface PendingApproval extends AgentApproval {
  settle(end: ApprovalEnd): void;
}

export class AgentManager {
  private readonly running = new Map<string, RunningTask>();
  /** Slots taken by `run` and `followUp` calls still checking their request. */
  private starting = 0;
  /** Tasks a `followUp` is starting again (not running yet). */
  private readonly resuming = new Set<string>();
  private readonly locks = new FileLocks();
  private readonly speeds = new ModelSpeeds();
  private readonly clock: Clock;
  private closed = false;

  constructor(private readonly options: AgentManagerOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Ends the tasks a previous run of Loom left running (failed, `interrupted`, their applied
   * changes kept) and announces their end. Call once, before `run`.
   */
  async start(): Promise<void> {
    const interrupted = await this.options.repository.interruptRunning(
      this.now(),
      'Loom stopped while the task was running; the changes it had applied are kept.',
    );
    for (const record of interrupted) await this.announceEnd(record, await this.changesOf(record.id));
  }

  /**
   * Starts a task and answers once it runs (`agent:start` emitted). Refused at once with
   * LoomError: validation_error (an empty task, no globs, globs that match no file),
   * unknown_model, bad_request (a model that cannot chat, or none), or AgentCapacityError
   * (rate_limited, with retryAfter) while MAX_RUNNING tasks run.
   *
   * @example
   * const { taskId, estimatedTime } = await agents.run({ task: 'Rename add to sum', files: ['src/**\/*.ts'] });
   */
  async run(request: AgentRequest): Promise<{ taskId: string; status: 'running'; estimatedTime: number }> {
    if (this.closed) throw new LoomError('model_unavailable', 'Agents are shutting down.');
    const task = typeof request.task === 'string' ? request.task.trim() : '';
    if (task === '') throw new LoomError('validation_error', 'The task is empty: say what the agent should do.');
    if (task.length > MAX_TASK_CHARS) throw new LoomError('validation_error', `The task is longer than ${MAX_TASK_CHARS} characters.`);
    if (!Array.isArray(request.files) || request.files.length === 0 || request.files.length > MAX_GLOBS) {
      throw new LoomError('validation_error', `files must list 1 to ${MAX_GLOBS} globs of the files the task may change, e.g. ["src/**/*.ts"].`);
    }
    const scope = new GlobSet(request.files);
    const provider = this.chatProvider(request.model);
    const settings = this.options.settings();
    const budgets = resolveBudgets(settings, request.budgets);
    // The slot is taken before the first await, so that concurrent calls cannot all get the last one.
    if (this.running.size + this.starting >= MAX_RUNNING) throw new AgentCapacityError(MAX_RUNNING, this.retryAfter());
    this.starting++;
    let slotTaken = true;
    try {
      const inScope = await this.filesInScope(scope);
      if (inScope.length === 0)
        throw new LoomError(
          'validation_error',
          `No file matches ${request.files.map((glob) => JSON.stringify(glob)).join(', ')}.`,
          'Globs are relative to the workspace: "src/**/*.ts", "README.md".',
        );
      const startedAt = this.clock.now();
      const record: AgentTaskRecord = {
        id: `task_${randomBytes(12).toString('hex')}`,
        status: 'running',
        task,
        files: request.files.map((glob) => glob.trim()),
        model: provider.name,
        budgets,
        estimatedTime: this.speeds.estimate(provider.name, { files: inScope.length, bytes: inScope.reduce((sum, file) => sum + file.size, 0) }, budgets),
        steps: 0,
        tokens: 0,
        createdAt: new Date(startedAt).toISOString(),
        endedAt: null,
        reason: null,
        error: null,
        summary: null,
        revertedAt: null,
        conversation: [{ message: task, at: new Date(startedAt).toISOString(), firstStep: 1 }],
      };
      await this.options.repository.create(record);
      const running = runningTask(record, new ChangeLog(), startedAt, 0);
      this.starting--;
      slotTaken = false;
      this.running.set(record.id, running);
      await this.options.events.emit('agent:start', {
        taskId: record.id,
        task,
        files: record.files,
        model: record.model,
        estimatedTime: record.estimatedTime,
        budgets,
      });
      const messages = async (files: TaskFiles, tools: readonly string[], context: TaskContext): Promise<ChatMessage[]> => [
        { role: 'system', content: systemPrompt({ globs: record.files, budgets: record.budgets, tools, rules: context.rules.text }) },
        { role: 'user', content: firstMessage(record.task, record.files, inScope, shownContents(files, inScope), context.map?.text) },
      ];
      running.done = this.execute(running, provider, settings, scope, inScope, messages);
      return { taskId: record.id, status: 'running', estimatedTime: record.estimatedTime };
    } finally {
      if (slotTaken) this.starting--;
    }
  }

  /**
   * Continues a task that has ended with the user's message: the same task, its changes and its
   * conversation (rebuilt from the step log, within a budget) kept, new budgets counted from
   * now; answers once it runs again. Its step log goes on (a `user` entry, then the new turns),
   * `agent:message` is emitted, then `agent:step` and `agent:complete` as for a run. A reverted
   * task goes on from the files as they are (its reverted changes are forgotten). Refused with
   * LoomError: task_running (409) while it runs or waits for an approval, not_found,
   * validation_error (an empty message), bad_request / unknown_model (its model is gone), or
   * AgentCapacityError while MAX_RUNNING tasks run.
   *
   * @example
   * await agents.followUp(taskId, { message: 'Now rename sub to difference too.' });
   */
  async followUp(taskId: string, request: AgentFollowUp): Promise<{ taskId: string; status: 'running'; estimatedTime: number }> {
    if (this.closed) throw new LoomError('model_unavailable', 'Agents are shutting down.');
    const message = typeof request.message === 'string' ? request.message.trim() : '';
    if (message === '') throw new LoomError('validation_error', 'The message is empty: say what the agent should do next.');
    if (message.length > MAX_TASK_CHARS) throw new LoomError('validation_error', `The message is longer than ${MAX_TASK_CHARS} characters.`);
    if (this.running.has(taskId) || this.resuming.has(taskId)) throw taskRunning(taskId);
    if (this.running.size + this.starting >= MAX_RUNNING) throw new AgentCapacityError(MAX_RUNNING, this.retryAfter());
    // Taken before the first await, as in run; and the task is marked, so that a second message cannot start it twice.
    this.starting++;
    this.resuming.add(taskId);
    try {
      const record = await this.record(taskId);
      const provider = this.chatProvider(record.model);
      const settings = this.options.settings();
      const budgets = resolveBudgets(settings, request.budgets);
      const scope = new GlobSet(record.files);
      const inScope = await this.filesInScope(scope);
      const last = (await this.options.repository.stepsBefore(record.id, { before: Number.MAX_SAFE_INTEGER, limit: 1 }))[0]?.index ?? 0;
      // After a revert the files are as before the task: what it changed is undone, and it starts afresh from them.
      const reverted = record.revertedAt !== null;
      if (reverted) await this.options.repository.clearChanges(record.id);
      const changes = new ChangeLog(reverted ? [] : await this.options.repository.changes(record.id));
      const startedAt = this.clock.now();
      const earlier = { reason: record.reason, reverted, changes: changes.changes().map(withoutDiff) };
      const turnsBefore = record.steps;
      const conversation: AgentExchange[] = [...exchangesOf(record), { message, at: new Date(startedAt).toISOString(), firstStep: last + 1 }];
      const update: AgentTaskUpdate = {
        status: 'running',
        endedAt: null,
        reason: null,
        error: null,
        revertedAt: null,
        budgets,
        estimatedTime: this.speeds.estimate(provider.name, { files: inScope.length, bytes: inScope.reduce((sum, file) => sum + file.size, 0) }, budgets),
        conversation,
      };
      await this.options.repository.update(record.id, update);
      Object.assign(record, update);
      const running = runningTask(record, changes, startedAt, last);
      this.running.set(record.id, running);
      try {
        await this.options.events.emit('agent:message', {
          taskId: record.id,
          message: trimText(message, EVENT_TEXT_CHARS),
          budgets,
          estimatedTime: record.estimatedTime,
        });
        await this.logStep(running, { kind: 'user', turn: turnsBefore + 1, text: message });
      } catch (error) {
        // The event could not be queued (the outbox's store): the task does not stay running without its loop.
        running.done = this.finish(running, { reason: 'error', error: error instanceof Error ? error.message : String(error) });
        await running.done;
        throw error;
      }
      const messages = async (_files: TaskFiles, tools: readonly string[], context: TaskContext): Promise<ChatMessage[]> => {
        const history = await rebuildHistory(
          { stepsBefore: (before, limit) => this.options.repository.stepsBefore(record.id, { before, limit }) },
          { before: last + 1, messages: new Map(conversation.slice(1).map((exchange) => [exchange.firstStep, exchange.message])) },
        );
        return joinUserMessages([
          { role: 'system', content: systemPrompt({ globs: record.files, budgets, tools, rules: context.rules.text }) },
          { role: 'user', content: firstMessage(record.task, record.files, inScope, null, context.map?.text) },
          ...history,
          { role: 'user', content: followUpMessage(message, earlier) },
        ]);
      };
      running.done = this.execute(running, provider, settings, scope, inScope, messages, turnsBefore);
      return { taskId: record.id, status: 'running', estimatedTime: record.estimatedTime };
    } finally {
      this.starting--;
      this.resuming.delete(taskId);
    }
  }

  /**
   * Answers the command a running task waits to run: `once` runs it, `always` also adds it to
   * the commands that run without asking (rememberCommand), `deny` tells the model it was not
   * approved. Who may answer is the caller's to check (only the user: the window). Throws
   * LoomError not_found when the task waits for no such approval (answered, expired, ended),
   * and what rememberCommand throws. Resolves with the task's status.
   */
  async answer(taskId: string, approvalId: string, decision: ApprovalDecision): Promise<AgentTaskInfo> {
    const running = this.running.get(taskId);
    if (!running) await this.record(taskId);
    const pending = running?.approval;
    if (!pending || pending.approvalId !== approvalId) {
      throw new LoomError(
        'not_found',
        `Task ${JSON.stringify(String(taskId).slice(0, 100))} waits for no approval ${JSON.stringify(String(approvalId).slice(0, 100))}: it was answered, it expired, or the task ended.`,
        "The task's status shows the approval it waits for (GET /api/agent/status/:taskId).",
      );
    }
    if (decision === 'always') {
      if (!this.options.rememberCommand) throw new LoomError('bad_request', 'Commands cannot be remembered here: approve it once.');
      this.options.rememberCommand(pending.command);
    }
    pending.settle(decision);
    return this.status(taskId);
  }

  /** A task's status, its changes with their diffs. Throws LoomError not_found. */
  async status(taskId: string): Promise<AgentTaskInfo> {
    const running = this.running.get(taskId);
    if (running) return info(running.record, running.changes.changes(), running.approval);
    const record = await this.record(taskId);
    return info(record, await this.changesOf(taskId));
  }

  /** Tasks, newest first, at most `limit` (default 50, at most 200); `before`: the page after that task. */
  async list(options: { limit?: number; before?: string } = {}): Promise<AgentTaskSummary[]> {
    const records = await this.options.repository.list({
      limit: Math.min(Math.max(1, options.limit ?? 50), 200),
      ...(options.before ? { before: options.before } : {}),
    });
    return Promise.all(
      records.map(async (stored) => {
        const running = this.running.get(stored.id);
        const changes = running ? running.changes.changes() : await this.changesOf(stored.id);
        return { ...info(running?.record ?? stored, [], running?.approval), changes: changes.map(withoutDiff) };
      }),
    );
  }

  /** A task's step log: entries after index `after`, at most `limit`. Throws LoomError not_found. */
  async steps(taskId: string, options: { after?: number; limit?: number } = {}): Promise<AgentStep[]> {
    const running = this.running.get(taskId);
    if (running) await this.flushLog(running);
    else await this.record(taskId);
    return this.options.repository.steps(taskId, { after: Math.max(0, options.after ?? 0), limit: Math.min(Math.max(1, options.limit ?? 100), 500) });
  }

  /**
   * Cancels a running task: the model call under way is aborted at once, and the task ends
   * `cancelled` with the changes it applied (revert them with `revert`). A task that has
   * ended is left as it is. Resolves with its status.
   */
  async cancel(taskId: string): Promise<AgentTaskInfo> {
    const running = this.running.get(taskId);
    if (running) {
      running.controller.abort(new TaskStop('cancelled'));
      await running.done;
    }
    return this.status(taskId);
  }

  /**
   * Undoes every change of a task, as a whole (a running task is cancelled first): refused with
   * RevertConflictError, nothing undone, when a file is no longer as the task left it (edited
   * since, unsaved edits in the editor, or being changed by another task). Reverting twice
   * changes nothing the second time.
   */
  async revert(taskId: string, request: { files?: readonly RevertFileRequest[] } = {}): Promise<AgentTaskInfo> {
    if (request.files !== undefined) return this.revertFiles(taskId, request.files);
    if (this.resuming.has(taskId)) throw taskRunning(taskId);
    if (this.running.has(taskId)) await this.cancel(taskId);
    const record = await this.record(taskId);
    if (record.revertedAt !== null) return this.status(taskId);
    const entries = await this.options.repository.changes(taskId);
    const conflicts = this.revertConflicts(entries);
    if (conflicts.length) {
      throw new RevertConflictError(
        `${conflicts.join(', ')} ${conflicts.length === 1 ? 'is' : 'are'} no longer as the task left ${conflicts.length === 1 ? 'it' : 'them'}; nothing was reverted.`,
        conflicts,
      );
    }
    // Checked and undone in one synchronous pass: nothing else can change the files in between.
    // Newest entries first, so that a path freed by a later change is free again for an earlier one.
    const saves: Promise<void>[] = [];
    const { files } = this.options;
    for (const entry of [...entries].sort((a, b) => b.id - a.id)) {
      if (entry.origin === null) saves.push(files.remove(entry.path));
      else if (entry.after === null) saves.push(files.write(entry.origin, entry.before!));
      else {
        if (entry.origin !== entry.path) saves.push(files.rename(entry.path, entry.origin));
        if (entry.before !== entry.after) saves.push(files.write(entry.origin, entry.before!));
      }
    }
    await Promise.all(saves);
    await this.options.repository.update(taskId, { revertedAt: this.now() });
    return this.status(taskId);
  }

  /**
   * One file the task changed, both sides in full (the status's diffs are cut), with the version
   * a revert of some of its hunks is counted on and whether the file changed since the task left
   * it. Throws LoomError not_found for a task or file it does not know.
   *
   * @example
   *   const { original, current, version } = await agents.change('task_…', 'src/math.ts');
   */
  async change(taskId: string, file: string): Promise<ChangeTexts> {
    await this.record(taskId);
    const entry = changedEntry(await this.options.repository.changes(taskId), file);
    const [change] = describeEntry(entry);
    return {
      file: change!.file,
      action: change!.action,
      ...(change!.from !== undefined ? { from: change!.from } : {}),
      original: entry.before,
      current: entry.after,
      version: changeVersion(entry),
      changedSince: this.running.has(taskId) || this.revertConflicts([entry]).length > 0,
    };
  }

  /**
   * Undoes some of a task's changes: whole files, or some hunks of a file (what a review
   * rejects), the rest kept as the task's changes. The task must have ended (TASK_RUNNING
   * otherwise: its model would go on from files it no longer sees). Everything is checked before
   * anything is written — each file as the task left it, each `version` the task's text now,
   * each hunk inside the texts — and refused as a whole (RevertConflictError, or LoomError
   * validation_error / not_found). A task reverted as a whole already is left as it is.
   */
  private async revertFiles(taskId: string, requested: readonly RevertFileRequest[]): Promise<AgentTaskInfo> {
    const notRunning = () => {
      if (!this.running.has(taskId) && !this.resuming.has(taskId)) return;
      throw new LoomError(
        'task_running',
        `Task ${JSON.stringify(String(taskId).slice(0, 100))} is running: some of its changes can be reverted once it has ended.`,
        'Wait for its agent:complete, or cancel it (POST /api/agent/cancel/:taskId), then revert; a revert without files cancels it and undoes everything.',
      );
    };
    notRunning();
    const record = await this.record(taskId);
    if (record.revertedAt !== null) return this.status(taskId);
    const entries = await this.options.repository.changes(taskId);
    // Again after the reads: a follow-up may have started meanwhile. From here to the writes nothing waits.
    notRunning();
    const seen = new Set<string>();
    const plan = requested.map((request) => {
      if (seen.has(request.file)) throw new LoomError('validation_error', `${request.file} is listed twice.`, 'List each file once, with all its hunks.');
      seen.add(request.file);
      const entry = changedEntry(entries, request.file);
      if (request.hunks && (entry.before === null || entry.after === null)) {
        throw new LoomError(
          'validation_error',
          `${request.file} was ${entry.before === null ? 'created' : 'deleted'} by the task: it has no hunks to undo apart.`,
          'Revert it whole (leave out hunks).',
        );
      }
      if (request.hunks && request.version === undefined) {
        throw new LoomError(
          'validation_error',
          `Hunks of ${request.file} need the version they were counted on.`,
          'Send the version GET /api/agent/change/:taskId answered.',
        );
      }
      return { entry, request };
    });
    const stale = plan.filter(({ entry, request }) => request.version !== undefined && request.version !== changeVersion(entry)).map(({ entry }) => entry.path);
    const conflicts = [...new Set([...stale, ...this.revertConflicts(plan.map(({ entry }) => entry))])];
    if (conflicts.length) {
      throw new RevertConflictError(
        `${conflicts.join(', ')} ${conflicts.length === 1 ? 'is' : 'are'} no longer as the task left ${conflicts.length === 1 ? 'it' : 'them'} (or as the request saw ${conflicts.length === 1 ? 'it' : 'them'}); nothing was reverted.`,
        conflicts,
      );
    }
    // Every hunk is checked (and each new text made) before any file is touched.
    const texts = new Map(
      plan.flatMap(({ entry, request }) => (request.hunks ? [[entry.id, revertHunks(entry.before!, entry.after!, request.hunks, request.file)] as const] : [])),
    );
    // Checked and undone in one synchronous pass, as a whole revert is; newest entries first.
    const saves: Promise<void>[] = [];
    const { files, repository } = this.options;
    const records: Promise<void>[] = [];
    for (const { entry } of [...plan].sort((a, b) => b.entry.id - a.entry.id)) {
      const text = texts.get(entry.id);
      if (text !== undefined) {
        if (text !== entry.after) saves.push(files.write(entry.path, text));
        records.push(repository.saveChange(taskId, { ...entry, after: text }));
      } else if (entry.origin === null) {
        saves.push(files.remove(entry.path));
        records.push(repository.deleteChange(taskId, entry.id));
      } else {
        if (entry.after === null) saves.push(files.write(entry.origin, entry.before!));
        else {
          if (entry.origin !== entry.path) saves.push(files.rename(entry.path, entry.origin));
          if (entry.before !== entry.after) saves.push(files.write(entry.origin, entry.before!));
        }
        records.push(repository.saveChange(taskId, { ...entry, path: entry.origin, after: entry.before }));
      }
    }
    await Promise.all([...saves, ...records]);
    return this.status(taskId);
  }

  /** Stops every running task (they end failed, `interrupted`, their changes kept) and waits for their records. */
  async close(): Promise<void> {
    this.closed = true;
    const tasks = [...this.running.values()];
    for (const task of tasks) task.controller.abort(new TaskStop('interrupted'));
    await Promise.all(tasks.map((task) => task.done));
  }

  /** The model a request names, or the default; refused with a hint when it cannot chat. */
  private chatProvider(model: string | undefined): ChatProvider & { name: string } {
    if (model !== undefined && (typeof model !== 'string' || model.length > 200)) throw new LoomError('validation_error', 'model must be a model name.');
    try {
      return this.options.providers.selectChat(model?.trim() || undefined);
    } catch (error) {
      if (!(error instanceof LoomError) || error.code !== 'bad_request') throw error;
      // The providers' hint says which models can chat, or where to set one up on this server.
      throw new LoomError('bad_request', `${error.message} Agents need a model that can chat.`, error.hint);
    }
  }

  private async filesInScope(scope: GlobSet): Promise<WalkedFile[]> {
    const found = new Set<string>();
    for (const base of scope.bases()) {
      const { files } = await walkFiles(this.options.files.paths, base, (path) => scope.matches(path), { limit: SCOPE_FILES });
      for (const file of files) found.add(file);
    }
    return withSizes(this.options.files.paths, [...found]);
  }

  /**
   * Runs a started task's loop to its end and records the end. `messages` makes what the model
   * is told first (for a follow-up, the conversation rebuilt). Never rejects.
   */
  private async execute(
    task: RunningTask,
    provider: ChatProvider,
    settings: AgentSettings,
    scope: GlobSet,
    inScope: readonly WalkedFile[],
    messages: (files: TaskFiles, tools: readonly string[], context: TaskContext) => Promise<ChatMessage[]>,
    turnsBefore = 0,
  ): Promise<void> {
    const { record } = task;
    let end: LoopEnd;
    try {
      const files = new TaskFiles({
        taskId: record.id,
        files: this.options.files,
        scope,
        locks: this.locks,
        changes: task.changes,
        onChange: (change) => this.saveChange(record.id, change),
      });
      // The commands that run without asking are read at each call: one approved `always` joins them at once.
      const commands = new CommandRunner({
        cwd: this.options.files.root,
        allowed: () => this.options.settings().commands,
        timeoutMs: settings.commandTimeoutSeconds * 1000,
        secrets: this.options.secrets(),
      });
      const intel = this.options.intel?.();
      const toolbox = new Toolbox(commands, intel);
      // The rules and the map, logged (when there are any) before the run's first turn; they are
      // prompt text, not history: a follow-up makes them anew.
      const { task: words } = record;
      const latest = record.conversation.at(-1)?.message ?? words;
      const context = await taskContext({
        files: this.options.files,
        intel,
        task: latest === words ? words : `${words}\n${latest}`,
        inScope,
        mapTokens: settings.mapTokens,
        rulesTokens: settings.rulesTokens,
      });
      const { step } = context;
      if (step.rules.length || step.skippedRules || step.map)
        await this.logStep(task, { kind: 'notice', turn: turnsBefore + 1, text: describeContext(step), context: step });
      const checks = intel?.languages
        ? new EditChecks({ languages: intel.languages, index: intel.index, exists: (path) => exists(this.options.files, path), waitMs: intel.languages.waitMs })
        : undefined;
      end = await runLoop({
        provider,
        conversation: record.id,
        toolbox,
        context: {
          files,
          workspace: this.options.files,
          approve: (command) => this.askApproval(task, command),
          ...(intel ? { intel } : {}),
          ...(checks ? { checks } : {}),
        },
        messages: await messages(files, toolbox.names(), context),
        budgets: record.budgets,
        clock: this.clock,
        startedAt: task.startedAt,
        turnsBefore,
        signal: task.controller.signal,
        record: (step) => this.logStep(task, step),
        onTurn: (result) => this.speeds.observe(record.model, result),
      });
    } catch (error) {
      // Loom itself failed (its store, a bug): the whole failure to the server's log (a step log that
      // could not be written was told already), a short message to the task's status.
      if (error !== task.logFailure) this.options.log?.error(`agent task ${record.id} failed inside Loom; it ends with reason error`, error);
      end = { reason: 'error', error: error instanceof Error ? error.message : String(error) };
    }
    this.locks.releaseAll(record.id);
    await this.finish(task, end);
  }

  /**
   * Asks the user to approve `command` and waits: `agent:approval` is emitted (and again with the
   * decision once it is settled), the status shows it, and `answer` settles it; unanswered within
   * `approvalTimeoutSeconds` it is denied. A command denied before in this run, or any once a
   * request expired, is refused without asking. Rejects with the task's stop reason when the
   * task is cancelled or interrupted meanwhile.
   */
  private async askApproval(task: RunningTask, command: string): Promise<ApprovalOutcome> {
    if (task.unanswered) return { approved: false, why: 'not_answering' };
    if (task.denied.has(command)) return { approved: false, why: 'denied_before' };
    const { signal } = task.controller;
    if (signal.aborted) throw signal.reason;
    const seconds = this.options.settings().approvalTimeoutSeconds;
    const now = this.clock.now();
    let settled!: (end: ApprovalEnd) => void;
    const ended = new Promise<ApprovalEnd>((resolve) => (settled = resolve));
    const approval: PendingApproval = {
      approvalId: `appr_${randomBytes(12).toString('hex')}`,
      command,
      cwd: this.options.files.root,
      askedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + seconds * 1000).toISOString(),
      settle: (end) => {
        if (task.approval === approval) task.approval = undefined;
        settled(end);
      },
    };
    task.approval = approval;
    const timer = setTimeout(() => approval.settle('expired'), seconds * 1000);
    const onStop = () => approval.settle('cancelled');
    signal.addEventListener('abort', onStop, { once: true });
    const { settle: _settle, ...asked } = approval;
    await this.options.events.emit('agent:approval', { taskId: task.record.id, ...asked }).catch(() => {});
    let end: ApprovalEnd;
    try {
      end = await ended;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onStop);
    }
    void this.options.events.emit('agent:approval', { taskId: task.record.id, approvalId: approval.approvalId, command, decision: end }).catch(() => {});
    switch (end) {
      case 'cancelled':
        throw signal.reason;
      case 'deny':
        task.denied.add(command);
        return { approved: false, why: 'denied' };
      case 'expired':
        task.unanswered = true;
        return { approved: false, why: 'expired', seconds };
      default:
        return { approved: true, how: end };
    }
  }

  /**
   * Numbers, dates, logs and announces a step; a model turn also moves the task's counters and
   * writes the log so far. Throws the store's failure to write an earlier step.
   */
  private async logStep(task: RunningTask, input: StepInput): Promise<void> {
    if (task.logFailure !== undefined) throw task.logFailure;
    const { record } = task;
    const step: AgentStep = {
      ...input,
      index: ++task.logged,
      at: this.now(),
      text: trimText(input.text),
      ...(input.arguments !== undefined ? { arguments: trimText(input.arguments) } : {}),
      // A step's diff is for watching; the task's changes keep every line.
      ...(input.diff !== undefined ? { diff: cutDiff(input.diff, STEP_DIFF_CHARS) } : {}),
    };
    task.unlogged.push(step);
    if (input.kind === 'model') {
      record.steps = input.turn;
      record.tokens += (input.tokens?.prompt ?? 0) + (input.tokens?.completion ?? 0);
      if (input.text.trim() !== '') record.summary = trimText(input.text.trim());
      task.unloggedUpdate = { steps: record.steps, tokens: record.tokens, summary: record.summary };
      void this.flushLog(task);
    }
    void this.options.events
      .emit('agent:step', {
        taskId: record.id,
        index: step.index,
        turn: step.turn,
        kind: step.kind,
        ...(step.tool !== undefined ? { tool: step.tool, ok: step.ok } : {}),
        text: trimText(input.text, EVENT_TEXT_CHARS),
        ...(step.diff !== undefined ? { diff: step.diff } : {}),
        ...(step.diagnostics !== undefined ? { diagnostics: step.diagnostics } : {}),
        ...(step.context !== undefined ? { context: step.context } : {}),
        steps: record.steps,
        tokens: record.tokens,
      })
      .catch(() => {});
  }

  /** Writes the steps not written yet, after the writes under way; resolves when all are written (or failed). */
  private flushLog(task: RunningTask): Promise<void> {
    if (task.unlogged.length === 0) return task.log;
    const steps = task.unlogged.splice(0);
    const update = task.unloggedUpdate;
    task.unloggedUpdate = undefined;
    task.log = task.log
      .then(() => this.options.repository.addSteps(task.record.id, steps, update))
      .catch((error: unknown) => {
        if (task.logFailure !== undefined) return;
        task.logFailure = error;
        this.options.log?.error(`the step log of agent task ${task.record.id} could not be written; the task ends with reason error`, error);
      });
    return task.log;
  }

  private async saveChange(taskId: string, change: ChangeRecord): Promise<void> {
    if ('gone' in change) await this.options.repository.deleteChange(taskId, change.id);
    else await this.options.repository.saveChange(taskId, change);
  }

  /**
   * Records a task's end, lets its slot go and announces it. A step log the store failed to
   * write ends the task with reason `error` whatever its loop ended with: a task whose record
   * is missing steps never reads as a success.
   */
  private async finish(task: RunningTask, loopEnd: LoopEnd): Promise<void> {
    const { record } = task;
    await this.flushLog(task);
    const end: LoopEnd =
      task.logFailure === undefined
        ? loopEnd
        : {
            ...loopEnd,
            reason: 'error',
            error: `The step log could not be written, so the task was stopped: ${task.logFailure instanceof Error ? task.logFailure.message : String(task.logFailure)}`,
          };
    const update: AgentTaskUpdate = {
      status: statusOf(end.reason),
      reason: end.reason,
      endedAt: this.now(),
      // Public (the status, agent:complete): the server's own folders hidden, and short.
      error: end.error === undefined ? null : publicError(end.error),
      summary: end.summary !== undefined ? trimText(end.summary) : record.summary,
    };
    Object.assign(record, update);
    try {
      await this.options.repository.update(record.id, update);
    } catch (error) {
      // The store is gone: the end is still announced; on the next start the task is found
      // running and ends interrupted, its changes kept.
      this.options.log?.error(`the end of agent task ${record.id} could not be recorded; it ends interrupted on the next start`, error);
    }
    this.running.delete(record.id);
    await this.announceEnd(record, task.changes.changes()).catch(() => {});
  }

  private async announceEnd(record: AgentTaskRecord, changes: AgentChange[]): Promise<void> {
    await this.options.events.emit('agent:complete', {
      taskId: record.id,
      status: record.status,
      reason: record.reason,
      ...(record.error ? { error: record.error } : {}),
      summary: record.summary,
      steps: record.steps,
      tokens: record.tokens,
      changes: changes.map(withoutDiff),
    });
  }

  /** The files among a task's entries that are not as it left them (see revert). */
  private revertConflicts(entries: readonly ChangeEntry[]): string[] {
    const { files } = this.options;
    const occupied = new Set(entries.filter((entry) => entry.after !== null).map((entry) => entry.path));
    const conflicts = new Set<string>();
    const expect = (path: string, content: string | null) => {
      let as: boolean;
      try {
        as = files.read(path) === content && (content === null || !files.hasUnsavedEdits(path));
      } catch {
        as = false; // unreadable now (a folder in its place, a binary file): not as the task left it
      }
      if (!as || this.locks.holder(path) !== undefined) conflicts.add(path);
    };
    for (const entry of entries) {
      if (entry.after !== null) expect(entry.path, entry.after);
      else if (!occupied.has(entry.path)) expect(entry.path, null);
      if (entry.origin !== null && entry.origin !== entry.path && !occupied.has(entry.origin)) expect(entry.origin, null);
    }
    return [...conflicts];
  }

  private async changesOf(taskId: string): Promise<AgentChange[]> {
    return (await this.options.repository.changes(taskId)).flatMap(describeEntry);
  }

  private async record(taskId: string): Promise<AgentTaskRecord> {
    const record = typeof taskId === 'string' && taskId.length <= 100 ? await this.options.repository.get(taskId) : undefined;
    if (!record)
      throw new LoomError(
        'not_found',
        `There is no agent task ${JSON.stringify(String(taskId).slice(0, 100))}.`,
        'GET /api/agent/tasks (loom agent list) lists them.',
      );
    return record;
  }

  /** Seconds until the running task expected to end first does; OVERDUE_RETRY_SECONDS for one past its estimate. */
  private retryAfter(): number {
    const now = this.clock.now();
    const ends = [...this.running.values()].map((task) => Math.ceil((task.startedAt + task.record.estimatedTime * 1000 - now) / 1000));
    return Math.min(...ends.map((seconds) => (seconds > 0 ? seconds : OVERDUE_RETRY_SECONDS)));
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

/** Whether the workspace has a file at `path` (for the diagnostics checks: a deleted file has none of its own). */
function exists(files: AgentFiles, path: string): boolean {
  try {
    return files.read(path) !== null;
  } catch {
    return false;
  }
}

/** The entry of a change the task made to `file` (its path now; a deleted file's path). Throws LoomError not_found. */
function changedEntry(entries: readonly ChangeEntry[], file: string): ChangeEntry {
  const entry = entries.find((candidate) => describeEntry(candidate)[0]?.file === file);
  if (!entry) {
    throw new LoomError(
      'not_found',
      `${JSON.stringify(String(file).slice(0, 200))} is not among the task's changes.`,
      "The task's status lists them (changes[].file).",
    );
  }
  return entry;
}

function withoutDiff({ diff: _diff, ...change }: AgentChange): AgentChangeSummary {
  return change;
}

/** A task's state in memory while it runs (from its start, or from a follow-up message). */
function runningTask(record: AgentTaskRecord, changes: ChangeLog, startedAt: number, logged: number): RunningTask {
  return {
    record,
    controller: new AbortController(),
    changes,
    done: Promise.resolve(),
    logged,
    unlogged: [],
    log: Promise.resolve(),
    startedAt,
    denied: new Set(),
    unanswered: false,
  };
}

function taskRunning(taskId: string): LoomError {
  return new LoomError(
    'task_running',
    `Task ${JSON.stringify(String(taskId).slice(0, 100))} is running: a message continues a task that has ended.`,
    'Wait for its agent:complete, or cancel it (POST /api/agent/cancel/:taskId, loom agent cancel), then send the message.',
  );
}

/** A task's exchanges, the last one's end taken from the task (it is the task's own end). */
function exchangesOf(record: AgentTaskRecord): AgentExchange[] {
  return record.conversation.map((exchange, index) =>
    index < record.conversation.length - 1
      ? exchange
      : {
          ...exchange,
          ...(record.endedAt !== null ? { endedAt: record.endedAt } : {}),
          ...(record.reason !== null ? { reason: record.reason } : {}),
          ...(record.summary !== null && record.endedAt !== null ? { summary: record.summary } : {}),
        },
  );
}

/** A record and its changes as the status answers (their diffs cut: see boundedDiffs). */
function info(record: AgentTaskRecord, changes: AgentChange[], approval?: PendingApproval): AgentTaskInfo {
  return {
    taskId: record.id,
    status: record.status,
    task: record.task,
    files: record.files,
    model: record.model,
    budgets: record.budgets,
    estimatedTime: record.estimatedTime,
    steps: record.steps,
    tokens: record.tokens,
    createdAt: record.createdAt,
    ...(record.endedAt !== null ? { endedAt: record.endedAt } : {}),
    ...(record.reason !== null ? { reason: record.reason as EndReason } : {}),
    ...(record.error !== null ? { error: record.error } : {}),
    ...(record.summary !== null ? { summary: record.summary } : {}),
    changes: boundedDiffs(changes),
    ...(record.revertedAt !== null ? { revertedAt: record.revertedAt } : {}),
    conversation: exchangesOf(record),
    ...(approval ? { approval: publicApproval(approval) } : {}),
  };
}

function publicApproval({ settle: _settle, ...approval }: PendingApproval): AgentApproval {
  return approval;
}
