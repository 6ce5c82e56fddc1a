// Agents get stuck doing the same thing over and over: reading the file they just read, sending
// the edit that was just refused. An action (a tool and its arguments) that comes back with the
// same result a third time is a loop: the first time, the model is told to change course; the
// next time any action comes round a third time, the task ends (reason `loop`) instead of
// burning the rest of its budget. Reading a file again after it changed is a new result, not a
// repeat.
import { createHash } from 'node:crypto';

/** How many times the same action with the same result makes a loop. */
export const LOOP_REPEATS = 3;

export type LoopVerdict = 'ok' | 'redirect' | 'stop';

export class LoopDetector {
  private readonly counts = new Map<string, number>();
  private redirected = false;

  /**
   * Records a turn's actions with their results; `redirect` the first time one has come round
   * LOOP_REPEATS times, `stop` any time after that.
   */
  record(actions: readonly { name: string; arguments: string; result: string }[]): LoopVerdict {
    let most = 0;
    for (const action of actions) {
      const key = createHash('sha256')
        .update(`${action.name}\u0000${canonical(action.arguments)}\u0000${action.result}`)
        .digest('base64');
      const count = (this.counts.get(key) ?? 0) + 1;
      this.counts.set(key, count);
      most = Math.max(most, count);
    }
    if (most < LOOP_REPEATS) return 'ok';
    if (this.redirected) return 'stop';
    this.redirected = true;
    return 'redirect';
  }
}

/** Arguments written with other spacing or key order are the same arguments. */
function canonical(argumentsText: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(argumentsText)));
  } catch {
    return argumentsText.trim();
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
