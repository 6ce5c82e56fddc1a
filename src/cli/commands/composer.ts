// `loom composer "prompt" …`, `loom composer status|cancel|watch|diff|apply ID` and `loom composer say ID "message"`: composer
// sessions on a hosted server (docs/composer.md), from the command line. The session runs on
// the server; `apply` is the only step that writes on this machine, all or nothing.
//
// This module only defines the commands (commander alone): each action loads the
// implementation, composer/actions.ts, when it runs, so that other commands never load it.
import { Command, InvalidArgumentError, Option } from 'commander';
import type { ApplyOptions, CreateOptions, SayOptions, ServerOptions } from '../composer/actions.ts';
import { cliAction } from '../errors.ts';

/** The session modes, as contracts/composer.ts COMPOSER_MODES has them (test/cli/composer.test.ts checks they agree). */
export const MODES = ['edit', 'plan'] as const;

/** The implementation, loaded when a composer command runs. */
const actions = () => import('../composer/actions.ts');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `loom composer`.
 *
 * @example await buildProgram().parseAsync(['node', 'loom', 'composer', 'Fix add', '--files', 'src/**', '--attach', '--watch']);
 */
export function composerCommand(): Command {
  const start = withServer(
    new Command('start')
      .description('start a session (the default: `loom composer "prompt" …` is `loom composer start "prompt" …`)')
      .argument('<prompt>', 'what the session should do, in your words')
      .option('--files <glob>', 'files the session may change (repeatable), e.g. "src/**"; relative to the workspace, or to --dir with --attach', collect)
      .addOption(new Option('--mode <mode>', 'edit: make the change; plan: say what would change').choices(MODES).default('edit'))
      .option('--workspace <name>', 'a workspace the server operator registered (default: its only one)')
      .option('--attach', 'send the local files matching --files instead of using a workspace')
      .option('--dir <folder>', 'the folder --attach reads (default: the current folder)')
      .option('--watch', 'follow the session: print its plan or its diffs as they come, then its end (exit 1 unless it completes)')
      .option('--json', 'print JSON: the answer {sessionId, status, workspace}; with --watch, one event per line (NDJSON) and the session last'),
  ).action(cliAction(async (prompt: string, options: CreateOptions) => (await actions()).create(prompt, options)));
  // Each subcommand has its own options: the parent has none that could take a subcommand's --json.
  const command = new Command('composer')
    .description('multi-file editing sessions on a hosted server: start one, follow it, apply its edits here')
    .addCommand(start, { isDefault: true });
  return command
    .addCommand(
      withServer(new Command('status').description("a session's status, and its plan or its edits").argument('<sessionId>', 'the session id', sessionId))
        .option('--json', 'print the session as JSON')
        .action(cliAction(async (id: string, options: ServerOptions & { json?: boolean }) => (await actions()).status(id, options))),
    )
    .addCommand(
      withServer(
        new Command('cancel').description('stop a session (the edits it made so far stay readable)').argument('<sessionId>', 'the session id', sessionId),
      )
        .option('--json', 'print the session after the cancel as JSON')
        .action(cliAction(async (id: string, options: ServerOptions & { json?: boolean }) => (await actions()).cancel(id, options))),
    )
    .addCommand(
      withServer(
        new Command('watch')
          .description('follow a session to its end: its plan or its diffs as they come (exit 1 unless it completes)')
          .argument('<sessionId>', 'the session id', sessionId),
      )
        .option('--json', 'one event per line (NDJSON), the session last')
        .action(cliAction(async (id: string, options: ServerOptions & { json?: boolean }) => (await actions()).watch(id, options))),
    )
    .addCommand(
      withServer(
        new Command('say')
          .description('continue a session that has ended with a message: it goes on from its edits (or its plan) on the server')
          .argument('<sessionId>', 'the session id', sessionId)
          .argument('<message>', 'what the session should do next, in your words'),
      )
        .option('--watch', 'follow the run the message starts to its end (exit 1 unless it completes)')
        .option('--json', 'print the session, queued again, as JSON; with --watch, one event per line (NDJSON) and the session last')
        .action(cliAction(async (id: string, message: string, options: SayOptions) => (await actions()).say(id, message, options))),
    )
    .addCommand(
      withServer(new Command('diff').description("a session's edits as one patch (unified diffs)").argument('<sessionId>', 'the session id', sessionId))
        .option('--json', 'print the edits as JSON: [{file, action, from?, diff, baseHash, content}]')
        .action(cliAction(async (id: string, options: ServerOptions & { json?: boolean }) => (await actions()).diff(id, options))),
    )
    .addCommand(
      withServer(
        new Command('apply')
          .description("write a session's edits into this checkout, all or nothing; refused when a file changed since the session read it")
          .argument('<sessionId>', 'the session id', sessionId),
      )
        .option('--dir <folder>', 'the checkout to write into (default: the current folder)')
        .option('--dry-run', 'check everything and say what would be written, write nothing')
        .option('--partial', 'apply the edits of a session that failed or was cancelled (by default only a completed one)')
        .option('--json', 'print {sessionId, applied, dryRun, edits} (or the refusal: {sessionId, applied: false, hostile, conflicts})')
        .action(cliAction(async (id: string, options: ApplyOptions) => (await actions()).apply(id, options))),
    );
}

function withServer(command: Command): Command {
  return command
    .option('--server <url>', 'the hosted server (env LOOM_SERVER; default the configured hosted API, http://127.0.0.1:8080)')
    .option('--token <token>', 'an API key or access token (env LOOM_TOKEN; default the sign-in of loom login)');
}

/** Globs are taken whole (a glob may hold commas: `src/**\/*.{ts,tsx}`), repeatable. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function sessionId(value: string): string {
  if (!UUID.test(value)) throw new InvalidArgumentError('a session id (a UUID, as loom composer printed it)');
  return value.toLowerCase();
}
