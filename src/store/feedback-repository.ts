import type { Kysely, Selectable } from 'kysely';
import { LoomError } from '../core/errors.ts';
import type { FeedbackRecord, FeedbackRepository } from '../core/feedback/feedback.ts';
import type { Database, Dialect, FeedbackTable } from './schema.ts';
import { reach } from './failures.ts';

export class SqlFeedbackRepository implements FeedbackRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async add(record: FeedbackRecord): Promise<void> {
    await reach(() =>
      this.db
        .insertInto('feedback')
        .values({
          id: record.id,
          name: record.name,
          email: record.email,
          subject: record.subject,
          message: record.message,
          created_at: this.dialect === 'postgres' ? new Date(record.createdAt) : record.createdAt,
          client_ip: record.clientIp,
          user_agent: record.userAgent,
        })
        .execute(),
    );
  }

  async list(options: { limit: number; before?: string }): Promise<FeedbackRecord[]> {
    let query = this.db.selectFrom('feedback').selectAll().orderBy('seq', 'desc').limit(options.limit);
    if (options.before) {
      const before = options.before;
      const cursor = await reach(() => this.db.selectFrom('feedback').select('seq').where('id', '=', before).executeTakeFirst());
      if (!cursor) throw new LoomError('not_found', `No feedback has the id ${before}.`);
      query = query.where('seq', '<', cursor.seq);
    }
    const rows = await reach(() => query.execute());
    return rows.map(toRecord);
  }
}

function toRecord(row: Selectable<FeedbackTable>): FeedbackRecord {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    subject: row.subject,
    message: row.message,
    createdAt: row.created_at instanceof Date ? row.created_at.toISOString() : row.created_at,
    clientIp: row.client_ip,
    userAgent: row.user_agent,
  };
}
