// What a task's prompt carries beyond its words, made once at the start of a run (or of a
// follow-up): the project's rules files for the system prompt, and, where the task has a code
// index, the repository map for the first message. Both within their budgets (agents.rulesTokens,
// agents.mapTokens); what was loaded is logged as the run's first step.
import type { AgentFiles } from '../files/agent-files.ts';
import type { WalkedFile } from '../scope/walk.ts';
import type { StepContext } from '../types.ts';
import type { AgentIntel, AgentMap } from './intel.ts';
import { loadRules, type RulesContext } from './rules.ts';

/** Files in scope given to the map as its focus, at most: past that, the map ranks for the task alone. */
export const MAX_FOCUS = 20;
/** Default budgets, when the settings name none. */
export const DEFAULT_MAP_TOKENS = 1024;
export const DEFAULT_RULES_TOKENS = 2048;

export interface TaskContext {
  rules: RulesContext;
  map?: AgentMap;
  /** What the step log says of it. */
  step: StepContext;
}

/**
 * The rules and the map of a task.
 *
 * @example
 *   const context = await taskContext({ files, intel, task: 'Rename add to sum', inScope, mapTokens: 1024, rulesTokens: 2048 });
 *   systemPrompt({ …, rules: context.rules.text }); firstMessage(task, globs, inScope, shown, context.map?.text);
 */
export async function taskContext(input: {
  files: AgentFiles;
  intel?: AgentIntel;
  task: string;
  inScope: readonly WalkedFile[];
  mapTokens?: number;
  rulesTokens?: number;
}): Promise<TaskContext> {
  const paths = input.inScope.map((file) => file.path);
  const rules = loadRules(input.files, paths, input.rulesTokens ?? DEFAULT_RULES_TOKENS);
  const budget = input.mapTokens ?? DEFAULT_MAP_TOKENS;
  let map: AgentMap | undefined;
  if (input.intel?.index && budget > 0) {
    try {
      const made = await input.intel.index.map({ task: input.task, focus: paths.length <= MAX_FOCUS ? paths : [], tokens: budget });
      if (made.text.trim() !== '') map = made;
    } catch {
      // The index cannot answer (being built, closed): the first turn lists the files instead.
    }
  }
  return {
    rules,
    ...(map ? { map } : {}),
    step: {
      rules: rules.loaded,
      ...(rules.skipped.length ? { skippedRules: rules.skipped } : {}),
      ...(map ? { map: { files: map.files.length, tokens: map.tokens, budget } } : {}),
    },
  };
}

/** The step log's words for a task's context. */
export function describeContext(step: StepContext): string {
  const rules = step.rules.length
    ? `The system prompt carries the rules of ${step.rules.map((rule) => `${rule.path}${rule.cut ? ' (cut)' : ''}`).join(', ')}.`
    : 'No rules file was loaded.';
  const skipped = step.skippedRules?.length ? ` Left out: ${step.skippedRules.join(', ')}.` : '';
  const map = step.map ? ` The first message carries a map of ${step.map.files} files (${step.map.tokens} of ${step.map.budget} tokens).` : '';
  return `${rules}${skipped}${map}`;
}
