// The config schema: every setting once, with its flag, environment variables, default and
// meaning. The loader reads it, `loom` builds its flags from it and docs/configuration.md is
// generated from it (npm run docs:config).
import { AGENT_BUDGET_LIMITS } from '../contracts/agent-limits.ts';

export type SettingKind =
  | { type: 'integer'; min: number; max: number }
  | { type: 'string' }
  | { type: 'url'; protocols: readonly string[] }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'trustProxy' };

export interface SettingSpec {
  /** Dotted key; nested objects in the config file (`hosted.port` → `{"hosted": {"port": …}}`). */
  key: string;
  kind: SettingKind;
  /** Command line flag, where the setting has one. */
  flag?: string;
  /**
   * The flag in a command that offers two settings of the same `flag` (`loom up` starts both
   * servers, so `--port` would be ambiguous there): named for what it sets.
   */
  qualifiedFlag?: string;
  /** Environment variables, first one set wins. */
  env: readonly string[];
  /** Default as documented; `undefined` means "unset" and is explained in `defaultText`. */
  default?: string | number | boolean;
  defaultText?: string;
  description: string;
}

export const SETTINGS = [
  {
    key: 'dataDir',
    kind: { type: 'string' },
    flag: '--data-dir',
    env: ['LOOM_DATA_DIR'],
    defaultText: 'the user data folder: `$XDG_DATA_HOME/loom` (`~/.local/share/loom`), `~/Library/Application Support/Loom`, `%LOCALAPPDATA%\\Loom`',
    description: 'Where Loom keeps its SQLite database and other state.',
  },
  {
    key: 'configDir',
    kind: { type: 'string' },
    flag: '--config-dir',
    env: ['LOOM_CONFIG_DIR'],
    defaultText: 'the user config folder: `$XDG_CONFIG_HOME/loom` (`~/.config/loom`), `~/Library/Preferences/Loom`, `%APPDATA%\\Loom`',
    description: "Where the desktop app's settings.json (local API token, webhooks, local rate limits) and the CLI's credentials live.",
  },
  {
    key: 'workspace',
    kind: { type: 'string' },
    flag: '--workspace',
    env: ['LOOM_WORKSPACE'],
    defaultText: 'the current folder',
    description: 'The folder the local server edits, runs git in and watches.',
  },
  {
    key: 'local.port',
    kind: { type: 'integer', min: 0, max: 65535 },
    flag: '--port',
    qualifiedFlag: '--local-port',
    env: ['LOOM_LOCAL_PORT'],
    default: 27432,
    description: 'TCP port of the local API (`loom serve --port`, `loom up --local-port`); it listens on 127.0.0.1 and ::1 only.',
  },
  {
    key: 'hosted.port',
    kind: { type: 'integer', min: 0, max: 65535 },
    flag: '--port',
    qualifiedFlag: '--hosted-port',
    env: ['LOOM_HOSTED_PORT'],
    default: 8080,
    description: 'TCP port of the hosted API (`loom hosted --port`, `loom up --hosted-port`; 0 picks a free port).',
  },
  {
    key: 'hosted.host',
    kind: { type: 'string' },
    flag: '--host',
    env: ['LOOM_HOSTED_HOST'],
    default: '127.0.0.1',
    description: 'Address the hosted API listens on. Use `0.0.0.0` (or `::`) to serve other machines.',
  },
  {
    key: 'publicUrl',
    kind: { type: 'url', protocols: ['http:', 'https:'] },
    flag: '--public-url',
    env: ['LOOM_PUBLIC_URL'],
    defaultText: '`http://<host>:<port>` of the hosted API',
    description: 'Base URL used in links: OpenAPI servers, llms.txt, sitemap.xml.',
  },
  {
    key: 'authUrl',
    kind: { type: 'url', protocols: ['http:', 'https:'] },
    env: ['LOOM_AUTH_URL'],
    defaultText: 'the public URL: this server is its own authorization server',
    description: 'Origin of the OAuth authorization server ({auth_url}): the `iss` of tokens and the home of /auth/authorize and /auth/token.',
  },
  {
    key: 'codehost.clientId',
    kind: { type: 'string' },
    env: ['LOOM_CODEHOST_CLIENT_ID'],
    defaultText: 'unset: sign-in through the code host is off',
    description:
      'Client id of the OAuth app registered at the code host (GitHub, GitHub Enterprise, Gitea, Forgejo). Its callback URL is `<public URL>/auth/codehost/callback`.',
  },
  {
    key: 'codehost.clientSecret',
    kind: { type: 'string' },
    env: ['LOOM_CODEHOST_CLIENT_SECRET'],
    defaultText: 'unset',
    description: 'Client secret of that OAuth app.',
  },
  {
    key: 'codehost.url',
    kind: { type: 'url', protocols: ['http:', 'https:'] },
    env: ['LOOM_CODEHOST_URL'],
    default: 'https://github.com',
    description: 'Web address of the code host (its /login/oauth/authorize and /login/oauth/access_token).',
  },
  {
    key: 'codehost.apiUrl',
    kind: { type: 'url', protocols: ['http:', 'https:'] },
    env: ['LOOM_CODEHOST_API_URL'],
    default: 'https://api.github.com',
    description: 'API address of the code host: `https://HOST/api/v3` for GitHub Enterprise, `https://HOST/api/v1` for Gitea and Forgejo.',
  },
  {
    key: 'oidc.issuer',
    kind: { type: 'url', protocols: ['http:', 'https:'] },
    env: ['LOOM_OIDC_ISSUER'],
    defaultText: 'unset: OpenID Connect sign-in is off',
    description:
      'Issuer of an OpenID Connect provider (Keycloak, Authentik, Okta, Google, …); its discovery document is read from `<issuer>/.well-known/openid-configuration`. Callback URL: `<public URL>/auth/oidc/callback`.',
  },
  {
    key: 'oidc.clientId',
    kind: { type: 'string' },
    env: ['LOOM_OIDC_CLIENT_ID'],
    defaultText: 'unset',
    description: 'Client id registered at the OpenID Connect provider.',
  },
  {
    key: 'oidc.clientSecret',
    kind: { type: 'string' },
    env: ['LOOM_OIDC_CLIENT_SECRET'],
    defaultText: 'unset',
    description: 'Client secret registered at the OpenID Connect provider.',
  },
  {
    key: 'rateLimit.max',
    kind: { type: 'integer', min: 1, max: 1_000_000_000 },
    flag: '--rate-limit',
    env: ['LOOM_RATE_LIMIT'],
    default: 100,
    description: 'Hosted API requests allowed per client IP in each window.',
  },
  {
    key: 'rateLimit.windowSeconds',
    kind: { type: 'integer', min: 1, max: 86_400 },
    env: ['LOOM_RATE_LIMIT_WINDOW'],
    default: 60,
    description: 'Length of the rate limit window, in seconds.',
  },
  {
    key: 'trustProxy',
    kind: { type: 'trustProxy' },
    env: ['LOOM_TRUST_PROXY'],
    default: 'false',
    description:
      'Whether to take the client IP from `X-Forwarded-For`: `false`, `true` (trust every hop), a hop count, or a comma-separated list of proxy addresses/CIDRs. Only enable behind a proxy you run.',
  },
  {
    key: 'databaseUrl',
    kind: { type: 'url', protocols: ['postgres:', 'postgresql:'] },
    env: ['LOOM_DATABASE_URL', 'DATABASE_URL'],
    defaultText: 'unset: SQLite file `loom.db` in the data dir',
    description: 'PostgreSQL connection URL for the scale-out store.',
  },
  {
    key: 'redisUrl',
    kind: { type: 'url', protocols: ['redis:', 'rediss:'] },
    env: ['LOOM_REDIS_URL', 'REDIS_URL'],
    defaultText: 'unset: rate limits counted in memory, composer sessions run by `loom hosted` itself',
    description:
      'Redis URL; when set, rate limits are counted in Redis and shared by every process, and composer sessions go through a BullMQ queue on it: `loom hosted` only enqueues them and `loom worker` processes run them (docs/operations.md).',
  },
  {
    key: 'catalog',
    kind: { type: 'string' },
    flag: '--catalog',
    env: ['LOOM_CATALOG'],
    defaultText: 'the catalog shipped with Loom',
    description: 'Path of a YAML or JSON catalog of downloads and models (see docs/catalog.md).',
  },
  {
    key: 'upstream.timeoutMs',
    kind: { type: 'integer', min: 100, max: 60_000 },
    env: ['LOOM_UPSTREAM_TIMEOUT_MS'],
    default: 5000,
    description: 'Time allowed for the code host to answer a release check.',
  },
  {
    key: 'upstream.cacheSeconds',
    kind: { type: 'integer', min: 0, max: 86_400 },
    env: ['LOOM_UPSTREAM_CACHE_SECONDS'],
    default: 300,
    description: 'How long a release check result (found or missing) is reused.',
  },
  {
    key: 'modelsDir',
    kind: { type: 'string' },
    flag: '--models-dir',
    env: ['LOOM_MODELS_DIR'],
    defaultText: '`models` in the data dir',
    description: 'Where `loom models pull` installs model files and where catalog models are looked up by name.',
  },
  {
    key: 'corpusDir',
    kind: { type: 'string' },
    flag: '--corpus-dir',
    env: ['LOOM_CORPUS_DIR'],
    defaultText: 'unset: the hosted builtin model knows only the text each request carries, for that request alone',
    description: "A folder of code the hosted server's builtin completion model is trained on at start.",
  },
  {
    key: 'completion.provider',
    kind: { type: 'enum', values: ['builtin', 'gguf', 'openai'] },
    flag: '--completion-provider',
    env: ['LOOM_COMPLETION_PROVIDER'],
    default: 'builtin',
    description:
      "Which provider answers completions that do not name a `model`. The desktop app's settings.json (`completion.provider`) overrides it without a restart.",
  },
  {
    key: 'completion.timeoutMs',
    kind: { type: 'integer', min: 100, max: 600_000 },
    env: ['LOOM_COMPLETION_TIMEOUT_MS'],
    default: 10_000,
    description: 'Time a completion may take (model loading included) before it is stopped with 504 model_timeout.',
  },
  {
    key: 'completion.maxTokens',
    kind: { type: 'integer', min: 1, max: 4096 },
    env: ['LOOM_COMPLETION_MAX_TOKENS'],
    default: 64,
    description: 'Most tokens one completion generates.',
  },
  {
    key: 'completion.prefixChars',
    kind: { type: 'integer', min: 64, max: 1_000_000 },
    env: ['LOOM_COMPLETION_PREFIX_CHARS'],
    default: 8192,
    description: 'Prefix budget: characters before the cursor sent to a model (cut at a line start).',
  },
  {
    key: 'completion.suffixChars',
    kind: { type: 'integer', min: 0, max: 1_000_000 },
    env: ['LOOM_COMPLETION_SUFFIX_CHARS'],
    default: 2048,
    description: 'Suffix budget: characters after the cursor sent to a model (cut at a line end).',
  },
  {
    key: 'gguf.model',
    kind: { type: 'string' },
    flag: '--gguf-model',
    env: ['LOOM_GGUF_MODEL'],
    defaultText: 'unset: no gguf provider',
    description: 'A GGUF model file to run in-process (node-llama-cpp): a path, or the name of a catalog model installed with `loom models pull`.',
  },
  {
    key: 'gguf.gpu',
    kind: { type: 'enum', values: ['auto', 'off', 'cuda', 'vulkan', 'metal'] },
    env: ['LOOM_GGUF_GPU'],
    default: 'auto',
    description: 'GPU backend for gguf models. A default install carries only CPU (and Metal) binaries; see docs/models.md for CUDA and Vulkan.',
  },
  {
    key: 'gguf.contextSize',
    kind: { type: 'integer', min: 256, max: 131_072 },
    env: ['LOOM_GGUF_CONTEXT_SIZE'],
    default: 4096,
    description: 'Context window (tokens) of the gguf model; prompts are cut to fit it.',
  },
  {
    key: 'openai.baseUrl',
    kind: { type: 'url', protocols: ['http:', 'https:'] },
    env: ['LOOM_OPENAI_BASE_URL'],
    defaultText: 'unset: no openai provider',
    description: 'Base URL of an OpenAI-compatible server, up to and including `/v1` (Ollama: `http://127.0.0.1:11434/v1`).',
  },
  {
    key: 'openai.apiKey',
    kind: { type: 'string' },
    env: ['LOOM_OPENAI_API_KEY', 'OPENAI_API_KEY'],
    defaultText: 'unset: no Authorization header',
    description: 'API key sent as a bearer token to the OpenAI-compatible server.',
  },
  {
    key: 'openai.model',
    kind: { type: 'string' },
    env: ['LOOM_OPENAI_MODEL'],
    defaultText: 'unset: required with `openai.baseUrl`',
    description: 'Model name the OpenAI-compatible server knows.',
  },
  {
    key: 'openai.fim',
    kind: { type: 'enum', values: ['auto', 'on', 'off'] },
    env: ['LOOM_OPENAI_FIM'],
    default: 'auto',
    description:
      'Fill-in-the-middle through `/completions` with `suffix`: `on`, `off` (chat only), or `auto` (try it, fall back to chat when the server refuses).',
  },
  {
    key: 'agents.maxSteps',
    kind: { type: 'integer', min: AGENT_BUDGET_LIMITS.maxSteps.minimum, max: AGENT_BUDGET_LIMITS.maxSteps.maximum },
    env: ['LOOM_AGENTS_MAX_STEPS'],
    default: 40,
    description:
      "Model turns an agent task may take before it ends (reason `max_steps`). The desktop app's settings.json (`agents.maxSteps`) overrides it without a restart; a request may ask for another budget.",
  },
  {
    key: 'agents.maxTokens',
    kind: { type: 'integer', min: AGENT_BUDGET_LIMITS.maxTokens.minimum, max: AGENT_BUDGET_LIMITS.maxTokens.maximum },
    env: ['LOOM_AGENTS_MAX_TOKENS'],
    default: 500_000,
    description:
      "Tokens an agent task may use, every turn's prompt and answer summed, before it ends (reason `max_tokens`). Overridable in settings.json (`agents.maxTokens`) and per request.",
  },
  {
    key: 'agents.timeoutSeconds',
    kind: { type: 'integer', min: AGENT_BUDGET_LIMITS.timeoutSeconds.minimum, max: AGENT_BUDGET_LIMITS.timeoutSeconds.maximum },
    env: ['LOOM_AGENTS_TIMEOUT_SECONDS'],
    default: 900,
    description:
      'Wall time an agent task may run, in seconds, before it is stopped (reason `timeout`); the model call under way is aborted. Overridable in settings.json (`agents.timeoutSeconds`) and per request.',
  },
  {
    key: 'agents.commandTimeoutSeconds',
    kind: { type: 'integer', min: 1, max: 3600 },
    env: ['LOOM_AGENTS_COMMAND_TIMEOUT_SECONDS'],
    default: 300,
    description:
      "Time one command an agent runs (`run_command`: a command listed in settings.json's `agents.commands`, or one the user approved) may take before it is killed. Overridable in settings.json (`agents.commandTimeoutSeconds`).",
  },
  {
    key: 'agents.approvalTimeoutSeconds',
    kind: { type: 'integer', min: 1, max: 86_400 },
    env: ['LOOM_AGENTS_APPROVAL_TIMEOUT_SECONDS'],
    default: 300,
    description:
      "Time an agent's request to run a command not in `agents.commands` waits for the user's answer (in the window) before it is denied; the task's wall time does not run meanwhile. Overridable in settings.json (`agents.approvalTimeoutSeconds`).",
  },
  {
    key: 'agents.mapTokens',
    kind: { type: 'integer', min: 0, max: 32_768 },
    env: ['LOOM_AGENTS_MAP_TOKENS'],
    default: 1024,
    description:
      "Tokens of the repository map an agent task's first message carries (the files in scope and those the task concerns, with the lines their definitions start on), where the workspace has a code index; 0 leaves it out and lists the files instead. Overridable in settings.json (`agents.mapTokens`).",
  },
  {
    key: 'agents.rulesTokens',
    kind: { type: 'integer', min: 0, max: 32_768 },
    env: ['LOOM_AGENTS_RULES_TOKENS'],
    default: 2048,
    description:
      "Tokens of the project's rules files (AGENTS.md, CLAUDE.md, .cursorrules, .github/copilot-instructions.md, .loom/rules/*.md) an agent task's system prompt carries; past it a file is cut and the rest left out; 0 loads none. Overridable in settings.json (`agents.rulesTokens`).",
  },
  {
    key: 'composer.concurrency',
    kind: { type: 'integer', min: 1, max: 64 },
    flag: '--concurrency',
    env: ['LOOM_COMPOSER_CONCURRENCY'],
    default: 2,
    description:
      'Composer sessions one process runs at once: `loom hosted` with the in-process queue (no Redis), or each `loom worker`. Sessions beyond wait, queued, in the store.',
  },
  {
    key: 'composer.maxRunningPerUser',
    kind: { type: 'integer', min: 1, max: 1000 },
    env: ['LOOM_COMPOSER_MAX_RUNNING_PER_USER'],
    default: 2,
    description: 'Composer sessions one user may have running; with this many running, a new one waits queued.',
  },
  {
    key: 'composer.maxQueuedPerUser',
    kind: { type: 'integer', min: 1, max: 10000 },
    env: ['LOOM_COMPOSER_MAX_QUEUED_PER_USER'],
    default: 10,
    description: 'Composer sessions one user may have waiting; one more is refused with 429 and Retry-After.',
  },
  {
    key: 'composer.languageServers',
    kind: { type: 'enum', values: ['on', 'off'] },
    env: ['LOOM_COMPOSER_LANGUAGE_SERVERS'],
    default: 'on',
    description:
      "Whether a composer session checks its edits with language servers (each edit's answer names the errors it introduced or fixed), over its scratch copy, in their restricted mode: only the servers that run nothing of the copy's (TypeScript with Loom's own TypeScript and no tsconfig plugins; pyright with an isolated interpreter), for the session's time. Off when `languageServers.enabled` is off.",
  },
  {
    key: 'composer.leaseSeconds',
    kind: { type: 'integer', min: 3, max: 3600 },
    env: ['LOOM_COMPOSER_LEASE_SECONDS'],
    default: 60,
    description:
      'How long a running session stays claimed by its runner without a heartbeat (renewed every few seconds). When a runner dies, its sessions are taken over after this long.',
  },
  {
    key: 'jobs.redisPrefix',
    kind: { type: 'string' },
    env: ['LOOM_JOBS_REDIS_PREFIX'],
    default: 'loom',
    description:
      "Prefix of the job queue's keys in Redis (`<prefix>:composer:…`), with `redisUrl` set. Every `loom hosted` and `loom worker` of one installation uses the same; installations sharing a Redis each take their own.",
  },
  {
    key: 'jobs.graceSeconds',
    kind: { type: 'integer', min: 0, max: 3600 },
    env: ['LOOM_JOBS_GRACE_SECONDS'],
    default: 30,
    description:
      'On SIGTERM or SIGINT, how long `loom worker` lets its running sessions finish; the ones still running then are stopped and handed back, queued, for another worker to run from the start.',
  },
  {
    key: 'extensions.commandTimeoutMs',
    kind: { type: 'integer', min: 100, max: 600_000 },
    env: ['LOOM_EXTENSIONS_COMMAND_TIMEOUT_MS'],
    default: 10_000,
    description:
      "Time an extension's command may take before it answers 504 EXTENSION_TIMEOUT; an extension whose process no longer answers at all then (an endless loop) is stopped.",
  },
  {
    key: 'extensions.memoryLimitMb',
    // A process of node alone holds about 55 MB: a smaller limit would stop every extension at start.
    kind: { type: 'integer', min: 96, max: 16_384 },
    env: ['LOOM_EXTENSIONS_MEMORY_LIMIT_MB'],
    default: 256,
    description:
      "Memory each extension's process may use, all of it (its resident set: the JavaScript heap, Buffers, native memory; about 55 MB is node itself), and its JavaScript heap's limit (`--max-old-space-size`); one that uses more is stopped and its commands answer EXTENSION_FAILED.",
  },
  {
    key: 'languageServers.enabled',
    kind: { type: 'enum', values: ['on', 'off'] },
    env: ['LOOM_LANGUAGE_SERVERS'],
    default: 'on',
    description:
      "Whether the desktop app runs language servers (diagnostics, definitions, references, hover, symbols, rename; docs/code-intelligence.md). Which server serves which language, and their commands, are settings.json's `languageServers.<name>`.",
  },
  {
    key: 'languageServers.requestTimeoutMs',
    kind: { type: 'integer', min: 100, max: 600_000 },
    env: ['LOOM_LANGUAGE_SERVERS_REQUEST_TIMEOUT_MS'],
    default: 15_000,
    description:
      'Time a language server has to answer one request before it fails with 504 LANGUAGE_SERVER_TIMEOUT; a server that then does not answer a ping either is restarted.',
  },
  {
    key: 'languageServers.idleSeconds',
    kind: { type: 'integer', min: 1, max: 86_400 },
    env: ['LOOM_LANGUAGE_SERVERS_IDLE_SECONDS'],
    default: 900,
    description: 'A language server asked nothing (no request, no edit of its documents) this long is stopped; it starts again when needed.',
  },
  {
    key: 'languageServers.memoryLimitMb',
    kind: { type: 'integer', min: 64, max: 65_536 },
    env: ['LOOM_LANGUAGE_SERVERS_MEMORY_LIMIT_MB'],
    default: 4096,
    description:
      'Resident memory a language server may use, with the processes it starts (tsserver), read from /proc on Linux; past it the server is restarted with a notice. Also the heap limit given to tsserver.',
  },
  {
    key: 'codeIndex.maxFileBytes',
    kind: { type: 'integer', min: 1024, max: 64 * 1024 * 1024 },
    env: ['LOOM_CODE_INDEX_MAX_FILE_BYTES'],
    default: 1024 * 1024,
    description:
      'The code index (docs/code-intelligence.md): files larger than this, in bytes, are listed (Ctrl+P finds them) but not read, parsed or ranked; `loom code search` searches files up to 4 MiB whatever it is.',
  },
  {
    key: 'codeIndex.maxFiles',
    kind: { type: 'integer', min: 100, max: 5_000_000 },
    env: ['LOOM_CODE_INDEX_MAX_FILES'],
    default: 200_000,
    description: 'The code index: files of a workspace it lists at most; past it, the rest are skipped (reason `file-limit`).',
  },
  {
    key: 'codeIndex.dependencies',
    kind: { type: 'enum', values: ['skip', 'index'] },
    env: ['LOOM_CODE_INDEX_DEPENDENCIES'],
    default: 'skip',
    description:
      'The code index: `skip` leaves out folders of dependencies and tool caches (`node_modules`, `vendor`, `.venv`, `__pycache__`, `.gradle`, …); `index` indexes them like the rest. `.git` and `.loom` are never indexed.',
  },
  {
    key: 'codeIndex.background',
    kind: { type: 'enum', values: ['on', 'off'] },
    env: ['LOOM_CODE_INDEX_BACKGROUND'],
    default: 'on',
    description:
      '`on`: `loom serve` builds the code index once it listens and keeps it current from the folder watcher and the editor (with `index:progress` events); `off`: it only opens it (what `loom code` built). The `loom code` commands build it either way.',
  },
  {
    key: 'codeIndex.workers',
    kind: { type: 'integer', min: 0, max: 64 },
    env: ['LOOM_CODE_INDEX_WORKERS'],
    default: 0,
    description: 'The code index: threads that parse files; 0 picks one per core but one, at least one and at most four.',
  },
  {
    key: 'bodyLimit',
    kind: { type: 'integer', min: 1024, max: 100 * 1024 * 1024 },
    env: ['LOOM_BODY_LIMIT'],
    default: 1024 * 1024,
    description: 'Largest request body accepted, in bytes; larger ones get 413 payload_too_large.',
  },
  {
    key: 'http.headersTimeoutMs',
    kind: { type: 'integer', min: 100, max: 600_000 },
    env: ['LOOM_HEADERS_TIMEOUT_MS'],
    default: 15_000,
    description:
      'Both servers: time a client has to send a request line and its headers (on a new connection, counted from the moment it opens). Past it the client gets 408 request_timeout and the connection is closed.',
  },
  {
    key: 'http.requestTimeoutMs',
    kind: { type: 'integer', min: 100, max: 3_600_000 },
    env: ['LOOM_REQUEST_TIMEOUT_MS'],
    default: 30_000,
    description:
      'Both servers: time a client has to send a whole request, body included; at least `http.headersTimeoutMs`. It bounds receiving the request, not answering it: a git push through the local API may take two minutes to answer.',
  },
  {
    key: 'http.keepAliveTimeoutMs',
    kind: { type: 'integer', min: 100, max: 600_000 },
    env: ['LOOM_KEEP_ALIVE_TIMEOUT_MS'],
    default: 72_000,
    description:
      "Both servers: how long a keep-alive connection may sit idle between requests. Behind a load balancer, keep it longer than the balancer's own idle timeout (often 60 s), so that Loom never closes a connection the balancer is about to reuse.",
  },
  {
    key: 'http.maxConnectionsPerClient',
    kind: { type: 'integer', min: 1, max: 1_000_000 },
    env: ['LOOM_MAX_CONNECTIONS_PER_CLIENT'],
    default: 128,
    description:
      "Both servers: connections one client address may hold at once. Over it, that client's oldest idle connection is closed; when all of them are busy, the new one gets 429 too_many_connections. Connections from trusted proxies (`trustProxy`) are not capped: cap clients at the proxy.",
  },
  {
    key: 'logLevel',
    kind: { type: 'enum', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    flag: '--log-level',
    env: ['LOOM_LOG_LEVEL'],
    default: 'info',
    description: 'Log level of the servers (JSON logs on stdout).',
  },
] as const satisfies readonly SettingSpec[];

export type SettingKey = (typeof SETTINGS)[number]['key'];
