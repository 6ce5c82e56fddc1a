// Agent tasks, their step logs and their changes over Kysely (SQLite or PostgreSQL).
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ChangeEntry } from '../core/agents/files/change-log.ts';
import type { AgentTaskRecord, AgentTaskRepository, AgentTaskUpdate } from '../core/agents/records.ts';
import type { AgentExchange, AgentStep, EndReason } from '../core/agents/types.ts';
import { LoomError } from '../core/errors.ts';
import { insertBatches } from './batches.ts';
import { reach } from './failures.ts';
import type { AgentStepTable, AgentTaskTable, Database, Dialect } from './schema.ts';

type Db = Kysely<Database>;

export class SqlAgentTaskRepository implements AgentTaskRepository {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  async create(task: AgentTaskRecord): Promise<void> {
    await reach(() =>
      this.db
        .insertInto('agent_tasks')
        .values({
          id: task.id,
          status: task.status,
          task: task.task,
          files: JSON.stringify(task.files),
          model: task.model,
          budgets: JSON.stringify(task.budgets),
          estimated_time: task.estimatedTime,
          steps: task.steps,
          tokens: task.tokens,
          created_at: task.createdAt,
          ended_at: task.endedAt,
          reason: task.reason,
          error: task.error,
          summary: task.summary,
          reverted_at: task.revertedAt,
          conversation: JSON.stringify(task.conversation),
        })
        .execute(),
    );
  }

  async update(id: string, update: AgentTaskUpdate): Promise<void> {
    const values = columns(update);
    if (Object.keys(values).length === 0) return;
    await reach(() => this.db.updateTable('agent_tasks').set(values).where('id', '=', id).execute());
  }

  async get(id: string): Promise<AgentTaskRecord | undefined> {
    const row = await reach(() => this.db.selectFrom('agent_tasks').selectAll().where('id', '=', id).executeTakeFirst());
    return row && toRecord(row);
  }

  async list(options: { limit: number; before?: string }): Promise<AgentTaskRecord[]> {
    let query = this.db.selectFrom('agent_tasks').selectAll().orderBy('seq', 'desc').limit(options.limit);
    if (options.before !== undefined) {
      const before = options.before;
      const cursor = await reach(() => this.db.selectFrom('agent_tasks').select('seq').where('id', '=', before).executeTakeFirst());
      if (!cursor) throw new LoomError('not_found', `There is no agent task ${JSON.stringify(before.slice(0, 100))}.`);
      query = query.where('seq', '<', cursor.seq);
    }
    return (await reach(() => query.execute())).map(toRecord);
  }

  async addSteps(taskId: string, steps: readonly AgentStep[], update?: AgentTaskUpdate): Promise<void> {
    const rows = steps.map(({ index, kind, turn, at, ...data }) => ({ task_id: taskId, idx: index, kind, turn, at, data: JSON.stringify(data) }));
    await reach(() =>
      this.db.transaction().execute(async (trx) => {
        // A turn may call thousands of tools: its steps go in as many inserts as the database's bound-value limit needs.
        for (const batch of insertBatches(rows, this.dialect)) await trx.insertInto('agent_steps').values(batch).execute();
        const values = update ? columns(update) : {};
        if (Object.keys(values).length) await trx.updateTable('agent_tasks').set(values).where('id', '=', taskId).execute();
      }),
    );
  }

  async steps(taskId: string, options: { after: number; limit: number }): Promise<AgentStep[]> {
    const rows = await reach(() =>
      this.db
        .selectFrom('agent_steps')
        .selectAll()
        .where('task_id', '=', taskId)
        .where('idx', '>', options.after)
        .orderBy('idx')
        .limit(options.limit)
        .execute(),
    );
    return rows.map(toStep);
  }

  async stepsBefore(taskId: string, options: { before: number; limit: number }): Promise<AgentStep[]> {
    const rows = await reach(() =>
      this.db
        .selectFrom('agent_steps')
        .selectAll()
        .where('task_id', '=', taskId)
        .where('idx', '<', options.before)
        .orderBy('idx', 'desc')
        .limit(options.limit)
        .execute(),
    );
    return rows.map(toStep);
  }

  async saveChange(taskId: string, entry: ChangeEntry): Promise<void> {
    await reach(() =>
      this.db
        .insertInto('agent_changes')
        .values({ task_id: taskId, entry: entry.id, path: entry.path, origin: entry.origin, content_before: entry.before, content_after: entry.after })
        // An entry's origin and content before the task never change: only where it is and what it holds now are written again.
        .onConflict((conflict) => conflict.columns(['task_id', 'entry']).doUpdateSet({ path: entry.path, content_after: entry.after }))
        .execute(),
    );
  }

  async deleteChange(taskId: string, id: number): Promise<void> {
    await reach(() => this.db.deleteFrom('agent_changes').where('task_id', '=', taskId).where('entry', '=', id).execute());
  }

  async clearChanges(taskId: string): Promise<void> {
    await reach(() => this.db.deleteFrom('agent_changes').where('task_id', '=', taskId).execute());
  }

  async changes(taskId: string): Promise<ChangeEntry[]> {
    const rows = await reach(() => this.db.selectFrom('agent_changes').selectAll().where('task_id', '=', taskId).orderBy('entry').execute());
    return rows.map((row) => ({ id: row.entry, path: row.path, origin: row.origin, before: row.content_before, after: row.content_after }));
  }

  async interruptRunning(endedAt: string, error: string): Promise<AgentTaskRecord[]> {
    const rows = await reach(() =>
      this.db
        .updateTable('agent_tasks')
        .set({ status: 'failed', reason: 'interrupted', ended_at: endedAt, error })
        .where('status', '=', 'running')
        .returningAll()
        .execute(),
    );
    return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map(toRecord);
  }
}

/** The columns an update sets (only the fields it has). */
function columns(update: AgentTaskUpdate): Updateable<AgentTaskTable> {
  const out: Updateable<AgentTaskTable> = {};
  if (update.status !== undefined) out.status = update.status;
  if (update.steps !== undefined) out.steps = update.steps;
  if (update.tokens !== undefined) out.tokens = update.tokens;
  if (update.endedAt !== undefined) out.ended_at = update.endedAt;
  if (update.reason !== undefined) out.reason = update.reason;
  if (update.error !== undefined) out.error = update.error;
  if (update.summary !== undefined) out.summary = update.summary;
  if (update.revertedAt !== undefined) out.reverted_at = update.revertedAt;
  if (update.budgets !== undefined) out.budgets = JSON.stringify(update.budgets);
  if (update.estimatedTime !== undefined) out.estimated_time = update.estimatedTime;
  if (update.conversation !== undefined) out.conversation = JSON.stringify(update.conversation);
  return out;
}

function toStep(row: Selectable<AgentStepTable>): AgentStep {
  return {
    index: row.idx,
    kind: row.kind,
    turn: row.turn,
    at: row.at,
    ...(JSON.parse(row.data) as Omit<AgentStep, 'index' | 'kind' | 'turn' | 'at'>),
  };
}

function toRecord(row: Selectable<AgentTaskTable>): AgentTaskRecord {
  return {
    id: row.id,
    status: row.status,
    task: row.task,
    files: JSON.parse(row.files) as string[],
    model: row.model,
    budgets: JSON.parse(row.budgets) as AgentTaskRecord['budgets'],
    estimatedTime: row.estimated_time,
    steps: row.steps,
    tokens: Number(row.tokens),
    createdAt: row.created_at,
    endedAt: row.ended_at,
    reason: row.reason as EndReason | null,
    error: row.error,
    summary: row.summary,
    revertedAt: row.reverted_at,
    // A task of a version before conversations had one message: its task.
    conversation: row.conversation !== null ? (JSON.parse(row.conversation) as AgentExchange[]) : [{ message: row.task, at: row.created_at, firstStep: 1 }],
  };
}
