// Multi-row inserts cut to what one statement may bind. A statement with more bound values
// than the database takes fails as a whole: SQLite refuses it ("too many SQL variables"), and
// PostgreSQL's protocol counts a statement's parameters in 16 bits. A write whose row count
// comes from outside (a turn's tool calls, an event's endpoints) goes through here.
import type { Dialect } from './schema.ts';

/**
 * The most values one statement binds: SQLite's SQLITE_MAX_VARIABLE_NUMBER as better-sqlite3
 * builds it (32,766, SQLite's default since 3.32), PostgreSQL's 65,535 (a Bind message counts
 * its parameters in an Int16).
 */
export const MAX_BOUND_VALUES: Readonly<Record<Dialect, number>> = { sqlite: 32_766, postgres: 65_535 };

/**
 * The rows in groups of at most as many as one insert may carry on `dialect`: each row binds
 * one value per column it names (the columns of all rows counted, as the insert lists them
 * all). Run the groups in one transaction when the rows are all or nothing.
 *
 * @example
 * await db.transaction().execute(async (trx) => {
 *   for (const batch of insertBatches(rows, 'sqlite')) await trx.insertInto('agent_steps').values(batch).execute();
 * });
 */
export function insertBatches<Row extends object>(rows: readonly Row[], dialect: Dialect, limit = MAX_BOUND_VALUES[dialect]): Row[][] {
  const columns = new Set<string>();
  for (const row of rows) for (const column of Object.keys(row)) columns.add(column);
  const perBatch = Math.max(1, Math.floor(limit / Math.max(1, columns.size)));
  const batches: Row[][] = [];
  for (let start = 0; start < rows.length; start += perBatch) batches.push(rows.slice(start, start + perBatch));
  return batches;
}
