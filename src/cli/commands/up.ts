import { Command } from 'commander';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { printJson } from '../output.ts';
import { closeOnSignal, hostedView, printStarted, SERVER_SETTINGS } from './hosted.ts';
import { localView, openLocalWindow, printLocal } from './serve.ts';

/** `loom up`: everything Loom runs on one machine, with embedded defaults. */
export function upCommand(): Command {
  const command = new Command('up')
    .description('start Loom on this machine with embedded defaults: the hosted API and the local API (npm start runs this)')
    .option('--json', 'once listening, print one line of JSON: {hosted: {…}, local: {…}}, as loom hosted --json and loom serve --json')
    .option('--open', "open the desktop app's window in your browser, signed in by a one-time link");
  return addSettingOptions(command, [...SERVER_SETTINGS, 'workspace', 'configDir']).action(
    async (options: { json?: boolean; open?: boolean }, self: Command) => {
      const config = configFromOptions(self);
      const [{ startHosted }, { startLocal }, { MCP_PATH }] = await Promise.all([
        import('../../hosted/server.ts'),
        import('../../local/server.ts'),
        import('../../contracts/mcp.ts'),
      ]);
      const local = await startLocal(config);
      // One machine, one user: unless a corpus is configured, the hosted tab completion serves
      // the desktop app's builtin model, which learns the workspace as it is edited.
      const hosted = await startHosted(config, undefined, config.corpusDir ? {} : { builtinModel: local.completion.model }).catch(async (error: unknown) => {
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
