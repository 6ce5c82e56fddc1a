// Folders the configuration names must exist before a server opens anything: the one check
// both start-ups make, failing as every invalid setting does (ConfigError, exit code 2).
import fs from 'node:fs';
import { ConfigError } from './load.ts';
import { SETTINGS, type SettingKey, type SettingSpec } from './settings.ts';

/**
 * Throws ConfigError unless `folder` is an existing folder; the message names the setting's
 * flag and environment variables.
 *
 * @example
 * requireFolder('/tmp/gone', 'The workspace', 'workspace');
 * // ConfigError: The workspace /tmp/gone (--workspace, LOOM_WORKSPACE) is not a folder.
 */
export function requireFolder(folder: string, what: string, key: SettingKey): void {
  if (fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) return;
  const spec = (SETTINGS as readonly SettingSpec[]).find((setting) => setting.key === key)!;
  const names = [spec.flag, ...spec.env].filter(Boolean).join(', ');
  throw new ConfigError(`${what} ${folder} (${names}) is not a folder.`);
}
