import { LoomError } from '../core/errors.ts';

/** A database failure as callers see it: nothing was written, try again. The cause stays for the log. */
export function storeFailure(cause: unknown): LoomError {
  const error = new LoomError('store_unavailable', 'The database is not available; nothing was written.', 'Try again shortly.');
  (error as Error & { cause?: unknown }).cause = cause;
  return error;
}
