// The agent manager's refusals that carry more than a message.
import { LoomError } from '../errors.ts';

/** A 6th task while 5 run: refused, with when a slot is expected to be free. */
export class AgentCapacityError extends LoomError {
  constructor(
    running: number,
    /** Seconds until the first running task is expected to end (at least 1). */
    readonly retryAfter: number,
  ) {
    super('rate_limited', `${running} agent tasks are running, the most that run at once.`, `Try again in ${retryAfter} s, or cancel a task.`);
  }
}

/** A revert refused: these files are no longer as the task left them. */
export class RevertConflictError extends LoomError {
  constructor(
    message: string,
    /** Workspace-relative paths. */
    readonly files: string[],
  ) {
    super('revert_conflict', message, 'Undo those edits, or revert by hand from the diffs in the task status.');
  }
}
