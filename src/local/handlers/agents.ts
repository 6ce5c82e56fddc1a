// Agent tasks: start, status, list, step log, cancel and revert, a follow-up message, and the
// answer to a command a task asks to run, over the workspace's AgentManager (core/agents), which
// checks requests, runs at most 5 tasks at once, and emits `agent:start`, `agent:message`,
// `agent:step`, `agent:approval` and `agent:complete`. Who may answer an approval (the window
// only) is the route's access rule, enforced by the guard.
import { LoomError } from '../../core/errors.ts';
import type { LocalHandlersOf, LocalServices } from './index.ts';

export function agentHandlers({ agents, extensions }: LocalServices): LocalHandlersOf<'Agents'> {
  return {
    runAgent: async ({ body }) => agents.run(body),
    getAgentStatus: async ({ params }) => agents.status(params.taskId),
    listAgentTasks: async ({ query }) => ({ tasks: await agents.list(query) }),
    getAgentSteps: async ({ params, query }) => ({ steps: await agents.steps(params.taskId, query) }),
    cancelAgentTask: async ({ params }) => agents.cancel(params.taskId),
    revertAgentTask: async ({ params, body }) => agents.revert(params.taskId, body ?? {}),
    getAgentChange: async ({ params, query }) => agents.change(params.taskId, query.file),
    sendAgentMessage: async ({ params, body }) => agents.followUp(params.taskId, body),
    answerAgentApproval: async ({ params, body }) => {
      // Running a command runs the workspace's code (npm test runs its scripts): as for its extensions, only in a trusted workspace.
      if (body.decision !== 'deny' && !extensions.workspaceTrusted) {
        throw new LoomError(
          'workspace_untrusted',
          'Approving a command runs it in this workspace, and the workspace is not trusted.',
          'Trust the workspace first (the window, or loom extension trust), then approve; or deny.',
        );
      }
      return agents.answer(params.taskId, body.approvalId, body.decision);
    },
  };
}
