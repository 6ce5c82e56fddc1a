import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { createPrivateFile, ensurePrivateDir, tightenPrivateFile, type ModeWarning } from '../core/files/private-files.ts';
import { migrations } from './migrations/index.ts';
import { OwnSchemaPostgresDialect } from './own-schema-dialect.ts';
import type { Database, Dialect } from './schema.ts';

export interface StoreOptions {
  /** postgres:// URL; without it, SQLite in `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
}

export interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Human-readable location, never containing a password. */
  location: string;
}

export const SQLITE_FILE = 'loom.db';
/** The files SQLite keeps beside the database: the write-ahead log, its index, a rollback journal. */
const SQLITE_COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * Opens the database. The SQLite file holds signing keys, token hashes and sessions: its folder
 * is made 0700 and the file 0600 (with its -wal and -shm files, which SQLite gives the
 * database's own mode), and `warn` hears of any that were found open to other users.
 */
export function openDatabase(options: StoreOptions, warn: ModeWarning = () => {}): OpenedDatabase {
  if (options.databaseUrl) {
    const url = new URL(options.databaseUrl);
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10, connectionTimeoutMillis: 5000 });
    // An idle client that loses its connection must not crash the process.
    pool.on('error', () => {});
    url.password = '';
    return { db: new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) }), dialect: 'postgres', location: url.toString() };
  }
  ensurePrivateDir(options.dataDir, warn);
  const file = path.join(options.dataDir, SQLITE_FILE);
  // SQLite would create the file with the umask's mode (0644 by default): create it first.
  createPrivateFile(file, warn);
  for (const companion of SQLITE_COMPANIONS) tightenPrivateFile(file + companion, warn);
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a commit is fsynced before it returns, so an acknowledged write survives a crash.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) }), dialect: 'sqlite', location: file };
}

/** Brings the schema up to date; safe to run on every start and from several processes. */
export async function migrateToLatest(opened: OpenedDatabase): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(opened.dialect) };
  // Kysely's bookkeeping tables are pinned to our schema, where the introspector looks for them
  // (own-schema-dialect.ts): a database may hold several Loom schemas, each with its own.
  const migrationTableSchema =
    opened.dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(opened.db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({ db: opened.db, provider, migrationTableSchema });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/** Round trip of a trivial query, in milliseconds. */
export async function pingDatabase(db: Kysely<Database>): Promise<number> {
  const started = performance.now();
  await sql`select 1`.execute(db);
  return performance.now() - started;
}
