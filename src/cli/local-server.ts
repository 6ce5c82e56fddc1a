// The running local API (`loom serve`, `loom up`) that commands such as `loom agent`, `loom git`
// and `loom events` talk to: found where `loom serve` would listen (`--port`, LOOM_LOCAL_PORT,
// the config file), with the token of settings.json in the config folder, as `loom token` prints it.
import type { Command } from 'commander';
import type { LocalClient } from '../client/local.ts';
import { addSettingOptions, configFromOptions } from './options.ts';
import { printWarning } from './output.ts';

export interface LocalServer {
  client: LocalClient;
  /** `http://127.0.0.1:PORT`. */
  url: string;
  token: string;
}

/** Gives a command the settings that find the server: its port and the config folder holding its token. */
export function withLocalServerOptions(command: Command): Command {
  return addSettingOptions(command, ['local.port', 'configDir']);
}

/**
 * The server of a command's settings and a client of it; the client and settings modules load here, not before.
 *
 * @example const { client } = await localServerFor(command); await client.call('getGitStatus');
 */
export async function localServerFor(command: Command): Promise<LocalServer> {
  const { local } = configFromOptions(command);
  const [{ LocalClient }, { loadOrCreateSettings }] = await Promise.all([import('../client/local.ts'), import('../local/settings.ts')]);
  const { apiToken } = loadOrCreateSettings(local.configDir, printWarning);
  const url = `http://127.0.0.1:${local.port}`;
  return { client: new LocalClient({ url, token: apiToken }), url, token: apiToken };
}
