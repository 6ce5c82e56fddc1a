// The store the `loom admin` commands work on: the one the hosted server uses, found the same
// way (DATABASE_URL, else the SQLite file in the data dir), opened for one command and closed.
import type { Command } from 'commander';
import type { LoomConfig } from '../../config/load.ts';
import type { Store } from '../../store/index.ts';
import { configFromOptions } from '../options.ts';
import { printWarning } from '../output.ts';

/**
 * Runs `work` on the store of the command's settings, telling the operator what opening it
 * found open to other users, and closes it whatever happens.
 *
 * @example await withStore(command, (store) => store.users.list())
 */
export async function withStore<T>(command: Command, work: (store: Store, config: LoomConfig) => Promise<T>): Promise<T> {
  const config = configFromOptions(command);
  const { openStore } = await import('../../store/index.ts');
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  for (const warning of store.warnings) printWarning(warning);
  try {
    return await work(store, config);
  } finally {
    await store.close();
  }
}
