// One typed loader: flags > LOOM_* environment > config file > defaults.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { AgentsConfig } from '../core/agents/settings.ts';
import type { CodeIndexSettings } from '../core/code/service.ts';
import type { CompletionConfig } from '../core/completion/config.ts';
import type { LanguageServerSettings } from '../core/language/types.ts';
import { jsonSyntaxProblem } from './json-syntax.ts';
import { defaultConfigDir, defaultDataDir } from './paths.ts';
import { SETTINGS, type SettingKey, type SettingSpec } from './settings.ts';

export type TrustProxy = boolean | number | string[];

export interface LoomConfig {
  dataDir: string;
  /** The config file that was read, if any. */
  configFile?: string;
  hosted: { port: number; host: string };
  local: { port: number; workspace: string; configDir: string };
  /** Base URL for links when set explicitly; otherwise derived from where the server listens (publicUrlFor). */
  publicUrl?: string;
  /** The authorization server's origin when it is not this server. */
  authUrl?: string;
  /** Sign-in through the code host; present when its client id and secret are set. */
  codehost?: { clientId: string; clientSecret: string; url: string; apiUrl: string };
  /** Sign-in through an OpenID Connect provider; present when issuer, client id and secret are set. */
  oidc?: { issuer: string; clientId: string; clientSecret: string };
  rateLimit: { max: number; windowSeconds: number };
  trustProxy: TrustProxy;
  databaseUrl?: string;
  redisUrl?: string;
  catalog?: string;
  upstream: { timeoutMs: number; cacheSeconds: number };
  bodyLimit: number;
  /** Timeouts and the per-client connection cap of both servers. */
  http: ConnectionLimits;
  logLevel: string;
  /** Where model files are installed and looked up by catalog name. */
  modelsDir: string;
  /** Code the hosted builtin model is trained on at start. */
  corpusDir?: string;
  completion: CompletionConfig;
  /** Default budgets of agent tasks; the desktop app's settings.json may override them (`agents.*`). */
  agents: AgentsConfig;
  /** Limits of the extension host's processes (docs/extensions.md). */
  extensions: { commandTimeoutMs: number; memoryLimitMb: number };
  /** The desktop app's language servers: on or off, time limit, idle stop, memory limit (docs/code-intelligence.md). */
  languageServers: LanguageServerSettings;
  /** What the code index takes in and how many threads parse (docs/code-intelligence.md). */
  codeIndex: CodeIndexSettings;
  /** Composer sessions: how many run at once here, per-user limits, the runner's lease (docs/composer.md). */
  composer: ComposerConfig;
  /** The job queue on Redis (with `redisUrl`): its key prefix, and the shutdown grace of `loom worker` (docs/operations.md). */
  jobs: { redisPrefix: string; graceSeconds: number };
}

export interface ComposerConfig {
  concurrency: number;
  maxRunningPerUser: number;
  maxQueuedPerUser: number;
  leaseSeconds: number;
  /** Language servers (restricted) over each session's scratch copy: diagnostics after its edits. */
  languageServers: boolean;
}

/** Timeouts and the per-client connection cap of both servers (docs/operations.md). */
export interface ConnectionLimits {
  /** Time to receive a request's line and headers (on a new connection, from the moment it opens). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included; answering it may take longer. */
  requestTimeoutMs: number;
  /** Time a keep-alive connection may sit idle between requests. */
  keepAliveTimeoutMs: number;
  /** Connections one client address may hold at once. */
  maxConnectionsPerClient: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Raw = string | number | boolean;
type Env = Record<string, string | undefined>;

export interface LoadOptions {
  /** Values from command line flags, by setting key. */
  flags?: Partial<Record<SettingKey, Raw | undefined>>;
  /** The flag each value came from, where it is not the setting's `flag` (`loom up --hosted-port`), for messages. */
  flagNames?: Partial<Record<SettingKey, string>>;
  env?: Env;
  /** Explicit config file (`--config`); otherwise LOOM_CONFIG, then `<config dir>/config.json` if present. */
  configFile?: string;
}

/**
 * The configuration in force: each setting from its flag, else its environment variable, else
 * the config file, else its default (src/config/settings.ts). Throws ConfigError, naming where
 * the value came from, for any value it cannot use.
 *
 * @example
 * const config = loadConfig({ env: process.env, flags: { 'hosted.port': 9000 } });
 * config.hosted.port; // 9000
 */
export function loadConfig(options: LoadOptions = {}): LoomConfig {
  const env = options.env ?? process.env;
  const { file, values: fileValues } = readConfigFile(options.configFile ?? env.LOOM_CONFIG, env);
  const resolved = new Map<SettingKey, unknown>();

  for (const spec of SETTINGS as readonly SettingSpec[]) {
    const key = spec.key as SettingKey;
    const fromFlag = options.flags?.[key];
    const envName = spec.env.find((name) => env[name] !== undefined && env[name] !== '');
    let source: string;
    let raw: Raw | undefined;
    if (fromFlag !== undefined) {
      raw = fromFlag;
      source = options.flagNames?.[key] ?? spec.flag ?? key;
    } else if (envName) {
      raw = env[envName];
      source = envName;
    } else if (fileValues.has(key)) {
      raw = fileValues.get(key);
      source = `${file}: ${key}`;
    } else {
      raw = spec.default;
      source = `default of ${key}`;
    }
    if (raw !== undefined) resolved.set(key, parseValue(spec, raw, source));
  }

  const get = <T>(key: SettingKey) => resolved.get(key) as T;
  const dataDir = path.resolve(get<string | undefined>('dataDir') ?? defaultDataDir(env));
  const host = get<string>('hosted.host');
  const port = get<number>('hosted.port');
  return {
    dataDir,
    configFile: file,
    hosted: { port, host },
    local: {
      port: get('local.port'),
      workspace: path.resolve(get<string | undefined>('workspace') ?? process.cwd()),
      configDir: path.resolve(get<string | undefined>('configDir') ?? defaultConfigDir(env)),
    },
    publicUrl: get<string | undefined>('publicUrl') && stripTrailingSlash(get<string>('publicUrl')),
    authUrl: get<string | undefined>('authUrl') && stripTrailingSlash(get<string>('authUrl')),
    codehost: codehostConfig(get),
    oidc: oidcConfig(get),
    rateLimit: { max: get('rateLimit.max'), windowSeconds: get('rateLimit.windowSeconds') },
    trustProxy: get('trustProxy'),
    databaseUrl: get('databaseUrl'),
    redisUrl: get('redisUrl'),
    catalog: get<string | undefined>('catalog') && path.resolve(get<string>('catalog')),
    upstream: { timeoutMs: get('upstream.timeoutMs'), cacheSeconds: get('upstream.cacheSeconds') },
    bodyLimit: get('bodyLimit'),
    http: httpConfig(get),
    logLevel: get('logLevel'),
    modelsDir: path.resolve(get<string | undefined>('modelsDir') ?? path.join(dataDir, 'models')),
    corpusDir: get<string | undefined>('corpusDir') && path.resolve(get<string>('corpusDir')),
    completion: completionConfig(get),
    agents: {
      maxSteps: get('agents.maxSteps'),
      maxTokens: get('agents.maxTokens'),
      timeoutSeconds: get('agents.timeoutSeconds'),
      commandTimeoutSeconds: get('agents.commandTimeoutSeconds'),
      approvalTimeoutSeconds: get('agents.approvalTimeoutSeconds'),
      mapTokens: get('agents.mapTokens'),
      rulesTokens: get('agents.rulesTokens'),
    },
    composer: {
      concurrency: get('composer.concurrency'),
      maxRunningPerUser: get('composer.maxRunningPerUser'),
      maxQueuedPerUser: get('composer.maxQueuedPerUser'),
      leaseSeconds: get('composer.leaseSeconds'),
      languageServers: get('composer.languageServers') === 'on',
    },
    extensions: { commandTimeoutMs: get('extensions.commandTimeoutMs'), memoryLimitMb: get('extensions.memoryLimitMb') },
    languageServers: {
      enabled: get('languageServers.enabled') === 'on',
      requestTimeoutMs: get('languageServers.requestTimeoutMs'),
      idleSeconds: get('languageServers.idleSeconds'),
      memoryLimitMb: get('languageServers.memoryLimitMb'),
    },
    codeIndex: {
      maxFileBytes: get('codeIndex.maxFileBytes'),
      maxFiles: get('codeIndex.maxFiles'),
      dependencies: get('codeIndex.dependencies') === 'index',
      workers: get('codeIndex.workers'),
      background: get('codeIndex.background') === 'on',
    },
    jobs: { redisPrefix: get('jobs.redisPrefix'), graceSeconds: get('jobs.graceSeconds') },
  };
}

function completionConfig(get: <T>(key: SettingKey) => T): CompletionConfig {
  const ggufModel = get<string | undefined>('gguf.model');
  const openaiUrl = get<string | undefined>('openai.baseUrl');
  const openaiModel = get<string | undefined>('openai.model');
  if (openaiUrl && !openaiModel) throw new ConfigError('openai.baseUrl is set but openai.model is not (LOOM_OPENAI_MODEL).');
  const provider = get<CompletionConfig['provider']>('completion.provider');
  if (provider === 'gguf' && !ggufModel) throw new ConfigError('completion.provider is gguf but gguf.model is not set (LOOM_GGUF_MODEL).');
  if (provider === 'openai' && !openaiUrl) throw new ConfigError('completion.provider is openai but openai.baseUrl is not set (LOOM_OPENAI_BASE_URL).');
  return {
    provider,
    timeoutMs: get('completion.timeoutMs'),
    maxTokens: get('completion.maxTokens'),
    prefixChars: get('completion.prefixChars'),
    suffixChars: get('completion.suffixChars'),
    gguf: ggufModel ? { model: ggufModel, gpu: get('gguf.gpu'), contextSize: get('gguf.contextSize') } : undefined,
    openai:
      openaiUrl && openaiModel
        ? { baseUrl: stripTrailingSlash(openaiUrl), apiKey: get('openai.apiKey'), model: openaiModel, fim: get('openai.fim') }
        : undefined,
  };
}

/** The connection limits the config schema defaults to (for apps built without a loaded config). */
export function defaultConnectionLimits(): ConnectionLimits {
  const fallback = (key: SettingKey) => Number((SETTINGS as readonly SettingSpec[]).find((spec) => spec.key === key)!.default);
  return httpConfig(fallback as <T>(key: SettingKey) => T);
}

function httpConfig(get: <T>(key: SettingKey) => T): ConnectionLimits {
  const limits: ConnectionLimits = {
    headersTimeoutMs: get('http.headersTimeoutMs'),
    requestTimeoutMs: get('http.requestTimeoutMs'),
    keepAliveTimeoutMs: get('http.keepAliveTimeoutMs'),
    maxConnectionsPerClient: get('http.maxConnectionsPerClient'),
  };
  // The headers are part of the request: a longer wait for them could never be used.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(
      `http.headersTimeoutMs (${limits.headersTimeoutMs}) is longer than http.requestTimeoutMs (${limits.requestTimeoutMs}); the headers are part of the request.`,
    );
  }
  return limits;
}

function codehostConfig(get: <T>(key: SettingKey) => T): LoomConfig['codehost'] {
  const clientId = get<string | undefined>('codehost.clientId');
  const clientSecret = get<string | undefined>('codehost.clientSecret');
  if (!clientId && !clientSecret) return undefined;
  if (!clientId || !clientSecret) throw new ConfigError('LOOM_CODEHOST_CLIENT_ID and LOOM_CODEHOST_CLIENT_SECRET must be set together');
  return { clientId, clientSecret, url: get('codehost.url'), apiUrl: get('codehost.apiUrl') };
}

function oidcConfig(get: <T>(key: SettingKey) => T): LoomConfig['oidc'] {
  const issuer = get<string | undefined>('oidc.issuer');
  const clientId = get<string | undefined>('oidc.clientId');
  const clientSecret = get<string | undefined>('oidc.clientSecret');
  if (!issuer && !clientId && !clientSecret) return undefined;
  if (!issuer || !clientId || !clientSecret) throw new ConfigError('LOOM_OIDC_ISSUER, LOOM_OIDC_CLIENT_ID and LOOM_OIDC_CLIENT_SECRET must be set together');
  return { issuer: stripTrailingSlash(issuer), clientId, clientSecret };
}

function readConfigFile(explicit: string | undefined, env: Env): { file?: string; values: Map<string, Raw> } {
  const candidate = explicit ?? path.join(defaultConfigDir(env), 'config.json');
  let text: string;
  try {
    text = fs.readFileSync(candidate, 'utf8');
  } catch (error) {
    if (!explicit && (error as NodeJS.ErrnoException).code === 'ENOENT') return { values: new Map() };
    throw new ConfigError(`cannot read config file ${candidate}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${candidate} is ${jsonSyntaxProblem(error, text)}`);
  }
  const values = new Map<string, Raw>();
  flatten(parsed, '', values, candidate);
  const known = new Set<string>(SETTINGS.map((s) => s.key));
  for (const key of values.keys()) {
    if (!known.has(key)) throw new ConfigError(`config file ${candidate}: unknown setting "${key}"`);
  }
  return { file: candidate, values };
}

function flatten(value: unknown, prefix: string, out: Map<string, Raw>, file: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    if (!prefix) throw new ConfigError(`config file ${file} must hold a JSON object`);
    if (Array.isArray(value)) {
      out.set(prefix, value.join(','));
      return;
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new ConfigError(`config file ${file}: ${prefix} must be a string, number or boolean`);
    }
    out.set(prefix, value);
    return;
  }
  for (const [key, child] of Object.entries(value)) flatten(child, prefix ? `${prefix}.${key}` : key, out, file);
}

function parseValue(spec: SettingSpec, raw: Raw, source: string): unknown {
  const kind = spec.kind;
  const text = String(raw).trim();
  // A URL's password never goes into an error message.
  const shown = kind.type === 'url' ? hidePassword(text) : text;
  const fail = (expected: string): never => {
    throw new ConfigError(`${source}: "${shown}" is not ${expected}`);
  };
  switch (kind.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(text)) fail('a whole number');
      const n = Number(text);
      if (n < kind.min || n > kind.max) fail(`between ${kind.min} and ${kind.max}`);
      return n;
    }
    case 'string':
      if (!text) fail('a non-empty value');
      return text;
    case 'enum':
      if (!kind.values.includes(text)) fail(`one of ${kind.values.join(', ')}`);
      return text;
    case 'url': {
      let url: URL | undefined;
      try {
        url = new URL(text);
      } catch {
        fail('a URL');
      }
      if (!kind.protocols.includes(url!.protocol)) fail(`a ${kind.protocols.join(' or ')} URL`);
      return text;
    }
    case 'trustProxy': {
      if (text === 'true') return true;
      if (text === 'false' || text === '') return false;
      if (/^\d+$/.test(text)) return Number(text);
      const entries = text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (!entries.length || !entries.every(isAddressOrCidr)) fail('true, false, a hop count or a list of addresses');
      return entries;
    }
  }
}

/** `scheme://user:secret@host…` → `scheme://user:***@host…`, also when the URL is malformed. */
function hidePassword(url: string): string {
  const at = url.lastIndexOf('@');
  if (at < 0) return url;
  const slashes = url.indexOf('//');
  const start = slashes >= 0 && slashes < at ? slashes + 2 : 0;
  const colon = url.indexOf(':', start);
  return colon >= 0 && colon < at ? `${url.slice(0, colon + 1)}***${url.slice(at)}` : url;
}

/** An IP address, optionally with a prefix length that fits it: `10.0.0.1`, `10.0.0.0/8`, `fd00::/8`. */
function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = net.isIP(address);
  if (version === 0 || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * The base URL used in links: the explicit one, or `http://host:port` of the hosted API (with
 * the port it really listens on, which differs from the configured one for port 0).
 */
export function publicUrlFor(config: Pick<LoomConfig, 'publicUrl' | 'hosted'>, port = config.hosted.port): string {
  return config.publicUrl ?? `http://${urlHost(config.hosted.host)}:${port}`;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
