// The desktop app's "advanced settings": settings.json in the user's config folder, holding the
// local API token, webhooks and local rate limits. Edits apply without a restart; an invalid
// file is reported and the last good settings stay in force.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { jsonSyntaxProblem } from '../config/json-syntax.ts';
import type { AgentSettingsOverride } from '../core/agents/settings.ts';
import type { CompletionConfig } from '../core/completion/config.ts';
import { settingSchema } from '../config/setting-schema.ts';
import { WEBHOOK_EVENT_TYPES } from '../core/events/bus.ts';
import { LoomError } from '../core/errors.ts';
import { withFileSystemErrors } from '../core/files/fs-errors.ts';
import { ensurePrivateDir, tightenPrivateFile, type ModeWarning } from '../core/files/private-files.ts';
import { writeFileAtomically } from '../core/files/write-atomically.ts';

export const SETTINGS_FILE = 'settings.json';
/** Most commands `agents.commands` lists. */
const MAX_AGENT_COMMANDS = 100;

const WebhookEntry = Type.Object(
  {
    url: Type.String({ pattern: '^https?://', maxLength: 2048 }),
    events: Type.Array(Type.Union([...WEBHOOK_EVENT_TYPES.map((e) => Type.Literal(e)), Type.Literal('*')]), { minItems: 1 }),
    secret: Type.String({ minLength: 8, maxLength: 512 }),
  },
  { additionalProperties: false },
);

/**
 * Overrides of the completion settings (docs/configuration.md); each applies without a restart.
 * What each key accepts comes from the config schema.
 */
const CompletionSettingsSchema = Type.Object(
  {
    provider: Type.Optional(settingSchema('completion.provider')),
    timeoutMs: Type.Optional(settingSchema('completion.timeoutMs')),
    maxTokens: Type.Optional(settingSchema('completion.maxTokens')),
    prefixChars: Type.Optional(settingSchema('completion.prefixChars')),
    suffixChars: Type.Optional(settingSchema('completion.suffixChars')),
    gguf: Type.Optional(
      Type.Object(
        {
          model: settingSchema('gguf.model', { minLength: 1, maxLength: 4096 }),
          gpu: Type.Optional(settingSchema('gguf.gpu')),
          contextSize: Type.Optional(settingSchema('gguf.contextSize')),
        },
        { additionalProperties: false },
      ),
    ),
    openai: Type.Optional(
      Type.Object(
        {
          baseUrl: settingSchema('openai.baseUrl', { maxLength: 2048 }),
          apiKey: Type.Optional(settingSchema('openai.apiKey', { maxLength: 4096 })),
          model: settingSchema('openai.model', { minLength: 1, maxLength: 200 }),
          fim: Type.Optional(settingSchema('openai.fim')),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/**
 * Agent tasks' defaults (docs/agents.md), each applying to tasks started after the edit; the
 * budgets' limits come from the config schema. `commands` lists the commands agents run without
 * asking, each matched exactly (no shell); the window's "always" adds to it (addAgentCommand).
 */
const AgentSettingsSchema = Type.Object(
  {
    maxSteps: Type.Optional(settingSchema('agents.maxSteps')),
    maxTokens: Type.Optional(settingSchema('agents.maxTokens')),
    timeoutSeconds: Type.Optional(settingSchema('agents.timeoutSeconds')),
    commandTimeoutSeconds: Type.Optional(settingSchema('agents.commandTimeoutSeconds')),
    approvalTimeoutSeconds: Type.Optional(settingSchema('agents.approvalTimeoutSeconds')),
    mapTokens: Type.Optional(settingSchema('agents.mapTokens')),
    rulesTokens: Type.Optional(settingSchema('agents.rulesTokens')),
    commands: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S' }), { maxItems: MAX_AGENT_COMMANDS })),
  },
  { additionalProperties: false },
);

/**
 * Language servers (docs/code-intelligence.md), by name: a bundled one (`typescript`, `python`)
 * or one Loom looks for on PATH (`go`, `rust`, `c`) replaced by `command` or turned off by
 * `enabled: false`; another name adds a server for the languages it lists (its own name
 * otherwise). A command is absolute or a bare name found on PATH, and runs only in a trusted
 * workspace. Edits apply without a restart: a server whose entry changed is stopped and starts
 * again when needed.
 */
const LanguageServerEntry = Type.Object(
  {
    command: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, pattern: '^(/|[A-Za-z]:[\\\\/]|[^/\\\\]+$)' })),
    args: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 100 })),
    languages: Type.Optional(Type.Array(Type.String({ pattern: '^[a-z][a-z0-9+._-]{0,39}$' }), { minItems: 1, maxItems: 50 })),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const LanguageServersSchema = Type.Record(Type.String({ pattern: '^[a-z][a-z0-9+._-]{0,39}$' }), LanguageServerEntry, {
  maxProperties: 50,
  additionalProperties: false,
});

/** The shape CompletionSettingsSchema checks, in the config's own types. */
type Scalars = Pick<CompletionConfig, 'provider' | 'timeoutMs' | 'maxTokens' | 'prefixChars' | 'suffixChars'>;
type GgufSettings = NonNullable<CompletionConfig['gguf']>;
type OpenAiSettings = NonNullable<CompletionConfig['openai']>;
export type CompletionSettings = Partial<Scalars> & {
  gguf?: Pick<GgufSettings, 'model'> & Partial<GgufSettings>;
  openai?: Pick<OpenAiSettings, 'baseUrl' | 'model'> & Partial<OpenAiSettings>;
};

const LocalSettingsSchema = Type.Object(
  {
    apiToken: Type.String({ minLength: 24, maxLength: 512, pattern: '^[\\x21-\\x7e]+$' }),
    webhooks: Type.Optional(Type.Array(WebhookEntry, { maxItems: 100 })),
    rateLimits: Type.Optional(
      Type.Object(
        {
          aiComplete: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
          default: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    completion: Type.Optional(CompletionSettingsSchema),
    agents: Type.Optional(AgentSettingsSchema),
    languageServers: Type.Optional(LanguageServersSchema),
  },
  // Unknown keys are kept (a newer Loom may have written them) but not used.
  { additionalProperties: true },
);

export type LocalSettings = Omit<Static<typeof LocalSettingsSchema>, 'completion' | 'agents'> & {
  completion?: CompletionSettings;
  agents?: AgentSettingsOverride;
};

const checkSettings = Compile(LocalSettingsSchema);

export function newApiToken(): string {
  return `loom_${randomBytes(32).toString('base64url')}`;
}

/** Reads and validates a settings file; returns the problems instead of throwing. */
export function parseSettings(text: string): { settings?: LocalSettings; problems: string[] } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { problems: [jsonSyntaxProblem(error, text)] };
  }
  if (!checkSettings.Check(data)) {
    return { problems: [...checkSettings.Errors(data)].slice(0, 10).map((e) => `${e.instancePath || '/'} ${e.message}`) };
  }
  return { settings: data as LocalSettings, problems: [] };
}

/**
 * Writes the file atomically with owner-only permissions (it holds the token and secrets), in a
 * folder for the owner only; `warn` hears of a folder that was open to other users.
 */
export function writeSettings(dir: string, settings: LocalSettings, warn: ModeWarning = () => {}): void {
  ensurePrivateDir(dir, warn);
  writeFileAtomically(path.join(dir, SETTINGS_FILE), JSON.stringify(settings, null, 2) + '\n', 0o600);
}

/**
 * Loads settings.json, creating it with a fresh token on first run. Throws on an invalid file.
 * A folder or file found open to other users is made owner-only, and `warn` hears of it.
 */
export function loadOrCreateSettings(dir: string, warn: ModeWarning = () => {}): LocalSettings {
  const file = path.join(dir, SETTINGS_FILE);
  if (!fs.existsSync(file)) {
    const settings: LocalSettings = { apiToken: newApiToken(), webhooks: [] };
    writeSettings(dir, settings, warn);
    return settings;
  }
  ensurePrivateDir(dir, warn);
  tightenPrivateFile(file, warn);
  const { settings, problems } = parseSettings(fs.readFileSync(file, 'utf8'));
  if (!settings) throw new SettingsError(`${file} is invalid: ${problems.join('; ')}`);
  return settings;
}

export class SettingsError extends Error {
  override name = 'SettingsError';
}

/** Replaces the API token; the running server picks the new one up from the file. */
export function rotateToken(dir: string, warn: ModeWarning = () => {}): string {
  const settings = loadOrCreateSettings(dir, warn);
  const apiToken = newApiToken();
  writeSettings(dir, { ...settings, apiToken }, warn);
  return apiToken;
}

/**
 * The settings in force, following edits of the file. A file that does not parse or validate
 * is reported through `onInvalid` and ignored; the last good settings stay.
 */
export class LiveSettings {
  private value: LocalSettings;
  /** What loading found open to other users and put right, for the server to log. */
  readonly warnings: string[] = [];
  private watcher?: fs.FSWatcher;
  private timer?: NodeJS.Timeout;
  private lastProblems: readonly string[] = [];
  private readonly listeners = new Set<(settings: LocalSettings) => void>();

  constructor(
    readonly dir: string,
    private readonly onInvalid: (problems: string[]) => void = () => {},
  ) {
    this.value = loadOrCreateSettings(dir, (warning) => this.warnings.push(warning));
  }

  get current(): LocalSettings {
    return this.value;
  }

  /** What was wrong with the file when it was last read; empty when it was good. */
  get problems(): readonly string[] {
    return this.lastProblems;
  }

  onChange(listener: (settings: LocalSettings) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Watches the folder (editors and our own writer replace the file by rename). */
  watch(): void {
    this.watcher = fs.watch(this.dir, (_event, name) => {
      if (name && name !== SETTINGS_FILE) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.reload(), 50);
    });
    this.watcher.on('error', () => {});
  }

  /** Re-reads the file now; returns whether new settings took effect. */
  reload(): boolean {
    let text: string;
    try {
      text = fs.readFileSync(path.join(this.dir, SETTINGS_FILE), 'utf8');
    } catch (error) {
      this.lastProblems = [`cannot read ${SETTINGS_FILE}: ${(error as NodeJS.ErrnoException).code}`];
      this.onInvalid([...this.lastProblems]);
      return false;
    }
    const { settings, problems } = parseSettings(text);
    this.lastProblems = problems;
    if (!settings) {
      this.onInvalid(problems);
      return false;
    }
    if (JSON.stringify(settings) === JSON.stringify(this.value)) return false;
    this.value = settings;
    for (const listener of this.listeners) listener(settings);
    return true;
  }

  /**
   * Adds `command` to `agents.commands` in the file (an agent's command the user approved
   * "always"), then takes the file up at once, so that the next call sees it listed. The file is
   * read afresh, so that an edit not taken up yet is kept; a command already listed changes
   * nothing. Throws LoomError: bad_request for a file that is invalid or lists as many commands
   * as it may, a file-system code when it cannot be written.
   *
   * @example settings.addAgentCommand('npm test');
   */
  addAgentCommand(command: string): void {
    const file = path.join(this.dir, SETTINGS_FILE);
    withFileSystemErrors(SETTINGS_FILE, () => {
      const { settings, problems } = parseSettings(fs.readFileSync(file, 'utf8'));
      if (!settings) {
        throw new LoomError(
          'bad_request',
          `${SETTINGS_FILE} is invalid, so the command cannot be added to it: ${problems.join('; ')}`,
          'Fix the file, or approve the command once.',
        );
      }
      const commands = settings.agents?.commands ?? [];
      if (commands.some((listed) => listed.trim() === command.trim())) return;
      if (commands.length >= MAX_AGENT_COMMANDS) {
        throw new LoomError(
          'bad_request',
          `${SETTINGS_FILE} lists ${commands.length} agent commands, the most it may.`,
          'Approve the command once, or remove commands you no longer need from agents.commands.',
        );
      }
      writeSettings(this.dir, { ...settings, agents: { ...settings.agents, commands: [...commands, command.trim()] } });
    });
    this.reload();
  }

  close(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
  }
}
