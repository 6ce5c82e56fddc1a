// Failures a command reports to its user: one `loom: …` line on stderr and an exit code
// (exit-codes.ts, docs/cli.md), never a stack trace.
import { EXIT, type ExitCode } from './exit-codes.ts';
import { printProblem } from './output.ts';

export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.failure,
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

/**
 * A call of the local API whose refusal becomes the CLI's one-line failure: the server's
 * message, the files of a conflict, and its hint; exit 3 when no server answered, else 1.
 *
 * @example const status = await localCall(() => client.call('getAgentStatus', { params: { taskId } }));
 */
export async function localCall<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    // Loaded here: the client's module brings the route table and its schemas.
    const { LocalApiError } = await import('../client/local.ts');
    if (!(error instanceof LocalApiError)) throw error;
    const files = error.files?.length ? ` Files: ${error.files.join(', ')}.` : '';
    throw new CliError(`${error.message}${files}${error.hint ? ` ${error.hint}` : ''}`, error.code === 'UNREACHABLE' ? EXIT.unreachable : EXIT.failure);
  }
}
