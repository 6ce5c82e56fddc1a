// What the hosted operations do with composer sessions: create one (checked, limited per
// user, written to the store, then enqueued), read it, cancel it, and follow its events. A
// session is its owner's alone: anyone else is told it does not exist.
import { randomUUID } from 'node:crypto';
import { compileGlob } from '../agents/scope/glob.ts';
import type { AgentBudgets } from '../agents/types.ts';
import { systemClock, type Clock } from '../clock.ts';
import { MAX_PROMPT_CHARS } from '../../contracts/composer.ts';
import { LoomError } from '../errors.ts';
import type { Job } from '../jobs/queue.ts';
import { checkAttachments } from './attachments.ts';
import { withDefaultWorkspace, type DefaultWorkspace } from './default-workspace.ts';
import type { ComposerSessionRepository, ComposerWorkspaceRepository } from './records.ts';
import { ENDED_STATUSES, queuedSession, type ComposerAttachment, type ComposerEvent, type ComposerMode, type ComposerSessionRecord } from './types.ts';

/** Events read from the store per poll of a stream. */
const EVENTS_PER_READ = 200;

/** A user's limit on waiting sessions was reached: 429 with Retry-After. */
export class ComposerLimitError extends LoomError {
  constructor(
    message: string,
    /** Seconds to wait before trying again. */
    readonly retryAfter: number,
  ) {
    super('rate_limited', message, `Try again in ${retryAfter} s, or cancel a session.`);
  }
}

export interface CreateSessionRequest {
  prompt: string;
  files: string[];
  mode?: ComposerMode;
  workspace?: string;
  attachments?: ComposerAttachment[];
}

export interface ComposerServiceOptions {
  sessions: ComposerSessionRepository;
  workspaces: ComposerWorkspaceRepository;
  /**
   * The workspace a request that names none and sends no attachments gets (`loom up`: the
   * desktop app's folder). Without it, the only registered workspace when there is exactly one.
   */
  defaultWorkspace?: DefaultWorkspace;
  /** Where new sessions go; called after the session's row is written. */
  queue: { enqueue(job: Job): Promise<void> };
  limits: () => { maxQueuedPerUser: number; maxRunningPerUser: number };
  /** The budgets every session carries (the agents' defaults). */
  budgets: () => AgentBudgets;
  /** Stops a session this process runs at once (the in-process runner); the flag in the store reaches any other. */
  cancelHere?: (sessionId: string) => boolean;
  /**
   * Throws when the sessions this process runs could not start: no model here can chat. Only
   * where this process runs them (the in-process queue); a worker elsewhere has its own models.
   */
  checkModel?: () => void;
  clock?: Clock;
  /** How often a stream looks for new events; 250 ms by default. */
  pollMs?: number;
}

/**
 * The composer sessions of the hosted API.
 *
 * @example
 * const composer = new ComposerService({ sessions, workspaces, queue, limits: () => config.composer, budgets: () => config.agents });
 * const { sessionId } = await composer.create(userId, { prompt: 'Add a README', files: ['README.md'], attachments: [] });
 * for await (const event of composer.follow(userId, sessionId, 0, signal)) console.log(event.type);
 */
export class ComposerService {
  private readonly clock: Clock;
  private readonly workspaces: ComposerWorkspaceRepository;

  constructor(private readonly options: ComposerServiceOptions) {
    this.clock = options.clock ?? systemClock;
    this.workspaces = options.defaultWorkspace ? withDefaultWorkspace(options.workspaces, options.defaultWorkspace.workspace) : options.workspaces;
  }

  /** ComposerLimitError when the user has `maxQueuedPerUser` sessions waiting: a new one, or one continued, would wait too. */
  private async checkRoomInQueue(userId: string): Promise<void> {
    const active = await this.options.sessions.countActive(userId);
    if (active.queued >= this.options.limits().maxQueuedPerUser) {
      throw new ComposerLimitError(`You have ${active.queued} composer sessions waiting, the most allowed.`, 10);
    }
  }

  /** A session that cannot start is refused now, rather than accepted to fail (the server's fault: 503). */
  private checkModel(): void {
    try {
      this.options.checkModel?.();
    } catch (error) {
      if (!(error instanceof LoomError)) throw error;
      throw new LoomError('model_unavailable', `Composer sessions need a model that can chat: ${error.message}`, error.hint);
    }
  }

  /**
   * Checks the request, writes the session (queued) and enqueues it. Throws LoomError
   * validation_error (bad globs or paths, an unknown workspace, neither a workspace nor
   * attachments when the server has no default workspace and not exactly one registered, a
   * default workspace that is not a repository with a commit), model_unavailable (no model here
   * can chat, where this process runs sessions) or ComposerLimitError.
   */
  async create(userId: string, request: CreateSessionRequest): Promise<{ sessionId: string; status: 'queued' | 'running'; workspace: string | null }> {
    const files = request.files.map((glob) => compileGlob(glob).source.trim());
    const attachments = checkAttachments(request.attachments ?? []);
    const workspace = await this.pickWorkspace(request.workspace, attachments.length > 0);
    this.checkModel();
    await this.checkRoomInQueue(userId);
    const now = new Date(this.clock.now()).toISOString();
    const record = queuedSession({
      id: randomUUID(),
      userId,
      prompt: request.prompt,
      files,
      mode: request.mode ?? 'edit',
      workspace,
      attachments,
      budgets: this.options.budgets(),
      createdAt: now,
    });
    await this.options.sessions.create(record);
    await this.options.sessions.appendEvent(record.id, { type: 'status', data: { status: 'queued' }, at: now });
    // Written first: a lost delivery is found again by the recovery scan.
    await this.options.queue.enqueue({ kind: 'composer', id: record.id }).catch(() => {});
    const after = await this.options.sessions.get(record.id);
    return { sessionId: record.id, status: after?.status === 'running' ? 'running' : 'queued', workspace };
  }

  /** The session, to its owner; LoomError not_found to anyone else. */
  async get(userId: string, sessionId: string): Promise<ComposerSessionRecord> {
    const record = await this.options.sessions.get(sessionId);
    if (!record || record.userId !== userId) throw new LoomError('not_found', `There is no composer session ${JSON.stringify(sessionId)}.`);
    return record;
  }

  /** The user's sessions, newest first, at most `limit` (the desktop app's window lists its own). */
  list(userId: string, limit: number): Promise<ComposerSessionRecord[]> {
    return this.options.sessions.listByUser(userId, limit);
  }

  /**
   * Cancels the session: a queued one ends `cancelled` at once; a running one stops within a
   * heartbeat (at once when it runs in this process) and ends `cancelled` with the edits it
   * had made. An ended session is left as it is. Resolves with the session after.
   */
  async cancel(userId: string, sessionId: string): Promise<ComposerSessionRecord> {
    await this.get(userId, sessionId);
    const asked = await this.options.sessions.requestCancel(sessionId, new Date(this.clock.now()).toISOString());
    if (asked && !asked.cancelled && asked.record.status === 'running') this.options.cancelHere?.(sessionId);
    return this.get(userId, sessionId);
  }

  /**
   * Continues an ended session with the user's message: the same session, on its copy as it
   * left it (its edits kept, a git workspace's from the same commit), queued again under the
   * server's budgets; the model is told what it did and how that ended, then the message.
   * Resolves with the session, queued. Throws LoomError not_found (not the user's),
   * validation_error (an empty or too long message), session_running (queued or running: wait
   * for its end, or cancel it), model_unavailable, or ComposerLimitError.
   *
   * @example
   * await composer.continue(userId, sessionId, { message: 'Also update the README.' });
   */
  async continue(userId: string, sessionId: string, request: { message: string }): Promise<ComposerSessionRecord> {
    const message = typeof request.message === 'string' ? request.message.trim() : '';
    if (message === '') throw new LoomError('validation_error', 'The message is empty: say what the session should do next.');
    if (message.length > MAX_PROMPT_CHARS) throw new LoomError('validation_error', `The message is longer than ${MAX_PROMPT_CHARS} characters.`);
    const record = await this.get(userId, sessionId);
    if (!ENDED_STATUSES.includes(record.status)) throw sessionRunning(record.status);
    this.checkModel();
    await this.checkRoomInQueue(userId);
    const at = new Date(this.clock.now()).toISOString();
    const continued = await this.options.sessions.continueWith(sessionId, { message, at }, this.options.budgets());
    if (!continued) throw new LoomError('not_found', `There is no composer session ${JSON.stringify(sessionId)}.`);
    if (!continued.continued) throw sessionRunning(continued.record.status);
    await this.options.queue.enqueue({ kind: 'composer', id: sessionId }).catch(() => {});
    return this.get(userId, sessionId);
  }

  /** The session's events after `after`, at most `limit`, without waiting for more. Checks ownership. */
  async events(userId: string, sessionId: string, after: number, limit: number): Promise<ComposerEvent[]> {
    await this.get(userId, sessionId);
    return this.options.sessions.events(sessionId, after, limit);
  }

  /**
   * The session's events after `after`, then each new one as it is written, ending after the
   * event that ends the session (a session continued by a message ends again after its run),
   * or when `signal` aborts. Checks ownership before the first.
   */
  async follow(userId: string, sessionId: string, after: number, signal: AbortSignal): Promise<AsyncIterable<ComposerEvent>> {
    await this.get(userId, sessionId);
    const { sessions } = this.options;
    const pollMs = this.options.pollMs ?? 250;
    return {
      [Symbol.asyncIterator]: async function* () {
        let last = after;
        while (!signal.aborted) {
          const events = await sessions.events(sessionId, last, EVENTS_PER_READ);
          for (const event of events) {
            last = event.seq;
            yield event;
          }
          if (events.length === EVENTS_PER_READ) continue;
          // Ended (its end and its last event are written together), and nothing came after
          // the end: a message that continued it would have its events after. Nothing more will come.
          const record = await sessions.get(sessionId);
          if (!record || (ENDED_STATUSES.includes(record.status) && (await sessions.events(sessionId, last, 1)).length === 0)) return;
          await waitFor(pollMs, signal);
        }
      },
    };
  }

  private async pickWorkspace(name: string | undefined, hasAttachments: boolean): Promise<string | null> {
    if (name !== undefined) {
      if (hasAttachments) throw new LoomError('validation_error', 'Send a workspace or attachments, not both.');
      if (name === this.options.defaultWorkspace?.workspace.name) {
        await this.options.defaultWorkspace.check();
        return name;
      }
      if (!(await this.workspaces.get(name))) {
        throw new LoomError(
          'validation_error',
          `There is no workspace ${JSON.stringify(name)} on this server.`,
          'The operator registers them: loom admin workspaces add NAME --repo URL.',
        );
      }
      return name;
    }
    if (hasAttachments) return null;
    const fallback = this.options.defaultWorkspace;
    if (fallback) {
      await fallback.check();
      return fallback.workspace.name;
    }
    const registered = await this.workspaces.list();
    if (registered.length === 1) return registered[0]!.name;
    throw new LoomError(
      'validation_error',
      registered.length === 0
        ? 'A session needs files to work on: send attachments ([{path, content}]); this server has no workspace registered.'
        : `A session needs files to work on: name a workspace (${registered.map((w) => w.name).join(', ')}) or send attachments.`,
      registered.length === 0
        ? 'The operator registers a git repository: loom admin workspaces add NAME --repo URL_OR_PATH. Under loom up (npm start) the workspace folder is the default.'
        : undefined,
    );
  }
}

function sessionRunning(status: string): LoomError {
  return new LoomError(
    'session_running',
    `The session is ${status}: a message continues a session once it has ended.`,
    'Wait for its end (its events end with a status event), or cancel it, then send the message.',
  );
}

function waitFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
