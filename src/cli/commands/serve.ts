import { Command } from 'commander';
import type { RunningLocal } from '../../local/server.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { print, printJson, printWarning } from '../output.ts';
import { COMPLETION_SETTINGS } from './complete.ts';
import { closeOnSignal } from './hosted.ts';
import { whenPortTaken } from './open.ts';

export const LOCAL_SETTINGS = ['workspace', 'local.port', 'configDir', 'logLevel', 'catalog', ...COMPLETION_SETTINGS] as const;

/** `loom serve`: the desktop application's local API for one workspace. */
export function serveCommand(): Command {
  const command = new Command('serve')
    .description("start the desktop app's local API (editor, git, events) on 127.0.0.1 and ::1")
    .option('--json', 'once listening, print one line of JSON: {local: {url, api, events, workspace, models, window, token}}')
    .option(
      '--open',
      'open the window in your browser (an app window where the browser has one), signed in by a one-time link; when the app already runs, its window (as loom open)',
    );
  return addSettingOptions(command, LOCAL_SETTINGS).action(async (options: { json?: boolean; open?: boolean }, self: Command) => {
    const config = configFromOptions(self);
    const { startLocal } = await import('../../local/server.ts');
    const local = await startLocal(config).catch((error: unknown) => whenPortTaken(error, config, options));
    // The app already ran here: its window opened, nothing more to do.
    if (!local) return;
    // Signals are handled before the banner: whoever waits for it may send one at once.
    closeOnSignal([local]);
    if (options.json) printJson({ local: localView(local) }, 0);
    else printLocal(local);
    if (options.open) await openLocalWindow(local, { quiet: options.json });
  });
}

/**
 * Opens the window signed in (`--open` of serve and up); a browser that cannot start is a
 * warning, not an end. `quiet` (with --json) prints nothing on stdout.
 */
export async function openLocalWindow(local: RunningLocal, options: { quiet?: boolean } = {}): Promise<void> {
  const { openWindow } = await import('../open-window.ts');
  const problem = await openWindow(local.signInLink());
  if (problem) printWarning(`The window did not open (${problem}). Open ${local.url}/ and sign in with the token (loom token).`);
  else if (!options.quiet) print(`Window            opened in your browser (${local.url}/)\n`);
}

/** Where the local API listens and its token, for --json. */
export function localView(local: RunningLocal): Record<string, unknown> {
  return {
    url: local.url,
    api: `${local.url}/api`,
    events: `ws://127.0.0.1:${local.port}/events`,
    workspace: local.workspace,
    models: local.completion.engine.models(),
    window: `${local.url}/`,
    token: local.token(),
  };
}

export function printLocal(local: RunningLocal): void {
  print(
    [
      `Loom local API    ${local.url}/api   (workspace: ${local.workspace})`,
      `  Events          ws://127.0.0.1:${local.port}/events`,
      `  AI completion   ${local.url}/api/ai/complete   (models: ${local.completion.engine.models().join(', ')}; the builtin one learns the workspace)`,
      `  Window          ${local.url}/   (loom open signs it in)`,
      `  Token           ${local.token()}`,
    ].join('\n') + '\n',
  );
}

/** `loom token [--rotate]`: prints the local API token (creating settings.json on first use). */
export function tokenCommand(): Command {
  const command = new Command('token')
    .description('print the local API token (from settings.json in the config folder)')
    .option('--rotate', 'replace it with a new one (a running server picks it up at once)')
    .option('--json', 'print {token}');
  return addSettingOptions(command, ['configDir']).action(async (options: { rotate?: boolean; json?: boolean }, self: Command) => {
    const { local } = configFromOptions(self);
    const { loadOrCreateSettings, rotateToken } = await import('../../local/settings.ts');
    const token = options.rotate ? rotateToken(local.configDir, printWarning) : loadOrCreateSettings(local.configDir, printWarning).apiToken;
    if (options.json) printJson({ token });
    else print(`${token}\n`);
  });
}
