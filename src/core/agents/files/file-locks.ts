// Two tasks never edit the same file at once: the first task to write a file holds it until it
// ends, and another task's write to it is refused (its model is told which task holds it, and
// can work on other files or end). Refusing, not waiting: two tasks each waiting for a file
// the other holds would wait for ever, and a task that waits burns its wall-time budget.
// Holding until the end, not per write: a file edited by two tasks in turn could be reverted
// by neither, and each task's diff would carry the other's edits.

export class FileLocks {
  /** Workspace-relative real path → the task holding it. */
  private readonly holders = new Map<string, string>();

  /**
   * Takes `path` for `taskId` (nothing when it holds it already). Returns the id of the task
   * that holds it instead, or undefined when `taskId` now holds it.
   */
  claim(path: string, taskId: string): string | undefined {
    const holder = this.holders.get(path);
    if (holder !== undefined && holder !== taskId) return holder;
    this.holders.set(path, taskId);
    return undefined;
  }

  /** The task holding `path`, if any. */
  holder(path: string): string | undefined {
    return this.holders.get(path);
  }

  /** Lets go of every file `taskId` holds (the task ended). */
  releaseAll(taskId: string): void {
    for (const [path, holder] of this.holders) if (holder === taskId) this.holders.delete(path);
  }
}
