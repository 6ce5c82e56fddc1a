// Turns the config schema's flags into commander options, and parsed options back into the
// loader's `flags`, so a setting's flag is declared once (in config/settings.ts).
import type { Command } from 'commander';
import { SETTINGS, type SettingKey, type SettingSpec } from '../config/settings.ts';
import { loadConfig, type LoomConfig } from '../config/load.ts';

/** The settings each command offers as flags, with the flag each has there. */
const commandSettings = new WeakMap<Command, Map<SettingKey, string>>();

/**
 * Offers the settings `keys` as flags of `command`. Two settings may share a flag in different
 * commands (`--port`: the hosted port of `loom hosted`, the local one of `loom serve`); a
 * command offering both gives each its `qualifiedFlag` instead (`loom up --hosted-port`,
 * `--local-port`).
 *
 * @example addSettingOptions(new Command('up'), ['hosted.port', 'local.port']); // --hosted-port, --local-port
 */
export function addSettingOptions(command: Command, keys: readonly SettingKey[]): Command {
  const offered = (SETTINGS as readonly SettingSpec[]).filter((spec) => spec.flag && keys.includes(spec.key as SettingKey));
  const flags = new Map<SettingKey, string>();
  for (const spec of offered) {
    const shared = offered.some((other) => other !== spec && other.flag === spec.flag);
    if (shared && !spec.qualifiedFlag) throw new Error(`${spec.key} shares ${spec.flag} with another setting of this command and has no qualifiedFlag`);
    const flag = shared ? spec.qualifiedFlag! : spec.flag!;
    flags.set(spec.key as SettingKey, flag);
    command.option(`${flag} <value>`, `${spec.description}${sourcesOf(spec)}`);
  }
  commandSettings.set(command, flags);
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
  const offered = commandSettings.get(command) ?? new Map<SettingKey, string>();
  const flags: Partial<Record<SettingKey, string>> = {};
  const flagNames: Partial<Record<SettingKey, string>> = {};
  for (const [key, flag] of offered) {
    const value = options[camelCase(flag)];
    if (value === undefined) continue;
    flags[key] = value;
    flagNames[key] = flag;
  }
  return loadConfig({ flags, flagNames, configFile: options.config });
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
