// The SQLite store holds signing keys, token hashes and sessions: its folder is 0700 and its
// files (loom.db, -wal, -shm) 0600, whatever the umask; a folder or file found open to other
// users is tightened, and the warning reaches the operator through the server's log.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { loadConfig } from '../../src/config/load.ts';
import { startHosted } from '../../src/hosted/server.ts';
import { openStore } from '../../src/store/index.ts';
import { captureLog } from '../support/log-lines.ts';

const skip = process.platform === 'win32' ? 'file modes are POSIX' : false;

function modeOf(file: string): string {
  return `0${(fs.statSync(file).mode & 0o777).toString(8)}`;
}

function tempDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-modes-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `work` with a umask of 0, the worst case: nothing but Loom's own modes restricts what it creates. */
async function withOpenUmask<T>(work: () => Promise<T>): Promise<T> {
  const previous = process.umask(0);
  try {
    return await work();
  } finally {
    process.umask(previous);
  }
}

/** A data dir as an older Loom left it: folder 0755, database, -wal and -shm 0644, SQLite still holding them open. */
function looseDataDir(t: TestContext): string {
  const dataDir = path.join(tempDir(t), 'data');
  fs.mkdirSync(dataDir, { mode: 0o755 });
  fs.chmodSync(dataDir, 0o755);
  const file = path.join(dataDir, 'loom.db');
  const other = new SqliteDatabase(file);
  other.pragma('journal_mode = WAL');
  other.exec('create table older_loom (x integer)');
  t.after(() => other.close());
  for (const name of ['loom.db', 'loom.db-wal', 'loom.db-shm']) fs.chmodSync(path.join(dataDir, name), 0o644);
  return dataDir;
}

describe('SQLite file modes', { skip }, () => {
  it('creates the data dir 0700 and loom.db, -wal and -shm 0600, even with a umask of 0', async (t) => {
    const dataDir = path.join(tempDir(t), 'nested', 'data');
    const store = await withOpenUmask(() => openStore({ dataDir }));
    t.after(() => store.close());
    await store.feedback.add({
      id: '11111111-1111-4111-8111-111111111111',
      name: 'Ada',
      email: 'ada@example.com',
      subject: 'Hi',
      message: 'A write, so that the write-ahead log exists.',
      createdAt: '2026-01-01T00:00:00.000Z',
      clientIp: '127.0.0.1',
      userAgent: null,
    });
    assert.equal(modeOf(dataDir), '0700');
    assert.equal(modeOf(path.dirname(dataDir)), '0700', 'a parent it created too');
    assert.deepEqual(fs.readdirSync(dataDir).sort(), ['loom.db', 'loom.db-shm', 'loom.db-wal']);
    for (const name of fs.readdirSync(dataDir)) assert.equal(modeOf(path.join(dataDir, name)), '0600', name);
    assert.deepEqual(store.warnings, [], 'nothing to warn about on a fresh data dir');
  });

  it('tightens a data dir and files found open to other users, and says which', async (t) => {
    const dataDir = looseDataDir(t);
    const store = await openStore({ dataDir });
    t.after(() => store.close());
    assert.equal(modeOf(dataDir), '0700');
    for (const name of ['loom.db', 'loom.db-wal', 'loom.db-shm']) assert.equal(modeOf(path.join(dataDir, name)), '0600', name);
    assert.deepEqual(store.warnings, [
      `${dataDir} was 0755, open to other users; it is now 0700`,
      `${path.join(dataDir, 'loom.db')} was 0644, open to other users; it is now 0600`,
      `${path.join(dataDir, 'loom.db-wal')} was 0644, open to other users; it is now 0600`,
      `${path.join(dataDir, 'loom.db-shm')} was 0644, open to other users; it is now 0600`,
    ]);
  });

  it('loom hosted logs the warnings at start', async (t) => {
    const dataDir = looseDataDir(t);
    const configFile = path.join(path.dirname(dataDir), 'config.json');
    fs.writeFileSync(configFile, JSON.stringify({ dataDir, hosted: { host: '127.0.0.1', port: 0 }, logLevel: 'info' }));
    const log = captureLog();
    const hosted = await startHosted(loadConfig({ env: {}, configFile }), undefined, { logDestination: log });
    await hosted.close();
    const warnings = log
      .lines()
      .filter((line) => line.level === 40)
      .map((line) => line.msg);
    assert.deepEqual(warnings, [
      `${dataDir} was 0755, open to other users; it is now 0700`,
      `${path.join(dataDir, 'loom.db')} was 0644, open to other users; it is now 0600`,
      `${path.join(dataDir, 'loom.db-wal')} was 0644, open to other users; it is now 0600`,
      `${path.join(dataDir, 'loom.db-shm')} was 0644, open to other users; it is now 0600`,
    ]);
    assert.equal(modeOf(dataDir), '0700');
  });
});
