// `loom admin feedback list` as an operator runs it: the real command against a SQLite data dir.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { FeedbackRecord } from '../../src/core/feedback/feedback.ts';
import { openStore } from '../../src/store/index.ts';
import { cleanEnv, hasStackTrace, runLoom, tempDir } from '../support/cli.ts';

const older: FeedbackRecord = {
  id: '11111111-1111-4111-8111-111111111111',
  name: 'Ada',
  email: 'ada@example.com',
  subject: 'First',
  message: 'Hello',
  createdAt: '2026-01-01T09:00:00.000Z',
  clientIp: '127.0.0.1',
  userAgent: null,
};
const newer: FeedbackRecord = {
  id: '22222222-2222-4222-8222-222222222222',
  name: 'Bob',
  email: 'bob@example.com',
  subject: 'Second',
  message: 'line one\nline two',
  createdAt: '2026-01-02T10:00:00.000Z',
  clientIp: '::1',
  userAgent: 'curl/8.5.0',
};

/** A data dir holding `records` (in the order given) and the environment to run loom with. */
async function dataDirWith(t: TestContext, records: FeedbackRecord[]) {
  const home = tempDir(t);
  const dataDir = path.join(home, 'data-dir');
  const store = await openStore({ dataDir });
  for (const r of records) await store.feedback.add(r);
  await store.close();
  const env = cleanEnv(home);
  return { list: (...args: string[]) => runLoom(['admin', 'feedback', 'list', '--data-dir', dataDir, ...args], env), env };
}

const block = (r: FeedbackRecord) => `${r.createdAt}  ${r.id}  ${r.name} <${r.email}>\n  ${r.subject}\n  ${r.message.replace(/\n/g, '\n  ')}\n\n`;

describe('loom admin feedback list', () => {
  it('says so when nothing is stored', async (t) => {
    const { list } = await dataDirWith(t, []);
    assert.deepEqual(await list(), { code: 0, signal: null, stdout: 'No feedback stored.\n', stderr: '' });
    assert.deepEqual(JSON.parse((await list('--json')).stdout), []);
  });

  it('prints one block per record, newest first, the message indented', async (t) => {
    const { list } = await dataDirWith(t, [older, newer]);
    const result = await list();
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stdout,
      '2026-01-02T10:00:00.000Z  22222222-2222-4222-8222-222222222222  Bob <bob@example.com>\n' +
        '  Second\n' +
        '  line one\n' +
        '  line two\n' +
        '\n' +
        '2026-01-01T09:00:00.000Z  11111111-1111-4111-8111-111111111111  Ada <ada@example.com>\n' +
        '  First\n' +
        '  Hello\n' +
        '\n',
    );
  });

  it('prints every field with --json', async (t) => {
    const { list } = await dataDirWith(t, [older, newer]);
    const result = await list('--json');
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), [newer, older]);
  });

  it('shows at most --limit records, and pages with --before', async (t) => {
    const { list } = await dataDirWith(t, [older, newer]);
    assert.equal((await list('--limit', '1')).stdout, block(newer));
    assert.equal((await list('--limit', '1', '--before', newer.id)).stdout, block(older));
    assert.deepEqual(JSON.parse((await list('--json', '--limit', '1')).stdout), [newer]);
  });

  it('refuses a --before id that names no feedback', async (t) => {
    const { list } = await dataDirWith(t, [older]);
    const result = await list('--before', 'no-such-id');
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, 'loom: No feedback has the id no-such-id.\n');
  });

  it('refuses a --limit that is not a whole number from 1 to 10000, without a stack trace', async (t) => {
    const { list } = await dataDirWith(t, [older]);
    const bad = ['abc', '0', '1.5', '10001'];
    const results = await Promise.all(bad.map((value) => list('--limit', value)));
    results.forEach((result, i) => {
      const value = bad[i]!;
      assert.notEqual(result.code, 0, `--limit ${JSON.stringify(value)} was accepted`);
      assert.equal(result.stdout, '', `--limit ${JSON.stringify(value)} printed records`);
      assert.match(result.stderr, /--limit/);
      assert.match(result.stderr, /a whole number from 1 to 10000/);
      assert.ok(!hasStackTrace(result.stderr), result.stderr);
    });
  });

  it('reports an unreachable PostgreSQL in one line, with exit code 1', async (t) => {
    const home = tempDir(t);
    const env = cleanEnv(home, { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test' });
    const result = await runLoom(['admin', 'feedback', 'list', '--data-dir', home], env);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^loom: cannot open the database: .*ECONNREFUSED.*\n$/);
  });
});
