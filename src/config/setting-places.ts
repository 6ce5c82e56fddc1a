// Where a user sets a setting on this machine, for the hints of refusals whose way out is a
// setting: the file and its key, and the environment variable. Core names settings by their key
// (`gguf.model`) and knows no files; the servers hand it `explainSettings(...)`, which adds the
// places of each key a hint names.
import path from 'node:path';
import { defaultConfigDir } from './paths.ts';
import type { LoomConfig } from './load.ts';
import { SETTINGS, type SettingSpec } from './settings.ts';

/** The files a process reads its settings from. */
export interface SettingFiles {
  /** The config file: the one read, else where Loom looks for one. */
  configFile: string;
  /** The desktop app's settings.json, for a process that reads it (`loom serve`, `loom up`): its `completion` keys win, without a restart. */
  settingsFile?: string;
}

/** The settings settings.json's `completion` object holds, under the key each has there. */
const SETTINGS_JSON_KEYS: Record<string, string> = {
  'completion.provider': 'completion.provider',
  'completion.timeoutMs': 'completion.timeoutMs',
  'completion.maxTokens': 'completion.maxTokens',
  'completion.prefixChars': 'completion.prefixChars',
  'completion.suffixChars': 'completion.suffixChars',
  'gguf.model': 'completion.gguf.model',
  'gguf.gpu': 'completion.gguf.gpu',
  'gguf.contextSize': 'completion.gguf.contextSize',
  'openai.baseUrl': 'completion.openai.baseUrl',
  'openai.apiKey': 'completion.openai.apiKey',
  'openai.model': 'completion.openai.model',
  'openai.fim': 'completion.openai.fim',
};

/**
 * The files of a configuration: its config file (the one read, else the default one), and
 * settings.json in its config folder when `desktop`. A hosted server (`hosted`) names no path:
 * its files by their roles (with `desktop` too under `loom up`, whose hosted server follows
 * settings.json's completion keys).
 *
 * @example settingFiles(config, { desktop: true }) // { configFile: '/home/ada/.config/loom/config.json', settingsFile: '/home/ada/.config/loom/settings.json' }
 * @example settingFiles(config, { hosted: true }) // { configFile: "the server's config file" }
 * @example settingFiles(config, { hosted: true, desktop: true }) // { configFile: "the server's config file", settingsFile: "the desktop app's settings.json" }
 */
export function settingFiles(
  config: LoomConfig,
  options: { desktop?: boolean; hosted?: boolean; env?: Record<string, string | undefined> } = {},
): SettingFiles {
  // A hosted server's answers reach every user: they name the file by its role, not by where it lies on the server.
  // Under `loom up` it follows the desktop app's settings.json too (its completion keys), named so as well.
  if (options.hosted) return { configFile: "the server's config file", ...(options.desktop ? { settingsFile: "the desktop app's settings.json" } : {}) };
  return {
    configFile: config.configFile ?? path.join(defaultConfigDir(options.env ?? process.env), 'config.json'),
    ...(options.desktop ? { settingsFile: path.join(config.local.configDir, 'settings.json') } : {}),
  };
}

/**
 * Where `key` is set, most immediate first: settings.json (the desktop app's completion
 * settings), then the config file, then the environment.
 *
 * @example settingPlaces('gguf.model', { configFile: '/c/config.json' }) // '"gguf": {"model": …} in /c/config.json, or LOOM_GGUF_MODEL'
 */
export function settingPlaces(key: string, files: SettingFiles): string {
  const spec = (SETTINGS as readonly SettingSpec[]).find((setting) => setting.key === key);
  if (!spec) return key;
  const places: string[] = [];
  const inSettingsJson = SETTINGS_JSON_KEYS[key];
  if (files.settingsFile && inSettingsJson) places.push(`${nested(inSettingsJson)} in ${files.settingsFile} (applies at once)`);
  places.push(`${nested(key)} in ${files.configFile}`);
  if (spec.env.length) places.push(spec.env.join(' or '));
  return places.join(', or ');
}

/**
 * A function that adds to a hint where each setting it names is set, as a last sentence:
 * `… Set gguf.model to a .gguf file. Where: gguf.model is "gguf": {"model": …} in /c/config.json, or LOOM_GGUF_MODEL.`
 * A hint that names no setting is returned as it is.
 *
 * @example const explain = explainSettings(settingFiles(config)); throw new LoomError(code, message, explain(hint));
 */
export function explainSettings(files: SettingFiles): (hint: string) => string {
  // Dotted keys only: a single word (`workspace`, `catalog`) is too often just a word.
  // Each key's pattern made once (keys are Loom's own names, never input): a key counts where it stands alone.
  const keys = (SETTINGS as readonly SettingSpec[])
    .map((spec) => spec.key)
    .filter((key) => key.includes('.'))
    .sort((a, b) => b.length - a.length)
    .map((key) => ({ key, pattern: new RegExp(`(^|[^\\w.])${key.replace(/\./g, '\\.')}(?![\\w.])`) }));
  return (hint) => {
    if (hint.includes(' Where: ')) return hint;
    const named = keys.filter(({ pattern }) => pattern.test(hint)).map(({ key }) => key);
    if (named.length === 0) return hint;
    return `${hint.replace(/\s+$/, '')} Where: ${named.map((key) => `${key} is ${settingPlaces(key, files)}`).join('; ')}.`;
  };
}

/** `gguf.model` → `"gguf": {"model": …}`: the key as the JSON a file holds. */
function nested(key: string): string {
  const parts = key.split('.');
  return parts.reduceRight((inner, part) => `{"${part}": ${inner}}`, '…').replace(/^\{(.*)\}$/, '$1');
}
