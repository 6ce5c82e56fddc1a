import type { Kysely } from 'kysely';
import type { FeedbackRecord, FeedbackRepository } from '../core/feedback/feedback.ts';
import type { Database, Dialect } from './schema.ts';
import { storeFailure } from './failures.ts';

export class SqlFeedbackRepository implements FeedbackRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async add(record: FeedbackRecord): Promise<void> {
    try {
      await this.db
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
        .execute();
    } catch (error) {
      throw storeFailure(error);
    }
  }

  async list(options: { limit: number; before?: string }): Promise<FeedbackRecord[]> {
    try {
      let query = this.db.selectFrom('feedback').selectAll().orderBy('seq', 'desc').limit(options.limit);
      if (options.before) {
        const before = options.before;
        query = query.where('seq', '<', (eb) => eb.selectFrom('feedback').select('seq').where('id', '=', before));
      }
      const rows = await query.execute();
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        email: row.email,
        subject: row.subject,
        message: row.message,
        createdAt: row.created_at instanceof Date ? row.created_at.toISOString() : row.created_at,
        clientIp: row.client_ip,
        userAgent: row.user_agent,
      }));
    } catch (error) {
      throw storeFailure(error);
    }
  }
}
