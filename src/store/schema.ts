import type { Generated } from 'kysely';

/** Tables as Kysely sees them. */
export interface FeedbackTable {
  id: string;
  name: string;
  email: string;
  subject: string;
  message: string;
  /** ISO text in SQLite, timestamptz in PostgreSQL. */
  created_at: string | Date;
  client_ip: string;
  user_agent: string | null;
  seq: Generated<number>;
}

export interface Database {
  feedback: FeedbackTable;
}

export type Dialect = 'sqlite' | 'postgres';
