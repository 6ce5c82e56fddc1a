// `loom doctor`: checks what Loom needs on this machine and says how to fix each problem: Node,
// git, the store, the ports, the catalog and models, Chromium (for the app window and the browser
// tests), the hosted server's sign-in configuration, the folders' permissions and whether the CLI
// runs compiled. Exit 1 when a check fails; warnings leave it at 0.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import type { LoomConfig } from '../../config/load.ts';
import { cliAction } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { NODE_LINES, nodeSupport, testedLines } from '../node-lines.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { oneLine, print, printJson } from '../output.ts';
import { portState, probeServer } from '../probes.ts';
import { runtime } from '../runtime.ts';
import { STATUS_SETTINGS } from './status.ts';

export type CheckState = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  state: CheckState;
  /** What was found. */
  detail: string;
  /** How to fix it; absent when it is fine. */
  fix?: string;
}

const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge'];

/** `loom doctor`. */
export function doctorCommand(): Command {
  const command = new Command('doctor')
    .description('check Node, git, the store, ports, models, Chromium and the sign-in configuration, and say how to fix each problem')
    .option('--json', 'print {ok, checks: [{name, state, detail, fix?}]}');
  return addSettingOptions(command, [...STATUS_SETTINGS, 'databaseUrl']).action(
    cliAction(async (options: { json?: boolean }, self: Command) => {
      const config = configFromOptions(self);
      const checks = await Promise.all([
        checkNode(),
        checkGit(),
        checkStore(config),
        checkLocalPort(config),
        checkHostedPort(config),
        checkModels(config),
        checkChromium(),
        checkSignIn(config),
        checkFolders(config),
        checkBuild(),
      ]);
      const ok = checks.every((check) => check.state !== 'fail');
      if (options.json) printJson({ ok, checks });
      else print(formatChecks(checks));
      if (!ok) process.exitCode = EXIT.failure;
    }),
  );
}

function formatChecks(checks: Check[]): string {
  const mark = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };
  const lines = checks.map(
    (check) => `${mark[check.state]}  ${check.name.padEnd(10)}  ${oneLine(check.detail)}${check.fix ? `\n${' '.repeat(18)}fix: ${oneLine(check.fix)}` : ''}`,
  );
  const failed = checks.filter((check) => check.state === 'fail').length;
  const warned = checks.filter((check) => check.state === 'warn').length;
  const verdict = failed
    ? `${failed} problem${failed === 1 ? '' : 's'} to fix.`
    : warned
      ? `Ready, with ${warned} warning${warned === 1 ? '' : 's'}.`
      : 'Ready.';
  return `${lines.join('\n')}\n\n${verdict}\n`;
}

/** The Node running Loom, against the lines it supports and is tested on (node-lines.ts). */
export function checkNode(version: string = process.versions.node): Check {
  const support = nodeSupport(version);
  const tested = `Loom is tested on Node ${testedLines()}`;
  const newest = NODE_LINES[NODE_LINES.length - 1]!;
  switch (support.kind) {
    case 'tested':
      return support.line.endOfLife
        ? {
            name: 'node',
            state: 'warn',
            detail: `Node ${version}: supported and tested, but its line reached its end of life on ${support.line.endOfLife} (no more security fixes)`,
            fix: `move to Node ${newest.major} (LTS)`,
          }
        : { name: 'node', state: 'ok', detail: `Node ${version} (${tested})` };
    case 'newer':
      return {
        name: 'node',
        state: 'warn',
        detail: `Node ${version} is newer than the lines Loom is tested on (${testedLines()}): it should work, untested`,
        fix: `if something fails, use Node ${newest.major} (LTS)`,
      };
    case 'too-old':
      return {
        name: 'node',
        state: 'fail',
        detail: `Node ${version} is older than ${support.line.oldest}, the oldest ${support.line.major} Loom's dependencies accept`,
        fix: `update to Node ${support.line.major} ${support.line.oldest} or newer, or to Node ${newest.major} (LTS) (https://nodejs.org)`,
      };
    case 'unsupported':
      return {
        name: 'node',
        state: 'fail',
        detail: `Node ${version} is not supported (${tested})`,
        fix: `install Node ${newest.major} (LTS) (https://nodejs.org)`,
      };
  }
}

function checkGit(): Promise<Check> {
  return new Promise((resolve) =>
    execFile('git', ['--version'], { timeout: 10_000 }, (error, stdout) =>
      resolve(
        error
          ? {
              name: 'git',
              state: 'fail',
              detail: `git does not run: ${(error as NodeJS.ErrnoException).code ?? error.message}`,
              fix: 'install git (apt-get install git, brew install git, https://git-scm.com); the local API commits, pushes and pulls with it',
            }
          : { name: 'git', state: 'ok', detail: stdout.trim() },
      ),
    ),
  );
}

async function checkStore(config: LoomConfig): Promise<Check> {
  if (config.databaseUrl) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: config.databaseUrl, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query('select 1');
      return { name: 'store', state: 'ok', detail: 'PostgreSQL (DATABASE_URL) answers' };
    } catch (error) {
      return {
        name: 'store',
        state: 'fail',
        detail: `PostgreSQL (DATABASE_URL) does not answer: ${(error as Error).message}`,
        fix: 'start PostgreSQL or correct DATABASE_URL; unset it to use SQLite in the data folder',
      };
    } finally {
      await client.end().catch(() => {});
    }
  }
  const { SQLITE_FILE } = await import('../../store/database.ts');
  const file = path.join(config.dataDir, SQLITE_FILE);
  if (fs.existsSync(file)) {
    try {
      fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
      return { name: 'store', state: 'ok', detail: `SQLite ${file}` };
    } catch {
      return {
        name: 'store',
        state: 'fail',
        detail: `SQLite ${file} is not readable and writable by this user`,
        fix: `chmod 600 ${file} (as its owner), or --data-dir elsewhere`,
      };
    }
  }
  // Not created yet: the first server start makes it; its folder (or the nearest one that exists) must be writable.
  let folder = config.dataDir;
  while (!fs.existsSync(folder) && path.dirname(folder) !== folder) folder = path.dirname(folder);
  try {
    fs.accessSync(folder, fs.constants.W_OK);
    return { name: 'store', state: 'ok', detail: `SQLite ${file}, created on the first start of loom up or loom hosted` };
  } catch {
    return {
      name: 'store',
      state: 'fail',
      detail: `cannot create ${file}: ${folder} is not writable`,
      fix: 'give --data-dir (LOOM_DATA_DIR) a folder you can write',
    };
  }
}

async function checkPort(name: string, host: string, port: number, url: string, healthPath: string, setting: string): Promise<Check> {
  if (port === 0) return { name, state: 'ok', detail: 'port 0: a free port is picked at start' };
  const state = await portState(host, port);
  if (state === 'free') return { name, state: 'ok', detail: `port ${port} is free` };
  const probe = await probeServer(url, healthPath);
  if (probe.running) return { name, state: 'ok', detail: `Loom${probe.version ? ` ${probe.version}` : ''} runs on port ${port}` };
  if (state === 'in-use') return { name, state: 'fail', detail: `port ${port} is taken by another program`, fix: `stop it, or use another port: ${setting}` };
  return { name, state: 'fail', detail: `cannot listen on ${host}:${port}: ${state}`, fix: `use another port: ${setting}` };
}

function checkLocalPort(config: LoomConfig): Promise<Check> {
  return checkPort(
    'local API',
    '127.0.0.1',
    config.local.port,
    `http://127.0.0.1:${config.local.port}`,
    '/api/health',
    'loom serve --port N (LOOM_LOCAL_PORT)',
  );
}

async function checkHostedPort(config: LoomConfig): Promise<Check> {
  const { publicUrlFor } = await import('../../config/load.ts');
  return checkPort('hosted API', config.hosted.host, config.hosted.port, publicUrlFor(config), '/api/v1/health', 'loom hosted --port N (LOOM_HOSTED_PORT)');
}

async function checkModels(config: LoomConfig): Promise<Check> {
  const [{ loadCatalog }, { ModelLibrary }] = await Promise.all([import('../../core/catalog/load.ts'), import('../../adapters/models/library.ts')]);
  let library;
  try {
    library = new ModelLibrary(loadCatalog(config.catalog), config.modelsDir);
  } catch (error) {
    return {
      name: 'models',
      state: 'fail',
      detail: `the catalog does not load: ${(error as Error).message}`,
      fix: 'correct the catalog file, or unset --catalog (LOOM_CATALOG) to use the shipped one',
    };
  }
  const installed = library
    .list()
    .filter((row) => row.installed)
    .map((row) => row.model.name);
  const provider = config.completion.provider;
  if (provider === 'gguf') {
    const model = config.completion.gguf?.model;
    const known = model && (library.find(model) ? library.status(library.find(model)!).installed : fs.existsSync(model));
    if (!known)
      return {
        name: 'models',
        state: 'fail',
        detail: `completion provider gguf, but its model ${model ?? '(none set)'} is not installed`,
        fix: `loom models pull ${model ?? 'NAME'} (loom models list shows them)`,
      };
  }
  const detail = `completion provider ${provider}; ${installed.length ? `GGUF models installed: ${installed.join(', ')}` : 'no GGUF model installed (the builtin model needs none)'}`;
  return { name: 'models', state: 'ok', detail };
}

function checkChromium(): Check {
  const folders = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const name of CHROMIUM_NAMES) {
    for (const folder of folders) {
      const candidate = path.join(folder, name);
      if (fs.existsSync(candidate)) return { name: 'chromium', state: 'ok', detail: candidate };
    }
  }
  return {
    name: 'chromium',
    state: 'warn',
    detail: `no Chromium or Chrome on PATH (${CHROMIUM_NAMES.join(', ')})`,
    fix: 'apt-get install chromium (or install Chrome): the app window (--open) and the browser tests use it',
  };
}

function checkSignIn(config: LoomConfig): Check {
  const providers = [config.codehost && `code host ${config.codehost.url}`, config.oidc && `OpenID Connect ${config.oidc.issuer}`].filter(Boolean);
  if (providers.length) return { name: 'sign-in', state: 'ok', detail: `the hosted server signs in through ${providers.join(' and ')}` };
  return {
    name: 'sign-in',
    state: 'warn',
    detail: 'no sign-in provider: loom login and the dashboard cannot sign anyone in (API keys from loom admin keys create still work)',
    fix: 'set LOOM_CODEHOST_CLIENT_ID and LOOM_CODEHOST_CLIENT_SECRET (an OAuth app at your code host), or LOOM_OIDC_ISSUER, LOOM_OIDC_CLIENT_ID and LOOM_OIDC_CLIENT_SECRET; docs/auth.md',
  };
}

function checkFolders(config: LoomConfig): Check {
  const open = [config.local.configDir, config.dataDir].filter((folder) => {
    const stat = fs.statSync(folder, { throwIfNoEntry: false });
    return process.platform !== 'win32' && stat !== undefined && (stat.mode & 0o077) !== 0;
  });
  if (open.length)
    return {
      name: 'folders',
      state: 'warn',
      detail: `open to other users: ${open.join(', ')}`,
      fix: `chmod 700 ${open.join(' ')} (Loom tightens them when it writes there)`,
    };
  return { name: 'folders', state: 'ok', detail: `config ${config.local.configDir}, data ${config.dataDir}` };
}

function checkBuild(): Check {
  if (runtime.compiled) return { name: 'cli', state: 'ok', detail: 'runs the compiled build (dist/cli)' };
  return {
    name: 'cli',
    state: 'warn',
    detail: 'runs from the TypeScript sources (no build, or sources changed since): every command starts slower',
    fix: 'npm run build',
  };
}
