// An operator's install for the `loom admin` tests: an environment naming its store (a SQLite
// data dir, or a fresh PostgreSQL schema through DATABASE_URL) so that every `loom` command
// run in it, the server included, works on the same store, as the commands in the docs do.
import path from 'node:path';
import type { TestContext } from 'node:test';
import { cleanEnv, runLoom, tempDir, type LoomResult } from './cli.ts';
import { postgresUrl } from './services.ts';

export const BACKENDS = ['sqlite', 'postgres'] as const;
export type Backend = (typeof BACKENDS)[number];

export interface Install {
  env: NodeJS.ProcessEnv;
  /** The store's options, to look at or seed it from the test. */
  storeOptions: { databaseUrl?: string; dataDir: string };
  /** Runs `loom ARGS…` in the install's environment. */
  loom(...args: string[]): Promise<LoomResult>;
}

/** A fresh install on `backend`, or null when PostgreSQL is not there (the test is then skipped). */
export async function install(t: TestContext, backend: Backend, extraEnv: Record<string, string> = {}): Promise<Install | null> {
  const home = tempDir(t);
  const dataDir = path.join(home, 'data-dir');
  const databaseUrl = backend === 'postgres' ? await postgresUrl(t) : undefined;
  if (databaseUrl === null) return null;
  const env = cleanEnv(home, { LOOM_DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...extraEnv });
  return { env, storeOptions: { databaseUrl, dataDir }, loom: (...args) => runLoom(args, env) };
}
