// Runs composer sessions: claims one in the store, prepares its scratch copy, runs plan or
// edit mode with the agent runtime, writes the result and ends it — every write only while
// its claim holds. The store, not the queue, says who runs what (core/jobs/queue.ts): a
// duplicated delivery finds the session claimed and returns; a runner that dies leaves a
// lease that lapses, and the next claim takes the session over from the start, clearing what
// the dead attempt recorded (a pushed branch or a written plan is kept, and not made again). A heartbeat renews the lease and reads the cancel flag, so a
// cancel asked of any process stops the session within one heartbeat.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChangeEntry } from '../agents/files/change-log.ts';
import { ChangeLog } from '../agents/files/change-log.ts';
import { describeEntry } from '../agents/files/change-log.ts';
import { FileLocks } from '../agents/files/file-locks.ts';
import { FolderFiles } from '../agents/files/agent-files.ts';
import { TaskFiles } from '../agents/files/task-files.ts';
import { firstMessage, shownContents, systemPrompt } from '../agents/loop/prompt.ts';
import { runLoop, TaskStop, TURN_MAX_TOKENS, type LoopEnd } from '../agents/loop/run-loop.ts';
import { GlobSet } from '../agents/scope/glob.ts';
import { walkFiles, withSizes, type WalkedFile } from '../agents/scope/walk.ts';
import { publicError } from '../agents/public-error.ts';
import { EditChecks } from '../agents/intel/edit-checks.ts';
import type { AgentIntel } from '../agents/intel/intel.ts';
import { describeContext, taskContext } from '../agents/intel/task-context.ts';
import { Toolbox } from '../agents/tools/index.ts';
import { statusOf, trimText, type AgentBudgets, type EndReason } from '../agents/types.ts';
import { systemClock, type Clock } from '../clock.ts';
import { registerPrivateFolder } from '../files/private-folders.ts';
import type { ChatMessage, ChatProvider } from '../completion/chat.ts';
import type { CodeIntel } from '../code/service.ts';
import { WorkspacePaths, type LoomFolder } from '../workspace/paths.ts';
import type { WorkspaceClones, Worktree } from './clones.ts';
import { continuedPlanTurns, continuedTurns, replayEdits } from './continuation.ts';
import { contentHash } from './hash.ts';
import { askForPlan, planMessages } from './plan.ts';
import type { Claim, ComposerProgress, ComposerSessionRepository, ComposerWorkspaceRepository } from './records.ts';
import type { ComposerEdit, ComposerSessionRecord, ComposerStatus, ComposerWorkspace } from './types.ts';

/** Files of the scope looked at for the prompt. */
const SCOPE_FILES = 10_000;
/** Characters of a step's text an event carries. */
const EVENT_TEXT_CHARS = 500;
/** The cache key of sessions on attachments (a workspace's sessions use its name). */
const ATTACHMENTS_CACHE = '(attachments)';
/**
 * What a session's second or later run clears before it starts: an attempt's result is its
 * own. A follow-up's run starts from the session's edits and counters before the message.
 */
function startedOver(record: ComposerSessionRecord): ComposerProgress {
  return { plan: null, edits: record.startEdits ?? [], branch: null, commit: null, error: null, summary: null, ...countedBefore(record) };
}

/** The session's turns and tokens before this run: a follow-up's count on from them (none for its first run). */
function countedBefore(record: ComposerSessionRecord): { steps: number; tokens: number } {
  const earlier = record.conversation.at(-1)?.earlier;
  return { steps: earlier?.steps ?? 0, tokens: earlier?.tokens ?? 0 };
}

/** A session copy's code index, open while the session runs. */
export interface SessionCodeIndex {
  index: CodeIntel;
  close(): Promise<void>;
}

/**
 * Opens the code index of a session's copy at `folder`. `cacheKey` names what sessions share a
 * cache (the workspace's name; one key for every session on attachments): the index keys parsed
 * content by its hash, so a session finds what an earlier one of the same workspace parsed.
 */
export type OpenSessionCodeIndex = (cacheKey: string, folder: string) => SessionCodeIndex;

/** How long a session waits for its copy's first index build before its model starts (the build goes on meanwhile). */
const INDEX_WAIT_MS = 30_000;

export interface ComposerRunnerOptions {
  sessions: ComposerSessionRepository;
  workspaces: ComposerWorkspaceRepository;
  /** Picks the model (ProviderSet.selectChat): the server's default chat model. */
  providers: { selectChat(model?: string): ChatProvider & { name: string } };
  /** Where scratch copies (`scratch/`), clones and worktrees live: under the data dir. */
  folder: string;
  /** Loom's own folders, protected in a session's copy should one lie inside it (config/folders.ts). */
  loomFolders?: readonly LoomFolder[];
  /** This runner's name in claims; random by default. */
  runnerId?: string;
  /** How long a claim holds without a heartbeat; 60 s by default. */
  leaseMs?: number;
  /** How often the lease is renewed and the cancel flag read; a third of the lease, at most 2 s, by default. */
  heartbeatMs?: number;
  /** Sessions one user may have running; a session beyond stays queued until one ends. */
  maxRunningPerUser?: () => number;
  clock?: Clock;
  /** The clones of registered workspaces and the sessions' worktrees (git: src/adapters/git/clones.ts, given by compose). */
  clones: WorkspaceClones;
  /**
   * Indexes each session's copy with the code index, so that the agents' code tools work there;
   * without it a session has the file tools only.
   */
  codeIndex?: OpenSessionCodeIndex;
  /** How long a session waits for its copy's first index build; 30 s by default. */
  indexWaitMs?: number;
  /**
   * What a session may know of the code of its scratch copy (over its code index, when
   * `codeIndex` gave one), made when its edit mode starts and closed when it ends; undefined (or
   * no function) when there is none: the first turn then lists the files, and the code tools are
   * not offered.
   */
  codeIntel?(copy: { sessionId: string; folder: string; signal: AbortSignal; index?: CodeIntel }): Promise<ScratchIntel | undefined>;
  /** Tokens of the first turn's repository map and of the rules files (agents.mapTokens, agents.rulesTokens). */
  contextTokens?: { map?: number; rules?: number };
}

/** A scratch copy's code intelligence, closed when the session's work on it ends. */
export interface ScratchIntel {
  intel: AgentIntel;
  close(): Promise<void>;
}

/** Why a run stopped from outside, beyond a TaskStop's reasons. */
class ClaimLost extends Error {
  override name = 'ClaimLost';
}

interface Held {
  id: string;
  claim: Claim;
  controller: AbortController;
  /** Set when the claim was lost: nothing more is written. */
  lost: boolean;
}

/**
 * Runs composer sessions by id; what `loom hosted` (in-process queue) and `loom worker`
 * (BullMQ) hand their jobs to.
 *
 * @example
 * const runner = new ComposerRunner({ sessions: store.composerSessions, workspaces: store.composerWorkspaces, providers, folder: path.join(dataDir, 'composer') });
 * queue.process((job, signal) => runner.run(job.id, signal), { concurrency: 2 });
 */
export class ComposerRunner {
  readonly runnerId: string;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private readonly clock: Clock;
  private readonly clones: WorkspaceClones;
  private readonly held = new Map<string, Held>();

  constructor(private readonly options: ComposerRunnerOptions) {
    this.runnerId = options.runnerId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.heartbeatMs = options.heartbeatMs ?? Math.min(2_000, Math.floor(this.leaseMs / 3));
    this.clock = options.clock ?? systemClock;
    this.clones = options.clones;
    registerPrivateFolder(options.folder, '<composer folder>');
  }

  /**
   * Runs a session to its end when it can be claimed (queued, or its runner's lease lapsed);
   * returns at once otherwise. When `signal` aborts (the queue closes), the session stops and
   * is handed back: queued again, for any runner. Never rejects for the session's own failures
   * (they end it `failed`); rejects when the store cannot be reached.
   *
   * Answers whether it claimed the session: false when another runner has it, it has ended, or
   * its user has `maxRunningPerUser` running. Only a run that claimed frees a user's slot, so
   * only then is it worth looking for a held-back session (looking after a refused claim would
   * find the same session and go round without end).
   */
  async run(sessionId: string, signal?: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const limits = this.options.maxRunningPerUser ? { maxRunningPerUser: this.options.maxRunningPerUser() } : {};
    const claimed = await this.options.sessions.claim(sessionId, this.runnerId, now, now + this.leaseMs, limits);
    if (!claimed) return false;
    const { record, claim } = claimed;
    const held: Held = { id: sessionId, claim, controller: new AbortController(), lost: false };
    this.held.set(sessionId, held);
    const handBack = () => held.controller.abort(new TaskStop('interrupted'));
    if (signal?.aborted) handBack();
    signal?.addEventListener('abort', handBack, { once: true });
    const heartbeat = setInterval(() => void this.heartbeat(held), this.heartbeatMs);
    heartbeat.unref?.();
    try {
      await this.execute(record, held);
    } finally {
      clearInterval(heartbeat);
      signal?.removeEventListener('abort', handBack);
      this.held.delete(sessionId);
    }
    return true;
  }

  /** Stops a session this process runs, at once (a cancel asked here); false when it runs elsewhere or not at all. */
  cancelHere(sessionId: string): boolean {
    const held = this.held.get(sessionId);
    if (!held) return false;
    held.controller.abort(new TaskStop('cancelled'));
    return true;
  }

  /** Sessions this runner holds now. */
  running(): number {
    return this.held.size;
  }

  private async heartbeat(held: Held): Promise<void> {
    try {
      const renewed = await this.options.sessions.renew(held.id, held.claim, this.clock.now() + this.leaseMs);
      if (!renewed) {
        held.lost = true;
        held.controller.abort(new ClaimLost('another runner took the session over'));
      } else if (renewed.cancelRequested) held.controller.abort(new TaskStop('cancelled'));
    } catch {
      // The store did not answer: try again on the next beat; the lease covers a few misses.
    }
  }

  private async execute(record: ComposerSessionRecord, held: Held): Promise<void> {
    const { sessions } = this.options;
    const write = async (progress: ComposerProgress, last?: { type: string; data: Record<string, unknown> }) => {
      if (held.lost || !(await sessions.update(record.id, held.claim, progress, last && { ...last, at: this.now() }))) {
        held.lost = true;
        throw new ClaimLost('the claim was lost');
      }
    };
    const event = async (type: string, data: Record<string, unknown>) => {
      if (held.lost) throw new ClaimLost('the claim was lost');
      const seq = await sessions.appendEvent(record.id, { type, data, at: this.now() }, held.claim);
      if (seq === undefined) {
        held.lost = true;
        throw new ClaimLost('the claim was lost');
      }
    };
    let workspace: ComposerWorkspace | undefined;
    let tree: Worktree | undefined;
    let scratch: string | undefined;
    let code: SessionCodeIndex | undefined;
    // A session's error is public: its files are named as in the session (relative to its copy),
    // the server's folders not at all, and it is short.
    const end = (status: Exclude<ComposerStatus, 'queued' | 'running'>, error: string | null, summary?: string) =>
      this.end(write, status, error === null ? null : publicError(error, scratch ? [{ folder: scratch, shownAs: '' }] : []), summary);
    try {
      // Taken over after the branch was pushed, or after the plan was written (with its event,
      // in one transaction): the work is done, only its end was not written.
      if (record.pushed && record.edits) return await end('completed', null);
      if (record.mode === 'plan' && record.plan) return await end('completed', null);
      // Cancelled while its runner was gone: end it without starting again.
      if (record.cancelRequested) return await end('cancelled', null);
      if (held.controller.signal.aborted) throw held.controller.signal.reason;
      const provider = this.options.providers.selectChat();
      // A takeover starts over from a fresh copy: what an earlier attempt recorded is not this one's result.
      await write({ startedAt: this.now(), model: provider.name, ...(record.attempt > 1 ? startedOver(record) : {}) });
      await event('status', { status: 'running', attempt: held.claim.attempt, model: provider.name });
      if (record.workspace !== null) {
        workspace = await this.options.workspaces.get(record.workspace);
        if (!workspace) return await end('failed', `The workspace ${record.workspace} is no longer registered.`);
        // A follow-up starts from the commit the session first started from, not the branch's newest.
        tree = await this.clones.checkout(workspace, `loom/composer/${record.id}`, held.controller.signal, record.base ?? undefined);
        scratch = tree.path;
        if (record.base === null) await write({ base: tree.base });
      } else {
        scratch = this.attachmentsCopy(record);
      }
      const files = new FolderFiles(this.workspacePaths(scratch));
      // Before the index: the copy holds the session's earlier result when the model starts.
      const changes = await replayEdits(files, record.startEdits ?? []);
      code = await this.indexCopy(record, scratch, held.controller.signal);
      const scope = new GlobSet(record.files);
      const inScope = await filesInScope(files.paths, scope);
      if (record.mode === 'plan') {
        const before = countedBefore(record);
        const { plan, result } = await askForPlan(
          provider,
          [...planMessages(record.prompt, record.files, inScope, (file) => safeRead(files, file)), ...continuedPlanTurns(record.conversation)],
          Math.min(TURN_MAX_TOKENS, record.budgets.maxTokens),
          AbortSignal.any([held.controller.signal, AbortSignal.timeout(record.budgets.timeoutSeconds * 1000)]),
        );
        // The plan and its event together: a takeover finds both or neither.
        await write(
          {
            plan,
            steps: before.steps + 1,
            tokens: before.tokens + result.usage.promptTokens + result.usage.completionTokens,
            summary: trimText(plan.summary),
          },
          { type: 'plan', data: { plan } },
        );
        return await end('completed', null);
      }
      const loopEnd = await this.edit(record, held, provider, files, changes, scope, inScope, write, event, code?.index);
      if (loopEnd.reason === 'interrupted' || held.lost) throw held.controller.signal.reason ?? new TaskStop('interrupted');
      const status = statusOf(loopEnd.reason);
      if (status === 'completed' && workspace && tree) {
        const commit = await this.clones.commit(workspace, tree, `Loom composer: ${record.prompt.split('\n')[0]!.slice(0, 72)}\n\nSession ${record.id}`);
        await write({ branch: tree.branch, ...(commit ? { commit } : {}) });
        if (commit && workspace.push) {
          await this.clones.push(workspace, tree.branch, held.controller.signal);
          await write({ pushed: true });
          await event('push', { branch: tree.branch, commit });
        }
      }
      await end(status, loopEnd.error ?? (status === 'failed' ? stoppedBecause(loopEnd.reason, record.budgets) : null), loopEnd.summary);
    } catch (error) {
      const reason = held.controller.signal.reason ?? error;
      if (held.lost || reason instanceof ClaimLost) return; // another runner has it now
      if (reason instanceof TaskStop && reason.reason === 'interrupted') {
        // The queue is closing: hand the session back for any runner to start again.
        await this.options.sessions.release(record.id, held.claim).catch(() => {});
        return;
      }
      if (reason instanceof TaskStop && reason.reason === 'cancelled') {
        await end('cancelled', null).catch(() => {});
        return;
      }
      await end('failed', error instanceof Error ? error.message : String(error)).catch(() => {});
    } finally {
      await code?.close().catch(() => {});
      if (tree && workspace) await this.clones.release(workspace, tree).catch(() => {});
      else if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    }
  }

  /** Edit mode: the agent loop over the scratch copy; each change recorded as an edit as it is made. */
  private async edit(
    record: ComposerSessionRecord,
    held: Held,
    provider: ChatProvider,
    files: FolderFiles,
    changes: ChangeLog,
    scope: GlobSet,
    inScope: readonly WalkedFile[],
    write: (progress: ComposerProgress) => Promise<void>,
    event: (type: string, data: Record<string, unknown>) => Promise<void>,
    code: CodeIntel | undefined,
  ): Promise<LoopEnd> {
    const taskFiles = new TaskFiles({
      taskId: record.id,
      files,
      scope,
      locks: new FileLocks(),
      changes,
      onChange: async (change) => {
        // The index follows the copy before the model's next turn: the code tools see the session's own edits.
        if (code)
          await (
            'gone' in change ? code.refresh() : code.update([change.path, ...(change.origin !== null && change.origin !== change.path ? [change.origin] : [])])
          ).catch(() => {});
        const edits = changes.all().flatMap(toEdits);
        await write({ edits });
        if (!('gone' in change)) await event('edit', { file: change.path, action: edits.find((edit) => edit.file === change.path)?.action ?? 'modified' });
      },
    });
    const scratch = await this.options
      .codeIntel?.({ sessionId: record.id, folder: files.root, signal: held.controller.signal, ...(code ? { index: code } : {}) })
      .catch(() => undefined);
    try {
      const intel = scratch?.intel;
      const toolbox = new Toolbox(undefined, intel);
      const shown = shownContents(taskFiles, inScope);
      const context = await taskContext({
        files,
        intel,
        task: record.prompt,
        inScope,
        mapTokens: this.options.contextTokens?.map,
        rulesTokens: this.options.contextTokens?.rules,
      });
      if (context.step.rules.length || context.step.map)
        await event('step', { turn: 1, kind: 'notice', text: trimText(describeContext(context.step), EVENT_TEXT_CHARS), context: context.step });
      const checks = intel?.languages
        ? new EditChecks({ languages: intel.languages, index: intel.index, exists: (path) => safeRead(files, path) !== null, waitMs: intel.languages.waitMs })
        : undefined;
      return await this.loop(
        record,
        held,
        provider,
        toolbox,
        taskFiles,
        files,
        checks,
        intel,
        [
          { role: 'system', content: systemPrompt({ globs: record.files, budgets: record.budgets, tools: toolbox.names(), rules: context.rules.text }) },
          { role: 'user', content: firstMessage(record.prompt, record.files, inScope, shown, context.map?.text) },
          ...continuedTurns(record.conversation, changes.changes()),
        ],
        write,
        event,
      );
    } finally {
      await scratch?.close().catch(() => {});
    }
  }

  /** The agent loop of a session's edit mode, its steps written as progress and events. */
  private loop(
    record: ComposerSessionRecord,
    held: Held,
    provider: ChatProvider,
    toolbox: Toolbox,
    taskFiles: TaskFiles,
    files: FolderFiles,
    checks: EditChecks | undefined,
    intel: AgentIntel | undefined,
    messages: ChatMessage[],
    write: (progress: ComposerProgress) => Promise<void>,
    event: (type: string, data: Record<string, unknown>) => Promise<void>,
  ): Promise<LoopEnd> {
    let { steps, tokens } = countedBefore(record);
    const turnsBefore = steps;
    let summary: string | null = null;
    return runLoop({
      provider,
      conversation: record.id,
      toolbox,
      context: { files: taskFiles, workspace: files, ...(intel ? { intel } : {}), ...(checks ? { checks } : {}) },
      messages,
      budgets: record.budgets,
      clock: this.clock,
      startedAt: this.clock.now(),
      signal: held.controller.signal,
      record: async (step) => {
        if (step.kind === 'model') {
          steps = turnsBefore + step.turn;
          tokens += (step.tokens?.prompt ?? 0) + (step.tokens?.completion ?? 0);
          if (step.text.trim() !== '') summary = trimText(step.text.trim());
          await write({ steps, tokens, summary });
        }
        await event('step', {
          turn: turnsBefore + step.turn,
          kind: step.kind,
          ...(step.tool !== undefined ? { tool: step.tool, ok: step.ok } : {}),
          text: trimText(step.text, EVENT_TEXT_CHARS),
          ...(step.diagnostics ? { diagnostics: step.diagnostics } : {}),
        });
      },
    });
  }

  /**
   * Opens the code index of the session's copy and waits for its first build, at most
   * `indexWaitMs` (a large copy goes on building while the model works; the code tools answer
   * from what is indexed so far). A failure to index leaves the session with the file tools.
   */
  private async indexCopy(record: ComposerSessionRecord, folder: string, signal: AbortSignal): Promise<SessionCodeIndex | undefined> {
    if (!this.options.codeIndex) return undefined;
    let code: SessionCodeIndex;
    try {
      code = this.options.codeIndex(record.workspace ?? ATTACHMENTS_CACHE, folder);
    } catch {
      return undefined;
    }
    const built = code.index.refresh({ signal }).then(
      () => undefined,
      () => undefined,
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([built, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.indexWaitMs ?? INDEX_WAIT_MS)))]);
    clearTimeout(timer);
    return code;
  }

  /** Writes the session's end and its last event. */
  private async end(
    write: (progress: ComposerProgress, last?: { type: string; data: Record<string, unknown> }) => Promise<void>,
    status: Exclude<ComposerStatus, 'queued' | 'running'>,
    error: string | null,
    summary?: string,
  ): Promise<void> {
    await write(
      { status, endedAt: this.now(), error, ...(summary !== undefined ? { summary: trimText(summary) } : {}) },
      { type: 'status', data: { status, ...(error ? { error } : {}) } },
    );
  }

  /** A fresh folder holding the session's attachments. */
  private attachmentsCopy(record: ComposerSessionRecord): string {
    const folder = path.join(this.options.folder, 'scratch', record.id);
    fs.rmSync(folder, { recursive: true, force: true });
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    // The composer folder exists now: its real path is hidden too (macOS's /var is /private/var).
    registerPrivateFolder(this.options.folder, '<composer folder>');
    const files = new FolderFiles(this.workspacePaths(folder));
    for (const attachment of record.attachments) {
      // Through the gate: an attachment can never land outside the folder or in .git.
      const target = path.join(files.root, files.key(attachment.path));
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      fs.writeFileSync(target, attachment.content, { mode: 0o600 });
    }
    return folder;
  }

  /** A session's copy behind the workspace's gate: its files, its links and its walks are confined to it. */
  private workspacePaths(folder: string): WorkspacePaths {
    return new WorkspacePaths(folder, { loomFolders: this.options.loomFolders ?? [] });
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

/** Why a session failed, in a user's words: which budget ran out and the setting that sets it. */
function stoppedBecause(reason: EndReason, budgets: AgentBudgets): string {
  switch (reason) {
    case 'max_steps':
      return `The session used its ${budgets.maxSteps} model turn${budgets.maxSteps === 1 ? '' : 's'} before it was done (agents.maxSteps).`;
    case 'max_tokens':
      return `The session used its ${budgets.maxTokens} tokens before it was done (agents.maxTokens).`;
    case 'timeout':
      return `The session ran past its ${budgets.timeoutSeconds} s before it was done (agents.timeoutSeconds).`;
    case 'loop':
      return 'The model kept repeating the same call with the same result.';
    case 'unusable_answers':
      return "The model's answers could not be acted on (malformed or unknown tool calls).";
    default:
      return `The session stopped: ${reason}.`;
  }
}

/** A change log entry as the session's edits (none when the file ended as it began). */
function toEdits(entry: ChangeEntry): ComposerEdit[] {
  return describeEntry(entry).map((change) => ({
    ...change,
    baseHash: entry.before === null ? null : contentHash(entry.before),
    content: entry.after,
  }));
}

async function filesInScope(workspace: WorkspacePaths, scope: GlobSet): Promise<WalkedFile[]> {
  const found = new Set<string>();
  for (const base of scope.bases()) {
    const { files } = await walkFiles(workspace, base, (file) => scope.matches(file), { limit: SCOPE_FILES });
    for (const file of files) found.add(file);
  }
  return withSizes(workspace, [...found].sort());
}

function safeRead(files: FolderFiles, file: string): string | null {
  try {
    return files.read(files.key(file));
  } catch {
    return null;
  }
}

export type { EndReason };
