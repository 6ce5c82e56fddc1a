// `loom open`: the running app's window in the browser, signed in by a one-time link the app
// gives (`POST /api/session/link`, with the token and the data dir's link key) — never a second
// server. `loom serve --open` and `loom up --open` come here too when the app already runs.
import { Command } from 'commander';
import type { LoomConfig } from '../../config/load.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { print, printJson, printWarning } from '../output.ts';

/** What asking the running app for its window gave. */
export type RunningWindow = { opened: true; url: string } | { opened: false; url: string; problem: string };

/**
 * Asks the app running on `config`'s port and data dir for a one-time sign-in link and opens it
 * in the browser (open-window.ts). Throws CliError: exit 3 when no app answers there, 1 when it
 * refuses (another program on the port, another data dir, a token that is not its own).
 *
 * @example const window = await openRunningWindow(configFromOptions(command));
 */
export async function openRunningWindow(config: LoomConfig): Promise<RunningWindow> {
  const [{ LocalClient, LocalApiError }, { readLinkKey }, { loadOrCreateSettings }, { openWindow }] = await Promise.all([
    import('../../client/local.ts'),
    import('../../local/window/link-key.ts'),
    import('../../local/settings.ts'),
    import('../open-window.ts'),
  ]);
  const url = `http://127.0.0.1:${config.local.port}`;
  const key = readLinkKey(config.dataDir);
  if (!key)
    throw new CliError(
      `No Loom app has run with the data dir ${config.dataDir}, so none can sign a window in from here. Start it with loom up --open (or loom serve --open).`,
      EXIT.failure,
    );
  const client = new LocalClient({ url, token: loadOrCreateSettings(config.local.configDir, printWarning).apiToken });
  let link: string;
  try {
    link = (await client.call('createSignInLink', { body: { key } })).url;
  } catch (error) {
    if (!(error instanceof LocalApiError)) throw error;
    if (error.code === 'UNREACHABLE')
      throw new CliError(`Loom is not running at ${url}. Start it with loom up --open (or loom serve --open).`, EXIT.unreachable);
    throw new CliError(
      `The app at ${url} gave no sign-in link: ${error.message} Is it another user's Loom, or one with another config folder or data dir?`,
      EXIT.failure,
    );
  }
  const problem = await openWindow(link);
  return problem ? { opened: false, url, problem } : { opened: true, url };
}

/** Says what `openRunningWindow` did: a browser that could not start is a warning, not an end. */
export function reportWindow(window: RunningWindow, options: { json?: boolean } = {}): void {
  if (options.json) printJson({ url: `${window.url}/`, opened: window.opened, ...(window.opened ? {} : { problem: window.problem }) });
  if (!window.opened) printWarning(`The window did not open (${window.problem}). Open ${window.url}/ and sign in with the token (loom token).`);
  else if (!options.json) print(`Window            opened in your browser (${window.url}/)\n`);
}

/** `loom open`: the running app's window, signed in. */
export function openCommand(): Command {
  const command = new Command('open')
    .description("open the running app's window in your browser, signed in by a one-time link it gives (loom up --open starts the app and opens it)")
    .option('--json', 'print {url, opened}');
  return addSettingOptions(command, ['local.port', 'configDir', 'dataDir']).action(async (options: { json?: boolean }, self: Command) => {
    reportWindow(await openRunningWindow(configFromOptions(self)), options);
  });
}

/**
 * A start that found its port taken: with `--open`, the app already running there opens its
 * window (and the command ends, its work done); else, or when no Loom answers there, the
 * error says what runs and what to do.
 */
export async function whenPortTaken(error: unknown, config: LoomConfig, options: { open?: boolean; json?: boolean }): Promise<void> {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== 'EADDRINUSE') throw error;
  if (options.open) {
    try {
      const window = await openRunningWindow(config);
      if (!options.json) print(`Loom already runs at ${window.url}: its window, not a second server.\n`);
      reportWindow(window, options);
      return;
    } catch (asked) {
      if (!(asked instanceof CliError) || asked.exitCode === EXIT.unreachable) throw portTaken(config);
      throw asked;
    }
  }
  throw portTaken(config);
}

function portTaken(config: LoomConfig): CliError {
  return new CliError(
    `Port ${config.local.port} is taken: Loom may already run there (loom open opens its window; loom status says what runs), or another program holds it (--local-port picks another).`,
    EXIT.failure,
  );
}
