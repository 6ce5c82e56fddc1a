// The running local API (`loom serve`, `loom up`) that commands such as `loom agent`, `loom git`
// and `loom events` talk to: found where `loom serve` would listen (`--port`, LOOM_LOCAL_PORT,
// the config file), with the token of settings.json in the config folder, as `loom token` prints it.
import fs from 'node:fs';
import path from 'node:path';
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
  const { LocalClient } = await import('../client/local.ts');
  const apiToken = storedToken(local.configDir) ?? (await import('../local/settings.ts')).loadOrCreateSettings(local.configDir, printWarning).apiToken;
  const url = `http://127.0.0.1:${local.port}`;
  return { client: new LocalClient({ url, token: apiToken }), url, token: apiToken };
}

/**
 * The token of a settings.json the running server wrote, read without validating the whole file
 * (compiling the settings schema is most of a command's start-up). Anything unusual (no file,
 * not JSON, loose permissions, no token) goes the full way: loadOrCreateSettings says what is wrong.
 */
function storedToken(configDir: string): string | undefined {
  try {
    const file = path.join(configDir, 'settings.json');
    if (process.platform !== 'win32' && (fs.statSync(file).mode & 0o077) !== 0) return undefined;
    const token = (JSON.parse(fs.readFileSync(file, 'utf8')) as { apiToken?: unknown }).apiToken;
    return typeof token === 'string' && /^[\x21-\x7e]{24,512}$/.test(token) ? token : undefined;
  } catch {
    return undefined;
  }
}
