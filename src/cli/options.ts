// Turns the config schema's flags into commander options, and parsed options back into the
// loader's `flags`, so a setting's flag is declared once (in config/settings.ts).
import type { Command } from 'commander';
import { SETTINGS, type SettingKey, type SettingSpec } from '../config/settings.ts';
import { loadConfig, type LoomConfig } from '../config/load.ts';

/** The settings each command offers as flags; two settings may share a flag in different commands (--port). */
const commandSettings = new WeakMap<Command, readonly SettingKey[]>();

export function addSettingOptions(command: Command, keys: readonly SettingKey[]): Command {
  commandSettings.set(command, keys);
  for (const spec of SETTINGS as readonly SettingSpec[]) {
    if (!spec.flag || !keys.includes(spec.key as SettingKey)) continue;
    command.option(`${spec.flag} <value>`, `${spec.description}${sourcesOf(spec)}`);
  }
  command.option('--config <file>', 'config file (env LOOM_CONFIG; default <config dir>/config.json if present)');
  return command;
}

/** ` (env LOOM_X; default: 27432)`: where else the setting comes from, and its default, for --help. */
function sourcesOf(spec: SettingSpec): string {
  const parts = [];
  if (spec.env.length) parts.push(`env ${spec.env.join(', ')}`);
  const fallback = spec.default !== undefined ? String(spec.default) : spec.defaultText?.replace(/`/g, '');
  if (fallback !== undefined) parts.push(`default: ${fallback}`);
  return parts.length ? ` (${parts.join('; ')})` : '';
}

/** The config of a command's run: its flags (those it offers), the environment, the file, defaults. */
export function configFromOptions(command: Command): LoomConfig {
  const options = command.opts() as Record<string, string | undefined>;
  const keys = commandSettings.get(command) ?? [];
  const flags: Partial<Record<SettingKey, string>> = {};
  for (const spec of SETTINGS as readonly SettingSpec[]) {
    if (!spec.flag || !keys.includes(spec.key as SettingKey)) continue;
    const value = options[camelCase(spec.flag)];
    if (value !== undefined) flags[spec.key as SettingKey] = value;
  }
  return loadConfig({ flags, configFile: options.config });
}

function camelCase(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * A commander option parser for lists: repeatable and comma- or space-separated, duplicates dropped.
 *
 * @example new Command('x').option('--scope <scopes>', 'scopes', listOption) // --scope a,b --scope c → ['a', 'b', 'c']
 */
export function listOption(value: string, previous: string[] = []): string[] {
  return [...new Set([...previous, ...value.split(/[\s,]+/).filter(Boolean)])];
}
