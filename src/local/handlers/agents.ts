// Agent tasks: start, status, list, step log, cancel and revert, over the workspace's
// AgentManager (core/agents), which checks requests, runs at most 5 tasks at once, and emits
// `agent:start`, `agent:step` and `agent:complete`.
import type { LocalHandlersOf, LocalServices } from './index.ts';

export function agentHandlers({ agents }: LocalServices): LocalHandlersOf<'Agents'> {
  return {
    runAgent: async ({ body }) => agents.run(body),
    getAgentStatus: async ({ params }) => agents.status(params.taskId),
    listAgentTasks: async ({ query }) => ({ tasks: await agents.list(query) }),
    getAgentSteps: async ({ params, query }) => ({ steps: await agents.steps(params.taskId, query) }),
    cancelAgentTask: async ({ params }) => agents.cancel(params.taskId),
    revertAgentTask: async ({ params }) => agents.revert(params.taskId),
  };
}
