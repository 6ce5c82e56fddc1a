// The bounds of an agent task's budget: the local API's schema (local-resources.ts) and the
// settings (config/settings.ts) share them. Plain numbers, no schemas, so the settings table
// loads nothing else.

export const AGENT_BUDGET_LIMITS = {
  maxSteps: { minimum: 1, maximum: 1000 },
  maxTokens: { minimum: 1000, maximum: 100_000_000 },
  timeoutSeconds: { minimum: 10, maximum: 86_400 },
} as const;
