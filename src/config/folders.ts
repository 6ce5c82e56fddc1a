// Folders the configuration names must exist before a server opens anything: the one check
// both start-ups make, failing as every invalid setting does (ConfigError, exit code 2). And
// Loom's own folders, which a workspace that holds them must not expose (docs/security.md).
import fs from 'node:fs';
import type { LoomFolder } from '../core/workspace/paths.ts';
import { ConfigError, type LoomConfig } from './load.ts';
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

/**
 * Loom's own folders: the config folder (settings.json, with the API token and the commands
 * agents may run), the data folder (the store) and the models folder. Every workspace Loom
 * opens is given them (WorkspacePaths), so that none is read or written through a workspace
 * that holds it.
 *
 * @example
 * loomFolders(config); // [{ path: '/home/ada/.config/loom', what: "Loom's config folder" }, …]
 */
export function loomFolders(config: Pick<LoomConfig, 'dataDir' | 'modelsDir'> & { local: Pick<LoomConfig['local'], 'configDir'> }): LoomFolder[] {
  return [
    { path: config.local.configDir, what: "Loom's config folder" },
    { path: config.dataDir, what: "Loom's data folder" },
    { path: config.modelsDir, what: "Loom's models folder" },
  ];
}
