// docs/configuration.md, rendered from the settings table. `npm run docs:config` writes it;
// test/config/docs.test.ts fails when the file and the table disagree.
import { SETTINGS, type SettingKind, type SettingSpec } from './settings.ts';

export function renderConfigDocs(): string {
  const rows = (SETTINGS as readonly SettingSpec[]).map((spec) =>
    [
      code(spec.key),
      spec.flag ? code(spec.flag) + (spec.qualifiedFlag ? ` (${code(spec.qualifiedFlag)} in \`loom up\`)` : '') : '—',
      spec.env.map(code).join(', ') + (spec.env.length > 1 ? ' (first one set wins)' : ''),
      spec.default !== undefined ? code(String(spec.default)) : (spec.defaultText ?? 'unset'),
      [spec.description, accepted(spec.kind)].filter(Boolean).join(' '),
    ].map(cell),
  );

  return [
    '# Configuration',
    '',
    '<!-- Generated from src/config/settings.ts by `npm run docs:config`. Edit that file, not this one. -->',
    '',
    'Every setting has a documented default, an environment variable and, where it is useful on the',
    'command line, a flag. When a setting is given in several places, the first of these wins:',
    '',
    '1. a command line flag, e.g. `loom hosted --port 9000` (`loom <command> --help` lists the flags of each command);',
    '2. an environment variable, e.g. `LOOM_HOSTED_PORT=9000` (an empty variable counts as unset);',
    '3. the config file;',
    '4. the default.',
    '',
    'A value that is not valid stops Loom before it starts, with exit code 2 and a message that',
    'names where the value came from: the flag, the environment variable, or the file and key.',
    'A refusal whose way out is a setting (no model that can chat, a model file that is not there,',
    "another OpenID issuer) says where to set it: the key in the config file, with the file's path,",
    'the environment variable and, in the desktop app, the key in settings.json, e.g. `gguf.model is',
    '"gguf": {"model": …} in /home/ada/.config/loom/config.json, or LOOM_GGUF_MODEL`. The hosted',
    'API\'s refusals name the files by their roles instead ("the server\'s config file", and under',
    '`loom up` "the desktop app\'s settings.json"): its answers reach every user of the server.',
    '',
    '## One model for completion, agents and composer',
    '',
    'One setting names the model everything uses: `openai.baseUrl` and `openai.model` (an',
    'OpenAI-compatible server; `openai.apiKey` if it needs one), or `gguf.model` (a GGUF file run',
    'in-process). In the config file it serves every process that reads that file: `loom serve`',
    '(completion and agents), `loom hosted` (tab completion and composer sessions) and `loom up`',
    "(all of them, in one process). The desktop app's settings.json may set the same keys under",
    '`completion` (`{"completion": {"openai": {"baseUrl": …, "model": …}}}`); they win over the',
    "config file without a restart, for the desktop app's completion and agents and, under `loom",
    "up`, for the hosted API's tab completion and composer sessions too. A `loom worker` reads its",
    'own config file or environment ([composer.md](composer.md#one-model-for-everything)).',
    '',
    '## Config file',
    '',
    'Loom reads the file named by `--config`, else the one named by `LOOM_CONFIG`, else',
    '`config.json` in the config folder if there is one. A file named by `--config` or `LOOM_CONFIG`',
    'must exist. The config folder is:',
    '',
    '| Platform | Config folder |',
    '|---|---|',
    '| Linux and other Unix systems | `$XDG_CONFIG_HOME/loom` (`~/.config/loom` when `XDG_CONFIG_HOME` is unset) |',
    '| macOS | `~/Library/Preferences/Loom` |',
    '| Windows | `%APPDATA%\\Loom` |',
    '',
    "The file is one JSON object. The dots of a setting's key are nested objects, so `hosted.port`",
    'is written:',
    '',
    '```json',
    '{',
    '  "hosted": { "port": 8080, "host": "0.0.0.0" },',
    '  "rateLimit": { "max": 200 },',
    '  "trustProxy": ["10.0.0.0/8"]',
    '}',
    '```',
    '',
    'Values may be JSON strings, numbers or booleans; a list (such as `trustProxy`) may also be a',
    'JSON array. A key that is not in the table below is an error, so a misspelt setting is never',
    'silently ignored.',
    '',
    '## Settings',
    '',
    '| Setting | Flag | Environment | Default | Meaning |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
  ].join('\n');
}

function accepted(kind: SettingKind): string {
  switch (kind.type) {
    case 'integer':
      return `A whole number from ${kind.min} to ${kind.max}.`;
    case 'url':
      return `A URL with scheme ${kind.protocols.map((p) => code(p.replace(/:$/, ''))).join(' or ')}.`;
    case 'enum':
      return `One of ${kind.values.map(code).join(', ')}.`;
    case 'string':
    case 'trustProxy':
      return '';
  }
}

function code(text: string): string {
  return `\`${text}\``;
}

/** Keeps a table cell on one line and its pipes from ending it. */
function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}
