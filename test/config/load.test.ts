// The config loader: flags > environment > config file > defaults. Every test passes `env`
// explicitly and points XDG_CONFIG_HOME into a temporary folder, so neither the real
// environment nor a real config file takes part.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ConfigError, loadConfig, publicUrlFor, type LoadOptions, type LoomConfig } from '../../src/config/load.ts';
import { defaultConfigDir, defaultDataDir } from '../../src/config/paths.ts';

interface Sandbox {
  dir: string;
  env: { XDG_CONFIG_HOME: string; XDG_DATA_HOME: string };
  /** Where the loader looks for config.json when no file is named. */
  defaultFile: string;
  /** Writes `content` (JSON-encoded unless a string) to a file and returns its path. */
  write(content: unknown, file?: string): string;
}

function sandbox(t: TestContext): Sandbox {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-config-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = { XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_DATA_HOME: path.join(dir, 'data') };
  const defaultFile = path.join(defaultConfigDir(env), 'config.json');
  return {
    dir,
    env,
    defaultFile,
    write(content, file = defaultFile) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return file;
    },
  };
}

function configError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a ConfigError');
}

describe('loadConfig', () => {
  it('uses the documented defaults when nothing is set', (t) => {
    const { env } = sandbox(t);
    const config = loadConfig({ env });
    assert.deepEqual({ ...config, dataDir: undefined, modelsDir: undefined }, {
      dataDir: undefined,
      modelsDir: undefined,
      corpusDir: undefined,
      completion: { provider: 'builtin', timeoutMs: 10_000, maxTokens: 64, prefixChars: 8192, suffixChars: 2048, gguf: undefined, openai: undefined },
      configFile: undefined,
      hosted: { port: 8080, host: '127.0.0.1' },
      local: { port: 27432, workspace: process.cwd(), configDir: defaultConfigDir(env) },
      publicUrl: undefined,
      authUrl: undefined,
      codehost: undefined,
      oidc: undefined,
      rateLimit: { max: 100, windowSeconds: 60 },
      trustProxy: false,
      databaseUrl: undefined,
      redisUrl: undefined,
      catalog: undefined,
      upstream: { timeoutMs: 5000, cacheSeconds: 300 },
      bodyLimit: 1024 * 1024,
      http: { headersTimeoutMs: 15_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000, maxConnectionsPerClient: 128 },
      logLevel: 'info',
      agents: {
        maxSteps: 40,
        maxTokens: 500_000,
        timeoutSeconds: 900,
        commandTimeoutSeconds: 300,
        approvalTimeoutSeconds: 300,
        mapTokens: 1024,
        rulesTokens: 2048,
      },
      composer: { concurrency: 2, maxRunningPerUser: 2, maxQueuedPerUser: 10, leaseSeconds: 60, languageServers: true },
      extensions: { commandTimeoutMs: 10_000, memoryLimitMb: 256 },
      languageServers: { enabled: true, requestTimeoutMs: 15_000, idleSeconds: 900, memoryLimitMb: 4096 },
      codeIndex: { maxFileBytes: 1024 * 1024, maxFiles: 200_000, dependencies: false, workers: 0, background: true },
      jobs: { redisPrefix: 'loom', graceSeconds: 30 },
    } satisfies Record<keyof LoomConfig, unknown>);
    assert.equal(config.dataDir, defaultDataDir(env));
    assert.equal(config.modelsDir, path.join(config.dataDir, 'models'));
    if (process.platform === 'linux') assert.equal(config.dataDir, path.join(env.XDG_DATA_HOME, 'loom'));
  });

  describe('precedence: flag > environment > config file > default', () => {
    const cases: {
      setting: string;
      file: Record<string, unknown>;
      env: Record<string, string>;
      flags: LoadOptions['flags'];
      read: (config: LoomConfig) => unknown;
      expected: { default: unknown; file: unknown; env: unknown; flag: unknown };
    }[] = [
      {
        setting: 'hosted.port',
        file: { hosted: { port: 8001 } },
        env: { LOOM_HOSTED_PORT: '8002' },
        flags: { 'hosted.port': '8003' },
        read: (c) => c.hosted.port,
        expected: { default: 8080, file: 8001, env: 8002, flag: 8003 },
      },
      {
        setting: 'rateLimit.max',
        file: { rateLimit: { max: 10 } },
        env: { LOOM_RATE_LIMIT: '20' },
        flags: { 'rateLimit.max': '30' },
        read: (c) => c.rateLimit.max,
        expected: { default: 100, file: 10, env: 20, flag: 30 },
      },
      {
        setting: 'dataDir',
        file: { dataDir: '/srv/loom/from-file' },
        env: { LOOM_DATA_DIR: '/srv/loom/from-env' },
        flags: { dataDir: '/srv/loom/from-flag' },
        read: (c) => c.dataDir,
        expected: {
          default: undefined, // checked against the platform folder below
          file: path.resolve('/srv/loom/from-file'),
          env: path.resolve('/srv/loom/from-env'),
          flag: path.resolve('/srv/loom/from-flag'),
        },
      },
      {
        setting: 'logLevel',
        file: { logLevel: 'warn' },
        env: { LOOM_LOG_LEVEL: 'error' },
        flags: { logLevel: 'silent' },
        read: (c) => c.logLevel,
        expected: { default: 'info', file: 'warn', env: 'error', flag: 'silent' },
      },
    ];

    for (const c of cases) {
      it(`resolves ${c.setting} from the highest source that sets it`, (t) => {
        const box = sandbox(t);
        const defaulted = c.read(loadConfig({ env: box.env }));
        if (c.setting === 'dataDir') assert.equal(defaulted, defaultDataDir(box.env));
        else assert.equal(defaulted, c.expected.default);

        box.write(c.file);
        assert.equal(c.read(loadConfig({ env: box.env })), c.expected.file);
        assert.equal(c.read(loadConfig({ env: { ...box.env, ...c.env } })), c.expected.env);
        assert.equal(c.read(loadConfig({ env: { ...box.env, ...c.env }, flags: c.flags })), c.expected.flag);
        // A flag beats the file even with no environment variable in between.
        assert.equal(c.read(loadConfig({ env: box.env, flags: c.flags })), c.expected.flag);
      });
    }

    it('treats an empty environment variable as unset', (t) => {
      const box = sandbox(t);
      box.write({ hosted: { port: 8001 } });
      assert.equal(loadConfig({ env: { ...box.env, LOOM_HOSTED_PORT: '' } }).hosted.port, 8001);
    });

    it('prefers LOOM_DATABASE_URL to DATABASE_URL, and either to the file', (t) => {
      const box = sandbox(t);
      const loom = 'postgres://loom@db.internal:5432/loom';
      const generic = 'postgresql://app@other.internal/app';
      const fromFile = 'postgres://file@file.internal/loom';
      box.write({ databaseUrl: fromFile });
      const url = (env: Record<string, string>) => loadConfig({ env: { ...box.env, ...env } }).databaseUrl;
      assert.equal(url({}), fromFile);
      assert.equal(url({ DATABASE_URL: generic }), generic);
      assert.equal(url({ LOOM_DATABASE_URL: loom, DATABASE_URL: generic }), loom);
      assert.equal(url({ LOOM_DATABASE_URL: '', DATABASE_URL: generic }), generic);
    });
  });

  describe('publicUrl', () => {
    const derived: [string, Record<string, string>, string][] = [
      ['the default host and port', {}, 'http://127.0.0.1:8080'],
      ['a port flag', { 'hosted.port': '9000' }, 'http://127.0.0.1:9000'],
      ['a wildcard IPv4 host', { 'hosted.host': '0.0.0.0', 'hosted.port': '9000' }, 'http://localhost:9000'],
      ['a wildcard IPv6 host', { 'hosted.host': '::' }, 'http://localhost:8080'],
      ['an IPv6 host, in brackets', { 'hosted.host': '::1' }, 'http://[::1]:8080'],
      ['a host name', { 'hosted.host': 'loom.internal' }, 'http://loom.internal:8080'],
    ];
    for (const [what, flags, expected] of derived) {
      it(`defaults to http://host:port from ${what}`, (t) => {
        assert.equal(publicUrlFor(loadConfig({ env: sandbox(t).env, flags })), expected);
      });
    }

    it('follows a port given in the environment or the file', (t) => {
      const box = sandbox(t);
      box.write({ hosted: { port: 7000 } });
      assert.equal(publicUrlFor(loadConfig({ env: box.env })), 'http://127.0.0.1:7000');
      assert.equal(publicUrlFor(loadConfig({ env: { ...box.env, LOOM_HOSTED_PORT: '7001' } })), 'http://127.0.0.1:7001');
    });

    it('uses the port the server really listens on (port 0)', (t) => {
      const config = loadConfig({ env: sandbox(t).env, flags: { 'hosted.port': '0' } });
      assert.equal(publicUrlFor(config, 41234), 'http://127.0.0.1:41234');
      const explicit = loadConfig({ env: { ...sandbox(t).env, LOOM_PUBLIC_URL: 'https://loom.example.com' } });
      assert.equal(publicUrlFor(explicit, 41234), 'https://loom.example.com');
    });

    it('takes an explicit value as is, without a trailing slash', (t) => {
      const { env } = sandbox(t);
      const config = loadConfig({ env: { ...env, LOOM_PUBLIC_URL: 'https://loom.example.com/' }, flags: { 'hosted.port': '9000' } });
      assert.equal(config.publicUrl, 'https://loom.example.com');
    });
  });

  describe('config file', () => {
    it('reads nested JSON from <config dir>/config.json', (t) => {
      const box = sandbox(t);
      box.write({
        hosted: { port: 9100, host: '0.0.0.0' },
        rateLimit: { max: 500, windowSeconds: 10 },
        upstream: { timeoutMs: 1500, cacheSeconds: 0 },
        trustProxy: ['10.0.0.1', '10.0.0.0/8'],
        redisUrl: 'redis://cache.internal:6379',
        logLevel: 'debug',
      });
      const config = loadConfig({ env: box.env });
      assert.equal(config.configFile, box.defaultFile);
      assert.deepEqual(config.hosted, { port: 9100, host: '0.0.0.0' });
      assert.equal(publicUrlFor(config), 'http://localhost:9100');
      assert.deepEqual(config.rateLimit, { max: 500, windowSeconds: 10 });
      assert.deepEqual(config.upstream, { timeoutMs: 1500, cacheSeconds: 0 });
      assert.deepEqual(config.trustProxy, ['10.0.0.1', '10.0.0.0/8']);
      assert.equal(config.redisUrl, 'redis://cache.internal:6379');
      assert.equal(config.logLevel, 'debug');
    });

    it('reads the file named by --config before LOOM_CONFIG before the default one', (t) => {
      const box = sandbox(t);
      box.write({ hosted: { port: 1001 } });
      const fromEnv = box.write({ hosted: { port: 1002 } }, path.join(box.dir, 'env.json'));
      const fromFlag = box.write({ hosted: { port: 1003 } }, path.join(box.dir, 'flag.json'));
      const env = { ...box.env, LOOM_CONFIG: fromEnv };
      assert.equal(loadConfig({ env: box.env }).hosted.port, 1001);
      assert.equal(loadConfig({ env }).hosted.port, 1002);
      const explicit = loadConfig({ env, configFile: fromFlag });
      assert.equal(explicit.hosted.port, 1003);
      assert.equal(explicit.configFile, fromFlag);
    });

    it('rejects unknown keys, naming the file and the key', (t) => {
      const box = sandbox(t);
      for (const [content, key] of [
        [{ hosted: { prot: 8080 } }, 'hosted.prot'],
        [{ port: 8080 }, 'port'],
        [{ hosted: 8080 }, 'hosted'],
        [{ rateLimit: { max: { value: 5 } } }, 'rateLimit.max.value'],
      ] as const) {
        box.write(content);
        const error = configError(() => loadConfig({ env: box.env }));
        assert.ok(error.message.includes(box.defaultFile), error.message);
        assert.ok(error.message.includes(`unknown setting "${key}"`), error.message);
      }
    });

    it('rejects a file that is not a JSON object, and a named file that is missing', (t) => {
      const box = sandbox(t);
      for (const content of ['{"hosted": {"port": 80', '[1, 2]', '"port=80"', 'null']) {
        box.write(content);
        const error = configError(() => loadConfig({ env: box.env }));
        assert.ok(error.message.includes(box.defaultFile), error.message);
      }
      const missing = path.join(box.dir, 'missing.json');
      assert.match(configError(() => loadConfig({ env: box.env, configFile: missing })).message, /cannot read config file .*missing\.json/);
      assert.match(configError(() => loadConfig({ env: { ...box.env, LOOM_CONFIG: missing } })).message, /cannot read config file .*missing\.json/);
    });
  });

  describe('invalid values', () => {
    const invalid: [string, (box: Sandbox) => LoadOptions, RegExp][] = [
      [
        'a port above 65535 in the environment',
        (b) => ({ env: { ...b.env, LOOM_HOSTED_PORT: '70000' } }),
        /^LOOM_HOSTED_PORT: "70000" is not between 0 and 65535$/,
      ],
      ['a port above 65535 as a flag', (b) => ({ env: b.env, flags: { 'hosted.port': '70000' } }), /^--port: "70000" is not between 0 and 65535$/],
      [
        'a port above 65535 in the file',
        (b) => ({ env: b.env, configFile: b.write({ hosted: { port: 70000 } }) }),
        /config\.json: hosted\.port: "70000" is not between 0 and 65535$/,
      ],
      ['a negative port', (b) => ({ env: { ...b.env, LOOM_HOSTED_PORT: '-1' } }), /^LOOM_HOSTED_PORT: "-1" is not between/],
      ['a fractional port', (b) => ({ env: b.env, flags: { 'hosted.port': '80.5' } }), /^--port: "80.5" is not a whole number$/],
      ['a port in exponent notation', (b) => ({ env: { ...b.env, LOOM_HOSTED_PORT: '8e3' } }), /^LOOM_HOSTED_PORT: "8e3" is not a whole number$/],
      [
        'a port that is a JSON boolean',
        (b) => ({ env: b.env, configFile: b.write({ hosted: { port: true } }) }),
        /hosted\.port: "true" is not a whole number$/,
      ],
      ['a rate limit of 0', (b) => ({ env: { ...b.env, LOOM_RATE_LIMIT: '0' } }), /^LOOM_RATE_LIMIT: "0" is not between 1 and/],
      ['a rate limit of abc', (b) => ({ env: b.env, flags: { 'rateLimit.max': 'abc' } }), /^--rate-limit: "abc" is not a whole number$/],
      [
        'a rate limit window of 0 in the file',
        (b) => ({ env: b.env, configFile: b.write({ rateLimit: { windowSeconds: 0 } }) }),
        /config\.json: rateLimit\.windowSeconds: "0" is not between 1 and 86400$/,
      ],
      [
        'a MySQL DATABASE_URL',
        (b) => ({ env: { ...b.env, DATABASE_URL: 'mysql://app@db/app' } }),
        /^DATABASE_URL: "mysql:\/\/app@db\/app" is not a postgres: or postgresql: URL$/,
      ],
      [
        'a LOOM_DATABASE_URL that is no URL',
        (b) => ({ env: { ...b.env, LOOM_DATABASE_URL: 'localhost:5432' } }),
        /^LOOM_DATABASE_URL: .* is not a postgres: or postgresql: URL$|^LOOM_DATABASE_URL: .* is not a URL$/,
      ],
      ['a public URL without a scheme', (b) => ({ env: b.env, flags: { publicUrl: 'loom.example.com' } }), /^--public-url: "loom.example.com" is not a URL$/],
      ['an ftp public URL', (b) => ({ env: { ...b.env, LOOM_PUBLIC_URL: 'ftp://loom.example.com' } }), /^LOOM_PUBLIC_URL: .* is not a http: or https: URL$/],
      [
        'trustProxy yes',
        (b) => ({ env: { ...b.env, LOOM_TRUST_PROXY: 'yes' } }),
        /^LOOM_TRUST_PROXY: "yes" is not true, false, a hop count or a list of addresses$/,
      ],
      ['trustProxy abc (hex digits, but no address)', (b) => ({ env: { ...b.env, LOOM_TRUST_PROXY: 'abc' } }), /^LOOM_TRUST_PROXY: "abc" is not true, false/],
      [
        'trustProxy with a bad address in a list',
        (b) => ({ env: { ...b.env, LOOM_TRUST_PROXY: '10.0.0.1, 10.0.0.300' } }),
        /^LOOM_TRUST_PROXY: .* is not true, false/,
      ],
      ['trustProxy with an IPv4 prefix above 32', (b) => ({ env: { ...b.env, LOOM_TRUST_PROXY: '10.0.0.0/33' } }), /^LOOM_TRUST_PROXY: .* is not true, false/],
      [
        'trustProxy maybe in the file',
        (b) => ({ env: b.env, configFile: b.write({ trustProxy: 'maybe' }) }),
        /config\.json: trustProxy: "maybe" is not true, false/,
      ],
      [
        'an unknown log level',
        (b) => ({ env: b.env, flags: { logLevel: 'loud' } }),
        /^--log-level: "loud" is not one of fatal, error, warn, info, debug, trace, silent$/,
      ],
      ['an empty data dir flag', (b) => ({ env: b.env, flags: { dataDir: '  ' } }), /^--data-dir: "" is not a non-empty value$/],
      ['a null in the file', (b) => ({ env: b.env, configFile: b.write({ publicUrl: null }) }), /config\.json: publicUrl must be a string, number or boolean$/],
      [
        'a headers timeout longer than the request timeout',
        (b) => ({ env: { ...b.env, LOOM_HEADERS_TIMEOUT_MS: '40000' } }),
        /^http\.headersTimeoutMs \(40000\) is longer than http\.requestTimeoutMs \(30000\)/,
      ],
      [
        'a connection cap of 0',
        (b) => ({ env: b.env, configFile: b.write({ http: { maxConnectionsPerClient: 0 } }) }),
        /config\.json: http\.maxConnectionsPerClient: "0" is not between 1 and/,
      ],
    ];
    for (const [what, options, message] of invalid) {
      it(`rejects ${what}, naming where it came from`, (t) => {
        const box = sandbox(t);
        assert.match(configError(() => loadConfig(options(box))).message, message);
      });
    }

    it('never repeats the password of a URL in its message', (t) => {
      const { env } = sandbox(t);
      for (const url of ['mysql://app:s3cret@db/app', 'mysql://app:s3c@ret@db/app', 'postgres//app:s3cret@db/app']) {
        const error = configError(() => loadConfig({ env: { ...env, DATABASE_URL: url } }));
        assert.doesNotMatch(error.message, /s3c/, error.message);
      }
      const error = configError(() => loadConfig({ env: { ...env, REDIS_URL: 'http://:s3cret@cache:6379' } }));
      assert.match(error.message, /^REDIS_URL: "http:\/\/:\*\*\*@cache:6379" is not a redis: or rediss: URL$/);
    });
  });

  describe('trustProxy', () => {
    const valid: [string, unknown][] = [
      ['false', false],
      ['true', true],
      ['2', 2],
      ['10.0.0.1', ['10.0.0.1']],
      ['10.0.0.1, 10.0.0.0/8 ,::1,fd00::/8', ['10.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8']],
    ];
    for (const [text, expected] of valid) {
      it(`reads ${JSON.stringify(text)}`, (t) => {
        assert.deepEqual(loadConfig({ env: { ...sandbox(t).env, LOOM_TRUST_PROXY: text } }).trustProxy, expected);
      });
    }

    it('reads a JSON boolean, number or array from the file', (t) => {
      const box = sandbox(t);
      for (const [value, expected] of [
        [true, true],
        [1, 1],
        [
          ['192.168.0.0/16', '::1'],
          ['192.168.0.0/16', '::1'],
        ],
      ] as const) {
        box.write({ trustProxy: value });
        assert.deepEqual(loadConfig({ env: box.env }).trustProxy, expected);
      }
    });
  });
});

describe('config paths', () => {
  it('follows XDG on Linux, with the usual fallbacks', () => {
    assert.equal(defaultConfigDir({ XDG_CONFIG_HOME: '/xdg/config' }, 'linux'), path.join('/xdg/config', 'loom'));
    assert.equal(defaultDataDir({ XDG_DATA_HOME: '/xdg/data' }, 'linux'), path.join('/xdg/data', 'loom'));
    assert.equal(defaultConfigDir({}, 'linux'), path.join(os.homedir(), '.config', 'loom'));
    assert.equal(defaultDataDir({ XDG_DATA_HOME: '' }, 'linux'), path.join(os.homedir(), '.local', 'share', 'loom'));
  });

  it('uses the platform folders on macOS and Windows', () => {
    assert.equal(defaultConfigDir({}, 'darwin'), path.join(os.homedir(), 'Library', 'Preferences', 'Loom'));
    assert.equal(defaultDataDir({}, 'darwin'), path.join(os.homedir(), 'Library', 'Application Support', 'Loom'));
    assert.equal(defaultConfigDir({ APPDATA: 'C:/Users/ada/AppData/Roaming' }, 'win32'), path.join('C:/Users/ada/AppData/Roaming', 'Loom'));
    assert.equal(defaultDataDir({ LOCALAPPDATA: 'C:/Users/ada/AppData/Local' }, 'win32'), path.join('C:/Users/ada/AppData/Local', 'Loom'));
  });
});
