import { Command } from 'commander';
import { startLocal, type RunningLocal } from '../../local/server.ts';
import { loadOrCreateSettings, rotateToken } from '../../local/settings.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { openWindow } from '../open-window.ts';
import { print, printWarning } from '../output.ts';
import { COMPLETION_SETTINGS } from './complete.ts';
import { closeOnSignal } from './hosted.ts';

export const LOCAL_SETTINGS = ['workspace', 'local.port', 'configDir', 'logLevel', 'catalog', ...COMPLETION_SETTINGS] as const;

/** `loom serve`: the desktop application's local API for one workspace. */
export function serveCommand(): Command {
  const command = new Command('serve').description("start the desktop app's local API (editor, git, events) on 127.0.0.1 and ::1");
  command.option('--open', 'open the window in your browser (an app window where the browser has one), signed in by a one-time link');
  return addSettingOptions(command, LOCAL_SETTINGS).action(async (options: { open?: boolean }, self: Command) => {
    const config = configFromOptions(self);
    const local = await startLocal(config);
    // Signals are handled before the banner: whoever waits for it may send one at once.
    closeOnSignal([local]);
    printLocal(local);
    if (options.open) await openLocalWindow(local);
  });
}

/** Opens the window signed in (`--open` of serve and up); a browser that cannot start is a warning, not an end. */
export async function openLocalWindow(local: RunningLocal): Promise<void> {
  const problem = await openWindow(local.signInLink());
  if (problem) printWarning(`The window did not open (${problem}). Open ${local.url}/ and sign in with the token (loom token).`);
  else print(`Window            opened in your browser (${local.url}/)\n`);
}

export function printLocal(local: RunningLocal): void {
  print(
    [
      `Loom local API    ${local.url}/api   (workspace: ${local.workspace})`,
      `  Events          ws://127.0.0.1:${local.port}/events`,
      `  AI completion   ${local.url}/api/ai/complete   (models: ${local.completion.engine.models().join(', ')}; the builtin one learns the workspace)`,
      `  Window          ${local.url}/   (loom serve --open signs it in)`,
      `  Token           ${local.token()}`,
    ].join('\n') + '\n',
  );
}

/** `loom token [--rotate]`: prints the local API token (creating settings.json on first use). */
export function tokenCommand(): Command {
  const command = new Command('token')
    .description('print the local API token (from settings.json in the config folder)')
    .option('--rotate', 'replace it with a new one (a running server picks it up at once)');
  return addSettingOptions(command, ['configDir']).action(async (options: { rotate?: boolean }, self: Command) => {
    const { local } = configFromOptions(self);
    const token = options.rotate ? rotateToken(local.configDir, printWarning) : loadOrCreateSettings(local.configDir, printWarning).apiToken;
    print(`${token}\n`);
  });
}
