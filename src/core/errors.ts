import type { ErrorCode } from '../contracts/errors.ts';

/**
 * A failure the caller should hear about, with a machine code from the error table.
 * Servers turn it into their own error envelope; anything else thrown is an internal error.
 */
export class LoomError extends Error {
  override name = 'LoomError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}
