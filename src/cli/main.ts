// The `loom` program: its commands and how a failure becomes one line and an exit code.
//
// Start-up speed: bin/loom.js runs this file compiled (scripts/build-cli.js), and every command
// loads only what its definition needs. A command module defines its options cheaply and its
// action imports the implementation (servers, store, models) with `await import(…)`; `npm test
// -- test/cli/startup.test.ts` fails when a heavy package is loaded before a command runs.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/load.ts';
import { LOOM_VERSION } from '../config/version.ts';
import { LoomError } from '../core/errors.ts';
import { adminCommand } from './commands/admin.ts';
import { agentCommand } from './commands/agent.ts';
import { loginCommand, logoutCommand, whoamiCommand } from './commands/auth.ts';
import { codeCommand } from './commands/code.ts';
import { completeCommand } from './commands/complete.ts';
import { completionCommand } from './commands/completion.ts';
import { composerCommand } from './commands/composer.ts';
import { doctorCommand } from './commands/doctor.ts';
import { downloadsCommand } from './commands/downloads.ts';
import { eventsCommand } from './commands/events.ts';
import { commandsCommand, extensionCommand, runCommandCommand } from './commands/extension.ts';
import { feedbackCommand } from './commands/feedback.ts';
import { gitCommand } from './commands/git.ts';
import { hostedCommand } from './commands/hosted.ts';
import { mcpCommand } from './commands/mcp.ts';
import { modelsCommand } from './commands/models.ts';
import { openCommand } from './commands/open.ts';
import { serveCommand, tokenCommand } from './commands/serve.ts';
import { statusCommand } from './commands/status.ts';
import { upCommand } from './commands/up.ts';
import { workerCommand } from './commands/worker.ts';
import { CliError } from './errors.ts';
import { EXIT } from './exit-codes.ts';
import { printProblem } from './output.ts';
import { runtime } from './runtime.ts';

/** Every top-level command, in the order `loom --help` lists them. Adding a command: one import and one entry. */
const COMMANDS: (() => Command)[] = [
  upCommand,
  hostedCommand,
  serveCommand,
  openCommand,
  tokenCommand,
  adminCommand,
  modelsCommand,
  completeCommand,
  agentCommand,
  composerCommand,
  extensionCommand,
  commandsCommand,
  runCommandCommand,
  mcpCommand,
  workerCommand,
  gitCommand,
  codeCommand,
  eventsCommand,
  downloadsCommand,
  feedbackCommand,
  loginCommand,
  whoamiCommand,
  logoutCommand,
  statusCommand,
  doctorCommand,
  completionCommand,
];

/** The width `loom --help` is laid out for: wrapped descriptions fit a 100-column terminal. */
const ROOT_HELP_WIDTH = 100;

/**
 * The `loom` command and its subcommands, unparsed.
 *
 * @example
 * await buildProgram().parseAsync(['node', 'loom', 'hosted', '--port', '9000']);
 */
export function buildProgram(): Command {
  const program = new Command('loom').description('Loom: an open, self-hostable AI code editor service').version(LOOM_VERSION);
  // The list of commands is laid out for ROOT_HELP_WIDTH columns on every terminal and pipe, so
  // `loom --help` is one text that the build renders once and bin/loom.js prints without loading
  // commander (bin/build-stamp.js prerenderedHelp). A command's own help follows the terminal.
  program.configureHelp({ helpWidth: ROOT_HELP_WIDTH });
  for (const command of COMMANDS) program.addCommand(command());
  return program;
}

/**
 * Runs `loom` with `argv` (process.argv's shape) and sets the exit code (docs/cli.md, "Exit codes");
 * `how.compiled` says bin/loom.js started the compiled build (loom doctor reports it).
 *
 * @example await main(['node', 'loom', 'whoami', '--json']);
 */
export async function main(argv: string[], how: { compiled?: boolean } = {}): Promise<void> {
  runtime.compiled = how.compiled === true;
  try {
    const program = buildProgram();
    // Every command, not only the root (addCommand does not pass settings on): main() owns the
    // exit code, and a usage error is one `loom: …` line like every other failure.
    const configure = (command: Command): void => {
      command.exitOverride();
      command.configureOutput({ outputError: (message) => printProblem(usageProblem(message, command)) });
      command.commands.forEach(configure);
    };
    configure(program);
    await program.parseAsync(argv);
  } catch (error) {
    // commander has printed its message: 0 for --help and --version, 2 for a usage error.
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
    const exitCode = await exitCodeOf(error);
    if (exitCode === undefined) throw error;
    const hint = error instanceof LoomError && error.hint ? ` ${error.hint}` : '';
    printProblem(`${(error as Error).message}${hint}`);
    process.exit(exitCode);
  }
}

/**
 * commander's message for a usage error (`error: unknown option '--bogus'`, a suggestion on a
 * line of its own) as one line that says where the usage is: `unknown option '--bogus' (did
 * you mean --json?); see loom status --help`.
 *
 * @example usageProblem("error: unknown command 'stauts'\n(Did you mean status?)\n", program)
 */
export function usageProblem(message: string, command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  const text = message
    .trim()
    .replace(/^error: /, '')
    .replace(/\s*\n\(Did you mean (.+)\?\)$/, ' (did you mean $1?)')
    .replace(/\.$/, '');
  return `${text}; see ${names.join(' ')} --help`;
}

/** A server that cannot start (its port, its database or Redis): exit 1, as documented for loom hosted and loom worker. */
const CANNOT_START = new Set(['EADDRINUSE', 'EACCES', 'ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ECONNRESET']);

/** The exit code of a failure the user can act on, or undefined for a bug (its stack is worth showing). */
async function exitCodeOf(error: unknown): Promise<number | undefined> {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof ConfigError) return EXIT.usage;
  // Loaded only on this path: they are heavy, and most runs never fail.
  const [{ CatalogError }, { SettingsError }] = await Promise.all([import('../core/catalog/load.ts'), import('../local/settings.ts')]);
  if (error instanceof CatalogError || error instanceof SettingsError) return EXIT.usage;
  if (error instanceof LoomError) return EXIT.failure;
  // Commands that call a server say exit 3 themselves (CliError); a bare network error comes from a start-up.
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && CANNOT_START.has(code)) return EXIT.failure;
  return undefined;
}
