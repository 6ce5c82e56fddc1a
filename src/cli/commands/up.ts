import { Command, Option } from 'commander';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { printJson } from '../output.ts';
import { closeOnSignal, hostedView, printStarted, SERVER_SETTINGS } from './hosted.ts';
import { whenPortTaken } from './open.ts';
import { localView, openLocalWindow, printLocal } from './serve.ts';
import type { LoomConfig } from '../../config/load.ts';
import type { RunningHosted } from '../../hosted/server.ts';
import type { RunningLocal } from '../../local/server.ts';

/** `loom up`: everything Loom runs on one machine, with embedded defaults. */
export function upCommand(): Command {
  const command = new Command('up')
    .description('start Loom on this machine with embedded defaults: the hosted API and the local API (npm start runs this)')
    .option('--json', 'once listening, print one line of JSON: {hosted: {…}, local: {…}}, as loom hosted --json and loom serve --json')
    .option('--open', "open the desktop app's window in your browser, signed in by a one-time link; when the app already runs, its window (as loom open)")
    // Not offered: which of the two servers it would set is not said. Kept to say so.
    .addOption(new Option('--port <value>').hideHelp());
  // Both servers' ports: --hosted-port and --local-port (a bare --port would not say which).
  return addSettingOptions(command, [...SERVER_SETTINGS, 'local.port', 'workspace', 'configDir']).action(
    async (options: { json?: boolean; open?: boolean; port?: string }, self: Command) => {
      if (options.port !== undefined)
        throw new CliError(
          `loom up starts two servers: --hosted-port ${options.port} sets the hosted API's port, --local-port ${options.port} the local API's.`,
          EXIT.usage,
        );
      const config = configFromOptions(self);
      const [{ startLocal }, { MCP_PATH }] = await Promise.all([import('../../local/server.ts'), import('../../contracts/mcp.ts')]);
      const local = await startLocal(config).catch((error: unknown) => whenPortTaken(error, config, options));
      // The app already ran here: its window opened, nothing more to do.
      if (!local) return;
      const hosted = await startHostedBeside(config, local).catch(async (error: unknown) => {
        await local.close();
        throw error;
      });
      // Signals are handled before the banner: whoever waits for it may send one at once.
      closeOnSignal([local, hosted]);
      if (options.json) {
        printJson({ hosted: hostedView(hosted, MCP_PATH), local: localView(local) }, 0);
      } else {
        printStarted(hosted, MCP_PATH);
        printLocal(local);
      }
      if (options.open) await openLocalWindow(local, { quiet: options.json });
    },
  );
}

/**
 * The hosted API beside a running desktop app, as `loom up` starts it: one machine, one user.
 * Unless a corpus is configured, the hosted tab completion serves the desktop app's builtin
 * model, which learns the workspace as it is edited. Tab completion and composer sessions follow
 * the desktop app's model settings (settings.json's completion keys over the config file), as
 * its agents do; the workspace is composer's default, so that {prompt, files} starts a session
 * on it; and the window gets its composer sessions, as the machine's owner.
 *
 * @example
 * const local = await startLocal(config);
 * const hosted = await startHostedBeside(config, local); // the window's composer routes now answer
 */
export async function startHostedBeside(config: LoomConfig, local: RunningLocal): Promise<RunningHosted> {
  const [{ startHosted }, { effectiveCompletion }, { desktopComposer }] = await Promise.all([
    import('../../hosted/server.ts'),
    import('../../local/completion-settings.ts'),
    import('../../core/composer/desktop.ts'),
  ]);
  const hosted = await startHosted(config, undefined, {
    ...(config.corpusDir ? {} : { builtinModel: local.completion.model }),
    completion: {
      current: () => effectiveCompletion(config.completion, local.settings.current.completion),
      onChange: (listener) => void local.settings.onChange(listener),
    },
    defaultWorkspace: local.workspace,
  });
  // With REDIS_URL sessions run on workers, which know only registered workspaces: the window's
  // would not run on this folder, so the window has none (409 COMPOSER_UNAVAILABLE).
  if (!config.redisUrl) local.attachComposer(desktopComposer(hosted.services.composer, hosted.store.users));
  return hosted;
}
