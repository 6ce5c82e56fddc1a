// The agent tasks of a workspace: starting them (checked at once: a task that cannot run is
// refused, never started to fail later), at most MAX_RUNNING at a time, their status, list,
// step log, cancel and revert; events `agent:start`, `agent:step`, `agent:complete`; and their
// record in the store as they go, so that a restart loses nothing that was applied and ended
// tasks stay queryable.
import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../clock.ts';
import type { ChatProvider } from '../completion/chat.ts';
import { LoomError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import { AgentCapacityError, RevertConflictError } from './errors.ts';
import { ModelSpeeds } from './estimate.ts';
import type { AgentFiles } from './files/agent-files.ts';
import { ChangeLog, describeEntry, type ChangeEntry } from './files/change-log.ts';
import { FileLocks } from './files/file-locks.ts';
import { TaskFiles, type ChangeRecord } from './files/task-files.ts';
import { firstMessage, shownContents, systemPrompt } from './loop/prompt.ts';
import { runLoop, TaskStop, type LoopEnd, type StepInput } from './loop/run-loop.ts';
import type { AgentTaskRecord, AgentTaskRepository, AgentTaskUpdate } from './records.ts';
import { GlobSet } from './scope/glob.ts';
import { walkFiles, withSizes, type WalkedFile } from './scope/walk.ts';
import { resolveBudgets, type AgentSettings } from './settings.ts';
import { CommandRunner, Toolbox } from './tools/index.ts';
import {
  statusOf,
  trimText,
  type AgentChange,
  type AgentChangeSummary,
  type AgentRequest,
  type AgentStep,
  type AgentTaskInfo,
  type AgentTaskSummary,
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
/** Characters of a step's diff the log and the agent:step event keep (a created file can be megabytes). */
const STEP_DIFF_CHARS = 16_000;
/** Characters of a step's text an agent:step event carries (the step log has more). */
const EVENT_TEXT_CHARS = 500;

const MODEL_HINT =
  'Point settings.json at an OpenAI-compatible server ("completion": {"openai": {"baseUrl": "http://127.0.0.1:11434/v1", "model": "qwen2.5-coder:7b"}}), or run a local one: `loom models pull Qwen2.5-Coder-7B`, then "completion": {"gguf": {"model": "Qwen2.5-Coder-7B"}}.';

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
  /** The first failure to write the log: the task ends on its next step (reason `error`). */
  logFailure?: unknown;
  /** On the manager's clock. */
  startedAt: number;
}

export class AgentManager {
  private readonly running = new Map<string, RunningTask>();
  /** Slots taken by `run` calls still checking their request. */
  private starting = 0;
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
      };
      await this.options.repository.create(record);
      const running: RunningTask = {
        record,
        controller: new AbortController(),
        changes: new ChangeLog(),
        done: Promise.resolve(),
        logged: 0,
        unlogged: [],
        log: Promise.resolve(),
        startedAt,
      };
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
      running.done = this.execute(running, provider, settings, scope, inScope);
      return { taskId: record.id, status: 'running', estimatedTime: record.estimatedTime };
    } finally {
      if (slotTaken) this.starting--;
    }
  }

  /** A task's status, its changes with their diffs. Throws LoomError not_found. */
  async status(taskId: string): Promise<AgentTaskInfo> {
    const running = this.running.get(taskId);
    if (running) return info(running.record, running.changes.changes());
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
        return { ...info(running?.record ?? stored, []), changes: changes.map(withoutDiff) };
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
  async revert(taskId: string): Promise<AgentTaskInfo> {
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
      if (entry.origin === null) files.remove(entry.path);
      else if (entry.after === null) saves.push(files.write(entry.origin, entry.before!));
      else {
        if (entry.origin !== entry.path) files.rename(entry.path, entry.origin);
        if (entry.before !== entry.after) saves.push(files.write(entry.origin, entry.before!));
      }
    }
    await Promise.all(saves);
    await this.options.repository.update(taskId, { revertedAt: this.now() });
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
      const chatting = error.hint?.startsWith('Models that can chat') ? ` ${error.hint}` : '';
      throw new LoomError('bad_request', `${error.message} Agents need a model that can chat.${chatting}`, MODEL_HINT);
    }
  }

  private async filesInScope(scope: GlobSet): Promise<WalkedFile[]> {
    const found = new Set<string>();
    for (const base of scope.bases()) {
      const { files } = await walkFiles(this.options.files.root, base, (path) => scope.matches(path), { limit: SCOPE_FILES });
      for (const file of files) found.add(file);
    }
    return withSizes(this.options.files.root, [...found]);
  }

  /** Runs a started task's loop to its end and records the end. Never rejects. */
  private async execute(task: RunningTask, provider: ChatProvider, settings: AgentSettings, scope: GlobSet, inScope: readonly WalkedFile[]): Promise<void> {
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
      const commands =
        settings.commands.length > 0
          ? new CommandRunner({
              cwd: this.options.files.root,
              allowed: settings.commands,
              timeoutMs: settings.commandTimeoutSeconds * 1000,
              secrets: this.options.secrets(),
            })
          : undefined;
      const toolbox = new Toolbox(commands);
      end = await runLoop({
        provider,
        conversation: record.id,
        toolbox,
        context: { files, workspace: this.options.files, ...(commands ? { commands } : {}) },
        messages: [
          { role: 'system', content: systemPrompt({ globs: record.files, budgets: record.budgets, tools: toolbox.names() }) },
          { role: 'user', content: firstMessage(record.task, record.files, inScope, shownContents(files, inScope)) },
        ],
        budgets: record.budgets,
        clock: this.clock,
        startedAt: task.startedAt,
        signal: task.controller.signal,
        record: (step) => this.logStep(task, step),
        onTurn: (result) => this.speeds.observe(record.model, result),
      });
    } catch (error) {
      end = { reason: 'error', error: error instanceof Error ? error.message : String(error) };
    }
    this.locks.releaseAll(record.id);
    await this.finish(task, end);
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
      ...(input.diff !== undefined ? { diff: trimText(input.diff, STEP_DIFF_CHARS) } : {}),
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
        task.logFailure ??= error;
      });
    return task.log;
  }

  private async saveChange(taskId: string, change: ChangeRecord): Promise<void> {
    if ('gone' in change) await this.options.repository.deleteChange(taskId, change.id);
    else await this.options.repository.saveChange(taskId, change);
  }

  /** Records a task's end, lets its slot go and announces it. */
  private async finish(task: RunningTask, end: LoopEnd): Promise<void> {
    const { record } = task;
    await this.flushLog(task);
    const update: AgentTaskUpdate = {
      status: statusOf(end.reason),
      reason: end.reason,
      endedAt: this.now(),
      error: end.error ?? null,
      summary: end.summary !== undefined ? trimText(end.summary) : record.summary,
    };
    Object.assign(record, update);
    try {
      await this.options.repository.update(record.id, update);
    } catch {
      // The store is gone: the end is still announced; on the next start the task is found
      // running and ends interrupted, its changes kept.
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

function withoutDiff({ diff: _diff, ...change }: AgentChange): AgentChangeSummary {
  return change;
}

/** A record and its changes as the status answers. */
function info(record: AgentTaskRecord, changes: AgentChange[]): AgentTaskInfo {
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
    changes,
    ...(record.revertedAt !== null ? { revertedAt: record.revertedAt } : {}),
  };
}
