// Migrations, in order. Each takes the dialect so that types can differ where they must.
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../schema.ts';

export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_feedback': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('feedback')
          .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (col) =>
            dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement(),
          )
          .addColumn('id', 'text', (col) => col.notNull().unique())
          .addColumn('name', 'text', (col) => col.notNull())
          .addColumn('email', 'text', (col) => col.notNull())
          .addColumn('subject', 'text', (col) => col.notNull())
          .addColumn('message', 'text', (col) => col.notNull())
          .addColumn('created_at', dialect === 'postgres' ? sql`timestamptz` : 'text', (col) => col.notNull())
          .addColumn('client_ip', 'text', (col) => col.notNull())
          .addColumn('user_agent', 'text')
          .execute();
      },
    },
  };
}
