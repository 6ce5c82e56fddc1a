// Follows a folder tree on disk with one fs.watch per folder (recursive watching is not on every
// platform Node 20 runs on), skipping the folders the caller names (dependencies, build output,
// .git). Listeners hear the absolute path of every name that changed; a folder that appears is
// watched at once and each file already in it is reported too (a `cp -r`, a checkout). One
// watcher serves every listener, so the server holds one set of watches whatever follows the disk.
import fs from 'node:fs';
import path from 'node:path';

export interface FolderWatcherOptions {
  /** Folders neither watched nor entered, by name (node_modules, .git, build output). */
  skipsDirectory: (name: string) => boolean;
  /** Paths neither watched nor told of, by absolute path (Loom's own folders inside the workspace). */
  excludes?: (absolute: string) => boolean;
  /** Most folders watched: a huge tree is followed only this far (a focus of the window reads it again). */
  maxWatchedDirectories?: number;
}

export type DiskChangeListener = (absolutePath: string) => void;

/**
 * Watches `root` and the folders below it until `close()`.
 *
 * @example
 *   const watcher = new FolderWatcher('/work/app', { skipsDirectory: (name) => name === 'node_modules' });
 *   watcher.onChange((file) => console.log('changed on disk:', file));
 *   watcher.start();
 *   // … later
 *   watcher.close();
 */
export class FolderWatcher {
  /** Each folder watched, with who it is: a folder removed and made again under the same name is another one to watch. */
  private readonly watchers = new Map<string, { watcher: fs.FSWatcher; identity: string }>();
  private readonly listeners = new Set<DiskChangeListener>();
  private started = false;
  private closed = false;

  constructor(
    readonly root: string,
    private readonly options: FolderWatcherOptions,
  ) {}

  /** Adds a listener; returns the function that removes it. */
  onChange(listener: DiskChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts watching (once; later calls do nothing). */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.watchTree(this.root);
  }

  /** How many folders are watched (tests and diagnostics). */
  get watchedDirectories(): number {
    return this.watchers.size;
  }

  close(): void {
    this.closed = true;
    for (const { watcher } of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.listeners.clear();
  }

  /** Watches a folder and the folders below it; returns those newly watched. */
  private watchTree(directory: string): string[] {
    const limit = this.options.maxWatchedDirectories ?? 4096;
    const added: string[] = [];
    const pending = [directory];
    while (pending.length > 0 && this.watchers.size < limit) {
      const dir = pending.pop()!;
      if (this.watchers.has(dir)) continue;
      try {
        const identity = identityOf(fs.lstatSync(dir, { bigint: true }));
        const watcher = fs.watch(dir, (_event, name) => {
          // The folder itself removed (or replaced): its parent's watcher tells, and follows the new one.
          if (this.identity(dir) !== identity) return this.unwatchBelow(dir);
          if (name) this.changed(path.join(dir, name.toString()));
        });
        watcher.on('error', () => this.unwatch(dir));
        this.watchers.set(dir, { watcher, identity });
        added.push(dir);
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          if (entry.isDirectory() && !this.options.skipsDirectory(entry.name) && !this.excluded(path.join(dir, entry.name)))
            pending.push(path.join(dir, entry.name));
        }
      } catch {
        this.unwatch(dir); // gone or unreadable: nothing to follow
      }
    }
    return added;
  }

  private unwatch(dir: string): void {
    this.watchers.get(dir)?.watcher.close();
    this.watchers.delete(dir);
  }

  /** Who a folder is now, or undefined when it is gone or cannot be looked at. */
  private identity(dir: string): string | undefined {
    try {
      const stat = fs.lstatSync(dir, { bigint: true, throwIfNoEntry: false });
      return stat && identityOf(stat);
    } catch {
      return undefined;
    }
  }

  private excluded(absolute: string): boolean {
    return this.options.excludes?.(absolute) ?? false;
  }

  private changed(absolute: string): void {
    if (this.closed || this.excluded(absolute)) return;
    this.tell(absolute);
    // Inside fs.watch's callback: a throw here would end the process. A name that cannot be
    // looked at (a loop of symlinks, a name too long, no permission) is as good as gone.
    let stat: fs.BigIntStats | undefined;
    try {
      stat = fs.lstatSync(absolute, { bigint: true, throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    const watched = this.watchers.get(absolute);
    // Gone, or another folder (or a file) now under a watched folder's name: the old watches go.
    if (watched && (!stat || identityOf(stat) !== watched.identity)) this.unwatchBelow(absolute);
    if (!stat || !stat.isDirectory() || this.watchers.has(absolute) || this.options.skipsDirectory(path.basename(absolute))) return;
    // A folder that appeared: follow it, and tell of what it already holds.
    for (const dir of this.watchTree(absolute)) {
      try {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) if (entry.isFile()) this.tell(path.join(dir, entry.name));
      } catch {
        // Removed again already.
      }
    }
  }

  /** A folder that is gone, and every folder watched below it. */
  private unwatchBelow(dir: string): void {
    const prefix = dir + path.sep;
    for (const watched of [...this.watchers.keys()]) if (watched === dir || watched.startsWith(prefix)) this.unwatch(watched);
  }

  private tell(absolute: string): void {
    for (const listener of this.listeners) {
      try {
        listener(absolute);
      } catch {
        // A listener's failure is its own; the others still hear.
      }
    }
  }
}

/**
 * Who a file is: its inode and its birth time (an inode number is given again at once to the
 * next file made, as when a folder is removed and made again; its birth time is not the same).
 */
function identityOf(stat: fs.BigIntStats): string {
  return `${stat.ino}:${stat.birthtimeNs}`;
}
