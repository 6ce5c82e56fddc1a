// Turns the config schema's flags into commander options, and parsed options back into the
// loader's `flags`, so a setting's flag is declared once (in config/settings.ts).
import type { Command } from 'commander';
import { SETTINGS, type SettingKey, type SettingSpec } from '../config/settings.ts';
import { loadConfig, type LoomConfig } from '../config/load.ts';

export function addSettingOptions(command: Command, keys: readonly SettingKey[]): Command {
  for (const spec of SETTINGS as readonly SettingSpec[]) {
    if (!spec.flag || !keys.includes(spec.key as SettingKey)) continue;
    const env = spec.env.length ? ` (env ${spec.env.join(', ')})` : '';
    command.option(`${spec.flag} <value>`, `${spec.description}${env}`);
  }
  command.option('--config <file>', 'config file (env LOOM_CONFIG; default <config dir>/config.json if present)');
  return command;
}

export function configFromOptions(options: Record<string, string | undefined>): LoomConfig {
  const flags: Partial<Record<SettingKey, string>> = {};
  for (const spec of SETTINGS as readonly SettingSpec[]) {
    if (!spec.flag) continue;
    const value = options[camelCase(spec.flag)];
    if (value !== undefined) flags[spec.key as SettingKey] = value;
  }
  return loadConfig({ flags, configFile: options.config });
}

function camelCase(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
