// Failures a command reports to its user: one `loom: …` line on stderr and an exit code,
// never a stack trace. 1 = the operation failed; 2 = invalid settings or usage.
import { printProblem } from './output.ts';

export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

/**
 * Wraps a commander action: a CliError becomes its message on stderr and the exit code; any
 * other error goes on to main(), which knows the project's other error types.
 */
export function cliAction<A extends unknown[]>(action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      printProblem(error.message);
      process.exitCode = error.exitCode;
    }
  };
}
