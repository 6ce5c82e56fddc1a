import { Command } from 'commander';
import { startHosted } from '../../hosted/server.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { closeOnSignal, printStarted, SERVER_SETTINGS } from './hosted.ts';

/** `loom up`: everything Loom runs on one machine, with embedded defaults. */
export function upCommand(): Command {
  const command = new Command('up').description('start Loom on this machine with embedded defaults (npm start runs this)');
  return addSettingOptions(command, SERVER_SETTINGS).action(async (_options, command: Command) => {
    const config = configFromOptions(command);
    const hosted = await startHosted(config);
    printStarted(hosted);
    closeOnSignal([hosted]);
  });
}
