// run_command: a command the user listed in settings.json (`agents.commands`), run as listed
// (see run-command.ts). Offered to the model only when the list is not empty, with the list in
// its description, so that the model knows what it may run.
import { ToolFailure } from '../files/task-files.ts';
import type { CommandRunner } from './run-command.ts';
import { Arguments, outcomeOf, type AgentTool } from './tool.ts';

/** The tool for the commands `runner` allows. */
export function runCommandTool(runner: CommandRunner): AgentTool {
  const listed = runner.commands();
  return {
    declaration: {
      name: 'run_command',
      description: `Run one of these commands in the workspace folder and read its output (no shell: exactly as listed): ${listed.map((command) => JSON.stringify(command)).join(', ')}.`,
      parameters: {
        type: 'object',
        properties: { command: { type: 'string', enum: listed } },
        required: ['command'],
      },
    },
    run: (args, context) =>
      outcomeOf(async () => {
        const command = new Arguments(args, 'run_command').string('command');
        if (!runner.allows(command)) {
          throw new ToolFailure(
            `${JSON.stringify(command.slice(0, 200))} is not a command you may run. You may run only: ${listed.map((c) => JSON.stringify(c)).join(', ')}.`,
          );
        }
        let result;
        try {
          result = await runner.run(command, context.signal);
        } catch (error) {
          throw new ToolFailure(`${JSON.stringify(command)} cannot be run as listed in settings.json: ${(error as Error).message}.`);
        }
        const ending =
          result.stopped === 'timeout'
            ? 'was stopped at its time limit'
            : result.stopped === 'aborted'
              ? 'was stopped: the task is ending'
              : result.stopped === 'failed_to_start'
                ? 'could not start'
                : `exited with code ${result.exitCode}`;
        return {
          ok: result.exitCode === 0,
          text: `$ ${command}\n${result.output}${result.output.endsWith('\n') || result.output === '' ? '' : '\n'}[${command} ${ending}]`,
        };
      }),
  };
}
