// Composer sessions through the job queue, end to end with the real binary: `loom hosted`
// processes answer POST /api/v1/composer/session, sessions go through BullMQ on Redis, and
// `loom worker` processes run them (plan mode, attachments) against a scripted
// OpenAI-compatible server that answers at once, so the figures are Loom's: the store's claims,
// the queue, the runner. PostgreSQL and Redis as in tests (LOOM_TEST_DATABASE_URL,
// LOOM_TEST_REDIS_URL); each configuration runs in a fresh schema and key prefix.
//
// Figures per configuration: sessions per second (from the first request to the last session
// ended) and the time from a session's 201 to its `running` (the runner's startedAt), p50 and
// p99. Configurations: one worker, two workers (each at composer.concurrency 4), and, as the
// anchor measured in the same run, `loom hosted` alone with the in-process queue (no Redis) at
// the same concurrency.
//
//   npm run bench:composer     BENCH_SESSIONS: sessions per configuration (default 200)
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { cleanEnv } from '../test/support/cli.ts';
import { startFakeOpenAi } from '../test/support/openai-fake.ts';
import { percentile, readPositive } from './support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'loom.js');
const PG_URL = process.env.LOOM_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.LOOM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SESSIONS = Math.round(readPositive('BENCH_SESSIONS', 200));
/** Requests in flight at once while creating sessions. */
const CLIENTS = 8;
const CONCURRENCY = 4;
const PLAN = JSON.stringify({ summary: 'Rename the helper.', steps: ['rename it'], files: ['a.ts'] });

interface Figures {
  name: string;
  perSecond: number;
  p50: number;
  p99: number;
}

/** Runs `loom ARGS…` until it prints `ready`; the process is returned still running. */
function startLoom(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = ready.exec(out);
      if (match) resolve({ child, match });
    });
    child.once('exit', (code) => reject(new Error(`loom ${args.join(' ')} exited (${code}) before it was ready:\n${out}`)));
  });
}

function runLoom(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`loom ${args.join(' ')} exited ${code}`))));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function measure(name: string, workers: number, baseUrl: string): Promise<Figures> {
  const schema = `loom_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const databaseUrl = url.toString();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-composer-'));
  const env = cleanEnv(home, {
    DATABASE_URL: databaseUrl,
    ...(workers > 0 ? { REDIS_URL, LOOM_JOBS_REDIS_PREFIX: `loom-bench:${randomBytes(6).toString('hex')}` } : {}),
    LOOM_DATA_DIR: path.join(home, 'data'),
    LOOM_HOSTED_PORT: '0',
    LOOM_PUBLIC_URL: 'http://loom.example',
    LOOM_LOG_LEVEL: 'warn',
    LOOM_RATE_LIMIT: '1000000',
    LOOM_OPENAI_BASE_URL: baseUrl,
    LOOM_OPENAI_MODEL: 'scripted',
    LOOM_COMPLETION_PROVIDER: 'openai',
    LOOM_COMPOSER_CONCURRENCY: String(CONCURRENCY),
    LOOM_COMPOSER_MAX_QUEUED_PER_USER: String(SESSIONS * 2),
    LOOM_COMPOSER_MAX_RUNNING_PER_USER: '1000',
  });
  const children: ChildProcess[] = [];
  const db = new pg.Client({ connectionString: databaseUrl });
  try {
    await runLoom(['admin', 'users', 'add', 'bench'], env);
    const key = JSON.parse(await runLoom(['admin', 'keys', 'create', '--user', 'bench', '--scope', 'write:composer', '--json'], env)).key as string;
    const starts = [startLoom(['hosted'], env, /Loom hosted API\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1/)];
    for (let i = 0; i < workers; i++) starts.push(startLoom(['worker'], { ...env, LOOM_DATA_DIR: path.join(home, `worker-${i}`) }, /Loom worker\s+(\S+)/));
    const started = await Promise.all(starts);
    children.push(...started.map((s) => s.child));
    const hostedUrl = started[0]!.match[1]!;
    await db.connect();

    const acknowledged = new Map<string, number>();
    const wallBegan = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < SESSIONS) {
          const i = next++;
          const response = await fetch(`${hostedUrl}/api/v1/composer/session`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              prompt: `Rename add to sum (${i}).`,
              files: ['a.ts'],
              mode: 'plan',
              attachments: [{ path: 'a.ts', content: 'export const add = 1;\n' }],
            }),
          });
          const body = (await response.json()) as { sessionId: string };
          if (response.status !== 201) throw new Error(`${response.status} ${JSON.stringify(body)}`);
          // Wall-clock ms, to compare with the runner's startedAt written by another process on this machine.
          acknowledged.set(body.sessionId, Date.now());
        }
      }),
    );
    for (;;) {
      const { rows } = await db.query<{ n: string }>("select count(*) as n from composer_sessions where status not in ('queued', 'running')");
      if (Number(rows[0]!.n) >= SESSIONS) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { rows } = await db.query<{ id: string; status: string; started_at: string; ended_at: string }>(
      'select id, status, started_at, ended_at from composer_sessions',
    );
    const failed = rows.filter((row) => row.status !== 'completed');
    if (failed.length) throw new Error(`${failed.length} sessions did not complete`);
    const lastEnd = Math.max(...rows.map((row) => Date.parse(row.ended_at)));
    const seconds = (lastEnd - wallBegan) / 1000;
    const toRunning = rows.map((row) => Date.parse(row.started_at) - acknowledged.get(row.id)!);
    return { name, perSecond: SESSIONS / seconds, p50: percentile(toRunning, 0.5), p99: percentile(toRunning, 0.99) };
  } finally {
    await Promise.all(children.map(stop));
    await db.end().catch(() => {});
    await admin.query(`drop schema ${schema} cascade`).catch(() => {});
    await admin.end();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const fake = await startFakeOpenAi();
fake.chat.respondWith(() => ({ kind: 'text', text: PLAN }));
try {
  console.log(`composer sessions through the job queue: ${SESSIONS} plan sessions per configuration, ${CLIENTS} clients, composer.concurrency ${CONCURRENCY}`);
  const anchor = await measure('anchor: loom hosted alone, in-process queue', 0, fake.baseUrl);
  const results = [anchor, await measure('BullMQ, one loom worker', 1, fake.baseUrl), await measure('BullMQ, two loom workers', 2, fake.baseUrl)];
  console.log('| configuration | sessions/s | ratio to anchor | 201 → running p50 | p99 |');
  console.log('|---|---|---|---|---|');
  for (const r of results) {
    console.log(`| ${r.name} | ${r.perSecond.toFixed(1)} | ${(r.perSecond / anchor.perSecond).toFixed(2)}× | ${r.p50} ms | ${r.p99} ms |`);
  }
} finally {
  await fake.close();
}
