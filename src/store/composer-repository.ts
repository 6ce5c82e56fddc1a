// Composer sessions, their progress events and the registered workspaces over Kysely (SQLite
// or PostgreSQL). Claims are single conditional UPDATEs: of two runners claiming at once,
// the database lets one through (docs/composer.md, "Who runs a session").
import { sql, type Kysely, type Selectable, type Updateable, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import type { Claim, ComposerProgress, ComposerSessionRepository, ComposerWorkspaceRepository } from '../core/composer/records.ts';
import type { ComposerEdit, ComposerEvent, ComposerExchange, ComposerSessionRecord, ComposerWorkspace } from '../core/composer/types.ts';
import { ENDED_STATUSES } from '../core/composer/types.ts';
import { reach } from './failures.ts';
import type { ComposerSessionTable, Database } from './schema.ts';

type Db = Kysely<Database>;
type SessionUpdate = UpdateQueryBuilder<Database, 'composer_sessions', 'composer_sessions', UpdateResult>;

/** Tries of an event append that met another append of the same number. */
const APPEND_TRIES = 5;

export class SqlComposerSessionRepository implements ComposerSessionRepository {
  constructor(private readonly db: Db) {}

  async create(record: ComposerSessionRecord): Promise<void> {
    await reach(() =>
      this.db
        .insertInto('composer_sessions')
        .values({
          id: record.id,
          user_id: record.userId,
          prompt: record.prompt,
          files: JSON.stringify(record.files),
          mode: record.mode,
          workspace: record.workspace,
          attachments: JSON.stringify(record.attachments),
          status: record.status,
          budgets: JSON.stringify(record.budgets),
          model: record.model,
          plan: record.plan && JSON.stringify(record.plan),
          edits: record.edits && JSON.stringify(record.edits),
          branch: record.branch,
          commit_sha: record.commit,
          pushed: record.pushed ? 1 : 0,
          error: record.error,
          summary: record.summary,
          steps: record.steps,
          tokens: record.tokens,
          created_at: record.createdAt,
          started_at: record.startedAt,
          ended_at: record.endedAt,
          runner: record.runner,
          attempt: record.attempt,
          lease_until: record.leaseUntil,
          cancel_requested: record.cancelRequested ? 1 : 0,
          base_sha: record.base,
          conversation: record.conversation.length ? JSON.stringify(record.conversation) : null,
          start_edits: record.startEdits && JSON.stringify(record.startEdits),
        })
        .execute(),
    );
  }

  async get(id: string): Promise<ComposerSessionRecord | undefined> {
    const row = await reach(() => this.db.selectFrom('composer_sessions').selectAll().where('id', '=', id).executeTakeFirst());
    return row && toRecord(row);
  }

  async listByUser(userId: string, limit: number): Promise<ComposerSessionRecord[]> {
    const rows = await reach(() =>
      this.db.selectFrom('composer_sessions').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id').limit(limit).execute(),
    );
    return rows.map(toRecord);
  }

  async countActive(userId: string): Promise<{ queued: number; running: number }> {
    const rows = await reach(() =>
      this.db
        .selectFrom('composer_sessions')
        .select(['status', (eb) => eb.fn.countAll().as('count')])
        .where('user_id', '=', userId)
        .where('status', 'in', ['queued', 'running'])
        .groupBy('status')
        .execute(),
    );
    const count = (status: string) => Number(rows.find((row) => row.status === status)?.count ?? 0);
    return { queued: count('queued'), running: count('running') };
  }

  async claim(
    id: string,
    runner: string,
    now: number,
    leaseUntil: number,
    limits: { maxRunningPerUser?: number } = {},
  ): Promise<{ record: ComposerSessionRecord; claim: Claim } | undefined> {
    let query = this.db
      .updateTable('composer_sessions')
      .set({ status: 'running', runner, lease_until: leaseUntil, attempt: sql<number>`attempt + 1` })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)])]));
    if (limits.maxRunningPerUser !== undefined) {
      // The user's other sessions running under a live lease (a lapsed one is being taken over, not added).
      query = query.where(
        sql<number>`(select count(*) from composer_sessions as other where other.user_id = composer_sessions.user_id and other.status = 'running' and other.id <> composer_sessions.id and other.lease_until >= ${now})`,
        '<',
        limits.maxRunningPerUser,
      );
    }
    const row = await reach(() => query.returningAll().executeTakeFirst());
    if (!row) return undefined;
    const record = toRecord(row);
    return { record, claim: { runner, attempt: record.attempt } };
  }

  async renew(id: string, claim: Claim, leaseUntil: number): Promise<{ cancelRequested: boolean } | undefined> {
    const row = await reach(() =>
      this.held(this.db.updateTable('composer_sessions').set({ lease_until: leaseUntil }), id, claim)
        .returning('cancel_requested')
        .executeTakeFirst(),
    );
    return row && { cancelRequested: Number(row.cancel_requested) === 1 };
  }

  async update(id: string, claim: Claim, progress: ComposerProgress, event?: { type: string; data: Record<string, unknown>; at: string }): Promise<boolean> {
    const values = columns(progress);
    if (!event) {
      const result = await reach(() => this.held(this.db.updateTable('composer_sessions').set(values), id, claim).executeTakeFirst());
      return Number(result.numUpdatedRows) === 1;
    }
    return reach(() =>
      this.db.transaction().execute(async (trx) => {
        const seq = await appendEvent(trx, id, event, claim);
        if (seq === undefined) return false;
        const result = await this.held(trx.updateTable('composer_sessions').set(values), id, claim).executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      }),
    );
  }

  async release(id: string, claim: Claim): Promise<boolean> {
    const result = await reach(() =>
      this.held(this.db.updateTable('composer_sessions').set({ status: 'queued', runner: null, lease_until: null }), id, claim).executeTakeFirst(),
    );
    return Number(result.numUpdatedRows) === 1;
  }

  async requestCancel(id: string, now: string): Promise<{ record: ComposerSessionRecord; cancelled: boolean } | undefined> {
    // A queued session ends here, with its last event in the same transaction.
    const wasQueued = await reach(() =>
      this.db.transaction().execute(async (trx) => {
        const cancelled = await trx
          .updateTable('composer_sessions')
          .set({ status: 'cancelled', ended_at: now, cancel_requested: 1 })
          .where('id', '=', id)
          .where('status', '=', 'queued')
          .executeTakeFirst();
        if (Number(cancelled.numUpdatedRows) !== 1) return false;
        await appendEvent(trx, id, { type: 'status', data: { status: 'cancelled' }, at: now });
        return true;
      }),
    );
    if (!wasQueued)
      await reach(() => this.db.updateTable('composer_sessions').set({ cancel_requested: 1 }).where('id', '=', id).where('status', '=', 'running').execute());
    const record = await this.get(id);
    return record && { record, cancelled: wasQueued };
  }

  async continueWith(
    id: string,
    message: { message: string; at: string },
    budgets: ComposerSessionRecord['budgets'],
  ): Promise<{ record: ComposerSessionRecord; continued: boolean } | undefined> {
    const continued = await reach(() =>
      this.db.transaction().execute(async (trx) => {
        const row = await trx.selectFrom('composer_sessions').selectAll().where('id', '=', id).executeTakeFirst();
        if (!row || !ENDED_STATUSES.includes(row.status)) return false;
        // Only from the state just read: of two messages sent at once, one continues the session
        // (the other's update waits for the row, then finds it queued); its events come after.
        const requeued = await trx
          .updateTable('composer_sessions')
          .set({
            status: 'queued',
            start_edits: row.edits,
            budgets: JSON.stringify(budgets),
            plan: null,
            pushed: 0,
            error: null,
            ended_at: null,
            runner: null,
            lease_until: null,
            cancel_requested: 0,
          })
          .where('id', '=', id)
          .where('status', '=', row.status)
          .where('attempt', '=', row.attempt)
          .executeTakeFirst();
        if (Number(requeued.numUpdatedRows) !== 1) return false;
        const before = toRecord(row);
        const seq = (await appendEvent(trx, id, { type: 'message', data: { message: message.message }, at: message.at }))!;
        const exchange: ComposerExchange = {
          ...message,
          seq,
          earlier: { status: before.status, error: before.error, summary: before.summary, plan: before.plan, steps: before.steps, tokens: before.tokens },
        };
        await trx
          .updateTable('composer_sessions')
          .set({ conversation: JSON.stringify([...before.conversation, exchange]) })
          .where('id', '=', id)
          .execute();
        await appendEvent(trx, id, { type: 'status', data: { status: 'queued' }, at: message.at });
        return true;
      }),
    );
    const record = await this.get(id);
    return record && { record, continued };
  }

  async runnable(now: number, limit: number): Promise<string[]> {
    const rows = await reach(() =>
      this.db
        .selectFrom('composer_sessions')
        .select('id')
        .where((eb) => eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)])]))
        .orderBy('seq')
        .limit(limit)
        .execute(),
    );
    return rows.map((row) => row.id);
  }

  async appendEvent(id: string, event: { type: string; data: Record<string, unknown>; at: string }, claim?: Claim): Promise<number | undefined> {
    // Two appends meeting on a number: the loser tries again.
    for (let tries = 1; ; tries++) {
      try {
        return await appendEvent(this.db, id, event, claim);
      } catch (error) {
        if (tries < APPEND_TRIES && isUniqueViolation(error)) continue;
        throw await reach(() => Promise.reject(error)).catch((mapped: unknown) => mapped);
      }
    }
  }

  async events(id: string, after: number, limit: number): Promise<ComposerEvent[]> {
    const rows = await reach(() =>
      this.db.selectFrom('composer_events').selectAll().where('session_id', '=', id).where('seq', '>', after).orderBy('seq').limit(limit).execute(),
    );
    return rows.map((row) => ({ seq: Number(row.seq), type: row.type, data: JSON.parse(row.data) as Record<string, unknown>, at: row.at }));
  }

  /** Restricts an update to the session while `claim` holds it. */
  private held(query: SessionUpdate, id: string, claim: Claim): SessionUpdate {
    return query.where('id', '=', id).where('runner', '=', claim.runner).where('attempt', '=', claim.attempt).where('status', '=', 'running');
  }
}

export class SqlComposerWorkspaceRepository implements ComposerWorkspaceRepository {
  constructor(private readonly db: Db) {}

  async put(workspace: ComposerWorkspace): Promise<void> {
    const values = { repo: workspace.repo, branch: workspace.branch, push: String(workspace.push), created_at: workspace.createdAt };
    await reach(() =>
      this.db
        .insertInto('composer_workspaces')
        .values({ name: workspace.name, ...values })
        .onConflict((oc) => oc.column('name').doUpdateSet(values))
        .execute(),
    );
  }

  async get(name: string): Promise<ComposerWorkspace | undefined> {
    const row = await reach(() => this.db.selectFrom('composer_workspaces').selectAll().where('name', '=', name).executeTakeFirst());
    return row && { name: row.name, repo: row.repo, branch: row.branch, push: row.push === 'true', createdAt: row.created_at };
  }

  async list(): Promise<ComposerWorkspace[]> {
    const rows = await reach(() => this.db.selectFrom('composer_workspaces').selectAll().orderBy('name').execute());
    return rows.map((row) => ({ name: row.name, repo: row.repo, branch: row.branch, push: row.push === 'true', createdAt: row.created_at }));
  }

  async remove(name: string): Promise<boolean> {
    const result = await reach(() => this.db.deleteFrom('composer_workspaces').where('name', '=', name).executeTakeFirst());
    return Number(result.numDeletedRows) === 1;
  }
}

/**
 * One statement numbers and inserts the event, and checks the claim: a runner that lost its
 * session writes nothing (undefined).
 */
async function appendEvent(
  db: Kysely<Database>,
  id: string,
  event: { type: string; data: Record<string, unknown>; at: string },
  claim?: Claim,
): Promise<number | undefined> {
  const held = claim
    ? sql`exists (select 1 from composer_sessions where id = ${id} and runner = ${claim.runner} and attempt = ${claim.attempt} and status = 'running')`
    : sql`1 = 1`;
  const result = await sql<{ seq: number | string }>`
    insert into composer_events (session_id, seq, type, data, at)
    select ${id}, (select coalesce(max(seq), 0) + 1 from composer_events where session_id = ${id}), ${event.type}, ${JSON.stringify(event.data)}, ${event.at}
    where ${held}
    returning seq`.execute(db);
  const row = result.rows[0];
  return row === undefined ? undefined : Number(row.seq);
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

function columns(progress: ComposerProgress): Updateable<ComposerSessionTable> {
  const values: Updateable<ComposerSessionTable> = {};
  if (progress.status !== undefined) values.status = progress.status;
  if (progress.model !== undefined) values.model = progress.model;
  if (progress.plan !== undefined) values.plan = progress.plan && JSON.stringify(progress.plan);
  if (progress.edits !== undefined) values.edits = JSON.stringify(progress.edits);
  if (progress.base !== undefined) values.base_sha = progress.base;
  if (progress.branch !== undefined) values.branch = progress.branch;
  if (progress.commit !== undefined) values.commit_sha = progress.commit;
  if (progress.pushed !== undefined) values.pushed = progress.pushed ? 1 : 0;
  if (progress.error !== undefined) values.error = progress.error;
  if (progress.summary !== undefined) values.summary = progress.summary;
  if (progress.steps !== undefined) values.steps = progress.steps;
  if (progress.tokens !== undefined) values.tokens = progress.tokens;
  if (progress.startedAt !== undefined) values.started_at = progress.startedAt;
  if (progress.endedAt !== undefined) {
    values.ended_at = progress.endedAt;
    values.lease_until = null;
  }
  return values;
}

function toRecord(row: Selectable<ComposerSessionTable>): ComposerSessionRecord {
  return {
    id: row.id,
    userId: row.user_id,
    prompt: row.prompt,
    files: JSON.parse(row.files) as string[],
    mode: row.mode,
    workspace: row.workspace,
    attachments: JSON.parse(row.attachments) as ComposerSessionRecord['attachments'],
    status: row.status,
    budgets: JSON.parse(row.budgets) as ComposerSessionRecord['budgets'],
    model: row.model,
    plan: row.plan === null ? null : (JSON.parse(row.plan) as ComposerSessionRecord['plan']),
    edits: row.edits === null ? null : (JSON.parse(row.edits) as ComposerSessionRecord['edits']),
    branch: row.branch,
    commit: row.commit_sha,
    pushed: Number(row.pushed) === 1,
    error: row.error,
    summary: row.summary,
    steps: Number(row.steps),
    tokens: Number(row.tokens),
    createdAt: row.created_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    runner: row.runner,
    attempt: Number(row.attempt),
    leaseUntil: row.lease_until === null ? null : Number(row.lease_until),
    cancelRequested: Number(row.cancel_requested) === 1,
    base: row.base_sha,
    conversation: row.conversation === null ? [] : (JSON.parse(row.conversation) as ComposerExchange[]),
    startEdits: row.start_edits === null ? null : (JSON.parse(row.start_edits) as ComposerEdit[]),
  };
}
