import { Command } from 'commander';
import { startHosted } from '../../hosted/server.ts';
import { startLocal } from '../../local/server.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { closeOnSignal, printStarted, SERVER_SETTINGS } from './hosted.ts';
import { openLocalWindow, printLocal } from './serve.ts';

/** `loom up`: everything Loom runs on one machine, with embedded defaults. */
export function upCommand(): Command {
  const command = new Command('up').description('start Loom on this machine with embedded defaults: the hosted API and the local API (npm start runs this)');
  command.option('--open', "open the desktop app's window in your browser, signed in by a one-time link");
  return addSettingOptions(command, [...SERVER_SETTINGS, 'workspace', 'configDir']).action(async (options: { open?: boolean }, self: Command) => {
    const config = configFromOptions(self);
    const local = await startLocal(config);
    // One machine, one user: unless a corpus is configured, the hosted tab completion serves
    // the desktop app's builtin model, which learns the workspace as it is edited.
    const hosted = await startHosted(config, undefined, config.corpusDir ? {} : { builtinModel: local.completion.model }).catch(async (error: unknown) => {
      await local.close();
      throw error;
    });
    // Signals are handled before the banner: whoever waits for it may send one at once.
    closeOnSignal([local, hosted]);
    printStarted(hosted);
    printLocal(local);
    if (options.open) await openLocalWindow(local);
  });
}
