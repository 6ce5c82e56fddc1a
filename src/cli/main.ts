import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/load.ts';
import { LOOM_VERSION } from '../config/version.ts';
import { CatalogError } from '../core/catalog/load.ts';
import { LoomError } from '../core/errors.ts';
import { SettingsError } from '../local/settings.ts';
import { adminCommand } from './commands/admin.ts';
import { agentCommand } from './commands/agent.ts';
import { loginCommand, logoutCommand, whoamiCommand } from './commands/auth.ts';
import { completeCommand } from './commands/complete.ts';
import { commandsCommand, extensionCommand, runCommandCommand } from './commands/extension.ts';
import { hostedCommand } from './commands/hosted.ts';
import { mcpCommand } from './commands/mcp.ts';
import { modelsCommand } from './commands/models.ts';
import { serveCommand, tokenCommand } from './commands/serve.ts';
import { upCommand } from './commands/up.ts';
import { workerCommand } from './commands/worker.ts';
import { printProblem } from './output.ts';

/**
 * The `loom` command and its subcommands, unparsed.
 *
 * @example
 * await buildProgram().parseAsync(['node', 'loom', 'hosted', '--port', '9000']);
 */
export function buildProgram(): Command {
  return new Command('loom')
    .description('Loom: an open, self-hostable AI code editor service')
    .version(LOOM_VERSION)
    .addCommand(upCommand())
    .addCommand(hostedCommand())
    .addCommand(serveCommand())
    .addCommand(tokenCommand())
    .addCommand(adminCommand())
    .addCommand(modelsCommand())
    .addCommand(completeCommand())
    .addCommand(agentCommand())
    .addCommand(extensionCommand())
    .addCommand(commandsCommand())
    .addCommand(runCommandCommand())
    .addCommand(mcpCommand())
    .addCommand(workerCommand())
    .addCommand(loginCommand())
    .addCommand(whoamiCommand())
    .addCommand(logoutCommand());
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().exitOverride().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) process.exit(error.exitCode);
    if (error instanceof ConfigError || error instanceof CatalogError || error instanceof SettingsError) {
      printProblem(error.message);
      process.exit(2);
    }
    if (error instanceof LoomError) {
      printProblem(`${error.message}${error.hint ? ` ${error.hint}` : ''}`);
      process.exit(1);
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'ECONNREFUSED' || code === 'ENOTFOUND') {
      printProblem((error as Error).message);
      process.exit(1);
    }
    throw error;
  }
}
