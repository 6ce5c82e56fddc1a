// What a server's start-up opened, closed in the reverse order on shutdown, or at once when the
// start-up fails halfway: a failed start leaks nothing (no open database, no Redis connection,
// no listening socket), and a shutdown closes each thing after what depends on it.

/** Something a start-up opens and its shutdown closes. */
export interface Closable {
  close(): Promise<unknown> | void;
}

/**
 * A stack of open resources. Push each one as soon as it is open; `close()` closes them last
 * first, every one of them even when some fail (it then rejects with the first failure), and
 * only once however often it is called.
 *
 * @example
 * const resources = new ResourceStack();
 * return resources.unwindOnFailure(async () => {
 *   const store = resources.push(await openStore({ dataDir }));
 *   const app = resources.push(await buildApp(store));
 *   await app.listen({ port: 0 });
 *   return { app, close: () => resources.close() };
 * });
 */
export class ResourceStack {
  private readonly open: Closable[] = [];
  private closing?: Promise<void>;

  /** Adds a resource to close; returns it. */
  push<T extends Closable>(resource: T): T {
    if (this.closing) throw new Error('The resources are already closed.');
    this.open.push(resource);
    return resource;
  }

  /** Adds a step to run on close, at this point of the order (a flush, a stop, a lazily built part). */
  onClose(close: () => Promise<unknown> | void): void {
    this.push({ close });
  }

  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  /** Runs a start-up; when it throws, closes what it had opened and throws its error. */
  async unwindOnFailure<T>(start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      await this.close().catch(() => {});
      throw error;
    }
  }

  private async closeAll(): Promise<void> {
    const failures: unknown[] = [];
    for (const resource of [...this.open].reverse()) {
      try {
        await resource.close();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length) throw failures[0];
  }
}
