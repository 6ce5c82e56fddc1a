// What other programs do to the workspace's files (a terminal's `git checkout`, another editor,
// a build), told on the event stream as it happens: the workspace's watcher hears each name,
// the open documents look at their files at once (one without unsaved edits takes the change,
// and file:open `reloaded` says so; one with unsaved edits is marked in conflict), and a
// `disk:change` event names the paths, a burst of them as one event. Loom's own saves are left
// out: the document already holds what was written.
import path from 'node:path';
import type { EventBus } from '../events/bus.ts';
import { isAtomicWriteTemp } from '../files/write-atomically.ts';
import type { Documents } from './documents.ts';
import type { FolderWatcher } from './folder-watcher.ts';
import { protectedName } from './protected.ts';

export interface DiskChangesOptions {
  /** Quiet time that ends a burst of changes. */
  quietMs?: number;
  /** Longest a change waits to be told, however long the burst. */
  maxWaitMs?: number;
  /** Most paths named by one event; `more` counts the others. */
  maxPaths?: number;
}

/**
 * Relays the watcher's changes to the open documents and to `disk:change` events.
 *
 * @example
 *   const changes = new DiskChanges(watcher, documents, bus);
 *   changes.start();
 *   // `git checkout -- src/a.ts` in a terminal → {type: 'disk:change', data: {paths: ['src/a.ts']}}
 *   changes.close();
 */
export class DiskChanges {
  private readonly pending = new Set<string>();
  private quietTimer: NodeJS.Timeout | undefined;
  private waitTimer: NodeJS.Timeout | undefined;
  private stopListening: () => void = () => {};
  /** The burst being told: the next waits for it. */
  private telling: Promise<void> = Promise.resolve();

  constructor(
    private readonly watcher: FolderWatcher,
    private readonly documents: Documents,
    private readonly events: EventBus,
    private readonly options: DiskChangesOptions = {},
  ) {}

  start(): void {
    this.stopListening = this.watcher.onChange((absolute) => this.heard(absolute));
    this.watcher.start();
  }

  close(): void {
    this.stopListening();
    clearTimeout(this.quietTimer);
    clearTimeout(this.waitTimer);
    this.pending.clear();
  }

  private heard(absolute: string): void {
    const relative = path.relative(this.watcher.root, absolute).split(path.sep).join('/');
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return;
    // The temporary file of an atomic write is no file of the workspace; .git and .loom are not shown.
    if (isAtomicWriteTemp(path.basename(absolute)) || protectedName(relative.split('/')[0]!)) return;
    this.pending.add(relative);
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.flush(), this.options.quietMs ?? 150);
    this.quietTimer.unref();
    if (!this.waitTimer) {
      this.waitTimer = setTimeout(() => this.flush(), this.options.maxWaitMs ?? 1000);
      this.waitTimer.unref();
    }
  }

  private flush(): void {
    clearTimeout(this.quietTimer);
    clearTimeout(this.waitTimer);
    this.quietTimer = this.waitTimer = undefined;
    const heard = [...this.pending].sort();
    this.pending.clear();
    // Bursts are told in the order they came.
    this.telling = this.telling.then(() => this.tell(heard)).catch(() => undefined);
  }

  private async tell(heard: string[]): Promise<void> {
    const changed: string[] = [];
    for (const relative of heard) {
      // An open document whose file holds what it last loaded or saved: Loom's own write.
      if ((await this.documents.noticeDiskChange(relative)) !== 'unchanged') changed.push(relative);
    }
    if (changed.length === 0) return;
    const max = this.options.maxPaths ?? 200;
    const data: Record<string, unknown> = { paths: changed.slice(0, max) };
    if (changed.length > max) data['more'] = changed.length - max;
    await this.events.emit('disk:change', data);
  }
}
