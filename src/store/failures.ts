import { LoomError } from '../core/errors.ts';

/**
 * A database failure as callers see it: nothing was written, try again. The cause stays for
 * the log; the message never carries a password (drivers do not put one in theirs).
 */
export function storeFailure(cause: unknown, message = 'The database is not available; nothing was written.'): LoomError {
  const error = new LoomError('store_unavailable', message, 'Try again shortly.');
  (error as Error & { cause?: unknown }).cause = cause;
  return error;
}

/** The database could not be opened or migrated. */
export function storeOpenFailure(cause: unknown): LoomError {
  return storeFailure(cause, `cannot open the database: ${(cause as Error)?.message ?? String(cause)}`);
}

/** Runs a query, turning any driver failure into store_unavailable. */
export async function reach<T>(query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (error) {
    throw storeFailure(error);
  }
}
