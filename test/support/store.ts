import type { TestContext } from 'node:test';
import { openStore, type Store, type StoreOptions } from '../../src/store/index.ts';

/** Opens a store that is closed when the test ends (closing twice is allowed). */
export async function openTestStore(t: TestContext, options: StoreOptions): Promise<Store> {
  const store = await openStore(options);
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= store.close());
  t.after(close);
  return { ...store, close };
}
