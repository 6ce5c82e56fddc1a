// run_command: a command run as the runner runs it (see run-command.ts). One the user listed in
// settings.json (`agents.commands`) runs at once; any other is asked of the user first
// (`ToolContext.approve`): the task pauses until the user answers in the window, and a command
// not approved is not run (the model is told). Where nothing can be asked (no `approve`), only
// listed commands run. Offered whenever the task has a runner, with the list in its description
// (read again each turn: a command approved "always" joins it), so that a model can ask.
import { ToolFailure } from '../files/task-files.ts';
import { splitCommand, type CommandRunner } from './run-command.ts';
import { Arguments, outcomeOf, type AgentTool, type ApprovalOutcome } from './tool.ts';

/** The longest command that may be asked for: what settings.json's `agents.commands` takes. */
export const MAX_COMMAND_CHARS = 1000;
/** How much of a refused command a refusal quotes. */
const QUOTED_CHARS = 200;

/** The tool for the commands `runner` runs. */
export function runCommandTool(runner: CommandRunner): AgentTool {
  return {
    get declaration() {
      const listed = runner.commands();
      const list = listed.length
        ? `These run at once: ${listed.map((command) => JSON.stringify(command)).join(', ')}. Any other command needs the user's approval: the task waits for their answer, and they may decline.`
        : "No command is approved in advance: each one needs the user's approval, the task waits for their answer, and they may decline.";
      return {
        name: 'run_command',
        description: `Run a command in the workspace folder and read its output. It runs without a shell, split into words as a shell splits plain words and quotes: no pipes, redirections, &&, variables or globs. ${list} Ask only for what the task needs (tests, type checks, a build).`,
        parameters: {
          type: 'object',
          properties: { command: { type: 'string', description: 'The command line, e.g. "npm test".' } },
          required: ['command'],
        },
      };
    },
    run: (args, context) =>
      outcomeOf(async () => {
        const command = new Arguments(args, 'run_command').string('command').trim();
        const problem = commandProblem(command);
        if (problem) throw new ToolFailure(problem);
        let approved = '';
        if (!runner.allows(command)) {
          if (!context.approve) {
            const listed = runner.commands();
            throw new ToolFailure(
              `${quote(command)} is not a command you may run.${listed.length ? ` You may run only: ${listed.map((c) => JSON.stringify(c)).join(', ')}.` : ''}`,
            );
          }
          const answer = await context.approve(command);
          if (!answer.approved) throw new ToolFailure(refusal(command, answer));
          approved =
            answer.how === 'always' ? 'The user approved this command, and it now runs without asking.\n' : 'The user approved this command for this once.\n';
        }
        let result;
        try {
          result = await runner.run(command, context.signal);
        } catch (error) {
          throw new ToolFailure(`${JSON.stringify(command)} cannot be run: ${(error as Error).message}.`);
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
          text: `${approved}$ ${command}\n${result.output}${result.output.endsWith('\n') || result.output === '' ? '' : '\n'}[${command} ${ending}]`,
        };
      }, context.signal),
  };
}

/**
 * Why a command cannot be run or asked for, or undefined: what the user is asked to approve must
 * be what they see, so a command is one line of at most MAX_COMMAND_CHARS printable characters
 * (no control characters, no invisible ones: a right-to-left override could show one command
 * and run another), and splits into words.
 */
export function commandProblem(command: string): string | undefined {
  if (command === '') return 'run_command: "command" is empty: give the command line, e.g. "npm test".';
  if (command.length > MAX_COMMAND_CHARS) return `run_command: the command is ${command.length} characters long; a command has at most ${MAX_COMMAND_CHARS}.`;
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(command)) return `${quote(command)} holds control or invisible characters: a command is one line of visible text.`;
  try {
    splitCommand(command);
  } catch (error) {
    return `${quote(command)} cannot be run: ${(error as Error).message}.`;
  }
  return undefined;
}

/** What the model is told of a command that was not approved. */
function refusal(command: string, answer: Extract<ApprovalOutcome, { approved: false }>): string {
  const goOn = 'It was not run. Go on without it, or finish and say what you would have run and why.';
  switch (answer.why) {
    case 'denied':
      return `The user did not approve ${quote(command)}. ${goOn}`;
    case 'expired':
      return `The user did not approve ${quote(command)}: there was no answer within ${answer.seconds} seconds. ${goOn}`;
    case 'denied_before':
      return `The user did not approve ${quote(command)} when you asked before; it is not asked again. ${goOn}`;
    case 'not_answering':
      return `${quote(command)} was not run: the user did not answer an earlier request, so no other command is asked for now. Go on without it, or finish and say what you would have run and why.`;
  }
}

/** A command as a refusal quotes it: cut, and with every control or invisible character escaped. */
function quote(command: string): string {
  const shown = JSON.stringify(command.slice(0, QUOTED_CHARS)).replace(
    /[\p{Cf}\p{Zl}\p{Zp}\u007f-\u009f]/gu,
    (char) => `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`,
  );
  return command.length > QUOTED_CHARS ? `${shown}… (${command.length} characters)` : shown;
}
