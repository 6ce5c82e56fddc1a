// How much of a diff the step log and the status carry. A task writes files of up to a
// megabyte (AGENT_FILE_LIMIT), and may change hundreds: its diffs are cut for watching, at a
// line's end, with a line saying so. The files themselves (and the change log, for revert)
// have every line.
import type { AgentChange } from './types.ts';

/** Characters of a step's diff the log and the agent:step event keep. */
export const STEP_DIFF_CHARS = 16_000;
/** Characters of one change's diff the status carries. */
export const STATUS_DIFF_CHARS = 64_000;
/** Characters of all its changes' diffs together the status carries. */
export const STATUS_DIFFS_CHARS = 1_000_000;

/**
 * A unified diff longer than `limit` characters cut at the last line's end within them, with a
 * line added saying so. That line starts with `\`, as git marks a line of a diff that is not
 * part of the change (`\ No newline at end of file`), so a reader of diffs shows it and
 * changes nothing for it.
 *
 * @example
 * cutDiff(diff, 16_000); // '--- /dev/null\n+++ b/data.json\n@@ … \n\\ diff too large: 2400000 characters, the first 15998 shown\n'
 */
export function cutDiff(diff: string, limit: number): string {
  if (diff.length <= limit) return diff;
  const end = diff.lastIndexOf('\n', limit - 1) + 1;
  return `${diff.slice(0, end)}\\ diff too large: ${diff.length} characters, the first ${end} shown\n`;
}

/**
 * The changes as the status carries them: each diff cut to STATUS_DIFF_CHARS, and to what is
 * left of STATUS_DIFFS_CHARS once the diffs before it are counted.
 *
 * @example
 * boundedDiffs(changes).map((change) => change.diff.length); // each ≤ 64,000 (and a note line)
 */
export function boundedDiffs(changes: readonly AgentChange[]): AgentChange[] {
  let left = STATUS_DIFFS_CHARS;
  return changes.map((change) => {
    const diff = cutDiff(change.diff, Math.min(STATUS_DIFF_CHARS, left));
    left = Math.max(0, left - diff.length);
    return diff === change.diff ? change : { ...change, diff };
  });
}
