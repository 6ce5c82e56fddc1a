// How long a task will take (`estimatedTime`, seconds), from what the model has shown of its
// speed on this machine and from what the task has to read:
//
//   turns     = min(maxSteps, 2 + 2 × min(files in scope, 8))      (read, edit, per file; the summary)
//   evaluated = 800 + min(bytes in scope / 4, 40,000) + 300 × turns   (the prompt, the files once, each turn's results)
//   generated = 250 × turns                                           (each turn's answer)
//   seconds   = evaluated / prompt speed + generated / generation speed, at most the time budget
//
// Speeds are the model's own, measured on every turn of every task (tokens of the prompt over
// the time to the first token, tokens generated over the rest), averaged with more weight on
// the latest; until a model has answered once, 200 prompt and 20 generated tokens per second
// (a 7B model on a recent laptop). Prompt tokens a provider kept from the turn before (gguf's
// KV cache) are counted as evaluated in the measurement, as in the formula: the two agree.
import type { ChatResult } from '../completion/chat.ts';
import type { AgentBudgets } from './types.ts';

const DEFAULT_PROMPT_PER_SECOND = 200;
const DEFAULT_GENERATED_PER_SECOND = 20;
/** Weight of the newest measurement in the running average. */
const NEWEST_WEIGHT = 0.3;

interface Speed {
  promptPerSecond: number;
  generatedPerSecond: number;
}

export interface Scope {
  files: number;
  bytes: number;
}

/** Measured speeds per model (by name), in memory: a restart starts from the defaults again. */
export class ModelSpeeds {
  private readonly speeds = new Map<string, Speed>();

  /** Learns from one turn of `model`. */
  observe(model: string, result: ChatResult): void {
    const { totalMs, firstTokenMs } = result.timing;
    const { promptTokens, completionTokens } = result.usage;
    if (firstTokenMs === undefined || firstTokenMs <= 0 || totalMs <= firstTokenMs) return;
    const measured: Speed = {
      promptPerSecond: promptTokens / (firstTokenMs / 1000),
      generatedPerSecond: completionTokens / ((totalMs - firstTokenMs) / 1000),
    };
    if (!Number.isFinite(measured.promptPerSecond) || !Number.isFinite(measured.generatedPerSecond) || measured.generatedPerSecond <= 0) return;
    const known = this.speeds.get(model);
    this.speeds.set(
      model,
      known
        ? {
            promptPerSecond: known.promptPerSecond + NEWEST_WEIGHT * (measured.promptPerSecond - known.promptPerSecond),
            generatedPerSecond: known.generatedPerSecond + NEWEST_WEIGHT * (measured.generatedPerSecond - known.generatedPerSecond),
          }
        : measured,
    );
  }

  /**
   * Seconds a task on `model` over `scope` is expected to take (see the formula above): a whole
   * number, at least 1.
   *
   * @example
   * speeds.estimate('qwen2.5-coder:7b', { files: 1, bytes: 4000 }, budgets); // 65 before any measurement
   */
  estimate(model: string, scope: Scope, budgets: AgentBudgets): number {
    const speed = this.speeds.get(model) ?? { promptPerSecond: DEFAULT_PROMPT_PER_SECOND, generatedPerSecond: DEFAULT_GENERATED_PER_SECOND };
    const turns = Math.min(budgets.maxSteps, 2 + 2 * Math.min(scope.files, 8));
    const evaluated = 800 + Math.min(scope.bytes / 4, 40_000) + 300 * turns;
    const generated = 250 * turns;
    const seconds = evaluated / speed.promptPerSecond + generated / speed.generatedPerSecond;
    return Math.max(1, Math.min(budgets.timeoutSeconds, Math.ceil(seconds)));
  }
}
