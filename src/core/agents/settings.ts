// The settings agent tasks run under: the configured defaults (flags, environment, config file)
// overridden by the desktop app's settings.json `agents`, and a request's own budgets. Core
// declares them; the config loader (src/config/load.ts) fills the defaults.
import { LoomError } from '../errors.ts';
import type { AgentBudgets } from './types.ts';

/** Agent tasks' defaults as configured (docs/agents.md): the budgets, a command's time limit, how long an approval waits. */
export interface AgentsConfig extends AgentBudgets {
  commandTimeoutSeconds: number;
  /** Seconds a request to approve a command waits for the user before it is denied. */
  approvalTimeoutSeconds: number;
  /** Tokens of the repository map in a task's first message (0: none); DEFAULT_MAP_TOKENS when absent. */
  mapTokens?: number;
  /** Tokens of the project's rules files in a task's system prompt (0: none); DEFAULT_RULES_TOKENS when absent. */
  rulesTokens?: number;
}

export interface AgentSettings extends AgentsConfig {
  /** Commands `run_command` runs without asking, each matched exactly; any other waits for the user's approval. */
  commands: string[];
}

/** settings.json's `agents`: any of the settings. */
export type AgentSettingsOverride = Partial<AgentSettings>;

/**
 * The settings in force: `base` (the configuration) with settings.json's `agents` over it.
 *
 * @example
 * agentSettings(config.agents, { maxSteps: 10, commands: ['npm test'] });
 * // { maxSteps: 10, maxTokens: 500000, timeoutSeconds: 900, commandTimeoutSeconds: 300, approvalTimeoutSeconds: 300, commands: ['npm test'] }
 */
export function agentSettings(base: AgentsConfig, override: AgentSettingsOverride | undefined): AgentSettings {
  return { ...base, commands: [], ...override };
}

/**
 * A request's budgets: each one it names (a whole number of at least 1, the route checks the
 * upper limits), else the default. Throws LoomError validation_error on anything else.
 */
export function resolveBudgets(defaults: AgentBudgets, requested: Partial<AgentBudgets> | undefined): AgentBudgets {
  const budgets: AgentBudgets = { maxSteps: defaults.maxSteps, maxTokens: defaults.maxTokens, timeoutSeconds: defaults.timeoutSeconds };
  for (const key of ['maxSteps', 'maxTokens', 'timeoutSeconds'] as const) {
    const value = requested?.[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new LoomError('validation_error', `budgets.${key} must be a whole number of at least 1.`);
    budgets[key] = value;
  }
  return budgets;
}
