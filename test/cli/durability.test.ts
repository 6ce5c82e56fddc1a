// Feedback that `loom hosted` acknowledged with 201 is on disk: the process is killed with
// SIGKILL right after the answer, and `loom admin feedback list` run afterwards finds it.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { FeedbackRecord } from '../../src/core/feedback/feedback.ts';
import { cleanEnv, runLoom, startLoom, tempDir } from '../support/cli.ts';
import { postgresUrl } from '../support/services.ts';

const ISO_8601_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Setup {
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

const DIALECTS: { name: string; store: string; setup(t: TestContext): Promise<Setup | null> }[] = [
  {
    name: 'SQLite',
    store: 'sqlite',
    async setup(t) {
      const home = tempDir(t);
      return { dataDir: `${home}/data-dir`, env: cleanEnv(home) };
    },
  },
  {
    name: 'PostgreSQL',
    store: 'postgres',
    async setup(t) {
      const databaseUrl = await postgresUrl(t);
      if (!databaseUrl) return null;
      const home = tempDir(t);
      return { dataDir: `${home}/data-dir`, env: cleanEnv(home, { DATABASE_URL: databaseUrl }) };
    },
  },
];

async function submit(url: string, body: Record<string, string>, userAgent: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/feedback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': userAgent },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  assert.equal(res.status, 201, JSON.stringify(answer));
  assert.equal(answer.ok, true);
  assert.equal(typeof answer.id, 'string');
  return answer.id;
}

async function killHard(running: Awaited<ReturnType<typeof startLoom>>): Promise<void> {
  running.child.kill('SIGKILL');
  const { signal } = await running.exited;
  assert.equal(signal, 'SIGKILL', 'the server was killed, not shut down');
}

async function listStored(setup: Setup, limit = 100): Promise<FeedbackRecord[]> {
  const result = await runLoom(['admin', 'feedback', 'list', '--json', '--limit', String(limit), '--data-dir', setup.dataDir], setup.env);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, '');
  return JSON.parse(result.stdout);
}

for (const dialect of DIALECTS) {
  describe(`acknowledged feedback survives kill -9 (${dialect.name})`, () => {
    it('keeps one record with every field', async (t) => {
      const setup = await dialect.setup(t);
      if (!setup) return;
      const server = await startLoom(t, ['hosted', '--port', '0', '--data-dir', setup.dataDir, '--log-level', 'silent'], setup.env);
      assert.match(server.stdout(), new RegExp(`\\(store: ${dialect.store} `));
      const sent = {
        name: 'Zoë Ångström 👩🏽‍💻',
        email: 'zoe@example.com',
        subject: 'שלום — durable?',
        message: 'Line one\nLine two with e\u0301 and 🧵',
      };
      const before = Date.now();
      const id = await submit(server.url, sent, 'durability-test/1.0');
      const after = Date.now();
      await killHard(server);

      const stored = await listStored(setup);
      const record = stored.find((r) => r.id === id);
      assert.ok(record, `acknowledged id ${id} is missing after kill -9; stored: ${JSON.stringify(stored)}`);
      assert.deepEqual(record, { ...sent, id, createdAt: record.createdAt, clientIp: '127.0.0.1', userAgent: 'durability-test/1.0' });
      assert.match(record.createdAt, ISO_8601_UTC);
      const createdAt = Date.parse(record.createdAt);
      // The server reads the same system clock: the record's time lies between the two readings.
      assert.ok(createdAt >= before && createdAt <= after, `createdAt ${record.createdAt} is not the time of the request`);
    });

    it('keeps every record of a concurrent burst', async (t) => {
      const setup = await dialect.setup(t);
      if (!setup) return;
      const server = await startLoom(t, ['hosted', '--port', '0', '--data-dir', setup.dataDir, '--log-level', 'silent'], setup.env);
      const ids = await Promise.all(
        Array.from({ length: 25 }, (_, n) =>
          submit(server.url, { name: `Sender ${n}`, email: `s${n}@example.com`, subject: `Burst ${n}`, message: `Message ${n}` }, 'burst/1'),
        ),
      );
      await killHard(server);

      const stored = await listStored(setup);
      assert.deepEqual(stored.map((r) => r.id).sort(), [...ids].sort());
      for (const r of stored) assert.equal(r.subject, `Burst ${r.name.replace('Sender ', '')}`);
    });
  });
}
