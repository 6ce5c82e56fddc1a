import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { openStore, type Store, type StoreOptions } from '../../src/store/index.ts';
import { postgresUrl } from './services.ts';

/** Opens a store that is closed when the test ends (closing twice is allowed). */
export async function openTestStore(t: TestContext, options: StoreOptions): Promise<Store> {
  const store = await openStore(options);
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= store.close());
  t.after(close);
  return { ...store, close };
}

/** A temporary data dir, removed when the test ends. */
export function tempDataDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-store-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The stores Loom ships with, for running the same tests on each: SQLite in a temporary data
 * dir, PostgreSQL in a fresh schema (`fresh` gives null when PostgreSQL is not there and the
 * test is skipped).
 */
export const STORE_DIALECTS: { name: 'sqlite' | 'postgres'; fresh(t: TestContext): Promise<StoreOptions | null> }[] = [
  { name: 'sqlite', fresh: async (t) => ({ dataDir: tempDataDir(t) }) },
  {
    name: 'postgres',
    fresh: async (t) => {
      const databaseUrl = await postgresUrl(t);
      return databaseUrl ? { dataDir: tempDataDir(t), databaseUrl } : null;
    },
  },
];
