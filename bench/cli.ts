// Start-up cost of the `loom` command as users run it (bin/loom.js, the compiled build when it is
// current): wall time and peak memory (max RSS) of `loom --version`, `--help`, `token`,
// `agent list`, `agent status` and `whoami` (against servers started in this process: a local
// API with one finished agent task, its model a stand-in OpenAI server, and a hosted API whose
// API key is stored as the sign-in), as the median of N runs each, next to a bare `node -e 0`
// measured in the same run, in turns, as the anchor.
//
//   npm run bench:cli        BENCH_RUNS: runs per command (default 21)
//
// It builds dist/cli/ first (scripts/build-cli.js), as `npm install` does. With
// LOOM_FROM_SOURCE=1 it measures the TypeScript sources through tsx instead, for comparison.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/load.ts';
import { startHosted } from '../src/hosted/server.ts';
import { startLocal } from '../src/local/server.ts';
import { startFakeOpenAi } from '../test/support/openai-fake.ts';
import { percentile, readPositive } from './support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'loom.js');
const RUNS = readPositive('BENCH_RUNS', 21);
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

interface Sample {
  ms: number;
  rssKb: number | undefined;
}

/**
 * One run of `node ARGS`, timed; its max RSS from /usr/bin/time (GNU) where there is one. Not
 * spawnSync: the servers the commands talk to run in this process's event loop.
 */
async function runOnce(args: string[], env: NodeJS.ProcessEnv): Promise<Sample> {
  const command = TIME ?? process.execPath;
  const fullArgs = TIME ? ['-f', '%M', process.execPath, ...args] : args;
  const started = performance.now();
  const child = spawn(command, fullArgs, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ms = performance.now() - started;
  if (status !== 0) throw new Error(`node ${args.join(' ')} exited ${status}: ${stderr}`);
  const rss = TIME ? Number(stderr.trim().split('\n').pop()) : NaN;
  return { ms, rssKb: Number.isFinite(rss) ? rss : undefined };
}

async function main(): Promise<void> {
  if (process.env.LOOM_FROM_SOURCE !== '1') execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build-cli.js')], { stdio: 'inherit' });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-cli-'));
  const workspace = path.join(home, 'workspace');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'a.ts'), 'export const a = 1;\n');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_DATA_HOME: path.join(home, 'data'),
    ...(process.env.LOOM_FROM_SOURCE ? { LOOM_FROM_SOURCE: process.env.LOOM_FROM_SOURCE } : {}),
  };
  const configFile = path.join(home, 'config.json');
  fs.writeFileSync(configFile, JSON.stringify({ workspace, dataDir: path.join(home, 'data', 'loom'), configDir: path.join(home, 'config', 'loom') }));
  // A model that can chat, so that there is an agent task whose status to ask for.
  const model = await startFakeOpenAi();
  const config = loadConfig({
    env: {},
    configFile,
    flags: { 'local.port': '0', 'hosted.port': '0', logLevel: 'silent', 'openai.baseUrl': model.baseUrl, 'openai.model': 'bench', 'openai.fim': 'off' },
  });
  const local = await startLocal(config);
  const hosted = await startHosted(config);
  try {
    model.chat.queue({ kind: 'text', text: 'Nothing to change.' });
    const { taskId } = await local.agents.run({ task: 'Look at a.ts', files: ['a.ts'] });
    while ((await local.agents.status(taskId)).status === 'running') await new Promise((resolve) => setTimeout(resolve, 10));
    const cli = (args: string[]) => execFileSync(process.execPath, [BIN, ...args], { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    cli(['admin', 'users', 'add', 'bench', '--data-dir', config.dataDir]);
    const key = cli(['admin', 'keys', 'create', '--user', 'bench', '--data-dir', config.dataDir, '--public-url', hosted.publicUrl]).trim();
    // The key stands in for a sign-in's access token: whoami checks it with the server as it would one.
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const credentials = {
      servers: {
        [hosted.publicUrl]: {
          access_token: key,
          expires_at: expires,
          scope: 'read:downloads',
          token_endpoint: `${hosted.publicUrl}/auth/token`,
          issuer: hosted.publicUrl,
        },
      },
    };
    fs.writeFileSync(path.join(config.local.configDir, 'credentials.json'), JSON.stringify(credentials), { mode: 0o600 });

    const cases: [string, string[]][] = [
      ['node -e 0 (anchor)', ['-e', '0']],
      ['loom --version', [BIN, '--version']],
      ['loom --help', [BIN, '--help']],
      ['loom token', [BIN, 'token']],
      ['loom agent list', [BIN, 'agent', 'list', '--port', String(local.port)]],
      ['loom agent status', [BIN, 'agent', 'status', taskId, '--port', String(local.port)]],
      ['loom whoami', [BIN, 'whoami', '--server', hosted.publicUrl]],
    ];
    const samples = new Map<string, Sample[]>(cases.map(([name]) => [name, []]));
    await runOnce(['-e', '0'], env); // warms the file cache
    for (let run = 0; run < RUNS; run++) for (const [name, args] of cases) samples.get(name)!.push(await runOnce(args, env));

    const anchor = percentile(
      samples.get(cases[0]![0])!.map((s) => s.ms),
      0.5,
    );
    console.log(
      `loom CLI start-up, median of ${RUNS} runs each (${process.env.LOOM_FROM_SOURCE === '1' ? 'sources through tsx' : 'compiled dist/cli'}), Node ${process.version}, ${os.cpus().length} cores`,
    );
    console.log('command                  wall ms   × node -e 0   max RSS MB');
    for (const [name] of cases) {
      const list = samples.get(name)!;
      const ms = percentile(
        list.map((s) => s.ms),
        0.5,
      );
      const rss = list.every((s) => s.rssKb !== undefined)
        ? (
            percentile(
              list.map((s) => s.rssKb!),
              0.5,
            ) / 1024
          ).toFixed(0)
        : 'n/a';
      console.log(`${name.padEnd(24)} ${ms.toFixed(0).padStart(7)}   ${(ms / anchor).toFixed(2).padStart(11)}   ${rss.padStart(10)}`);
    }
  } finally {
    await Promise.allSettled([local.close(), hosted.close(), model.close()]);
    fs.rmSync(home, { recursive: true, force: true });
  }
}

await main();
