// Keeps the builtin model in step with the workspace: trained on its files at start, then told
// of every edit in the editor and every file change on disk. Updates are debounced per file
// (a burst of keystrokes is one update) and training never blocks the server from answering.
import fs from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../files/read-regular.ts';

export interface LearningModel {
  updateFile(filePath: string, text: string): void;
  removeFile(filePath: string): void;
}

export interface LearnerOptions {
  /** Trains on the whole folder (the builtin corpus walker). */
  train: (signal: AbortSignal) => Promise<unknown>;
  /** Whether a workspace-relative file is code worth learning (extension, size). */
  accepts: (relativePath: string, size: number) => boolean;
  /** Folders never learned nor watched (node_modules, .git, build output). */
  skipsDirectory: (name: string) => boolean;
  debounceMs?: number;
  /** Most folders watched; a huge tree is learned at start but only this many are followed. */
  maxWatchedDirectories?: number;
}

export class WorkspaceLearner {
  private readonly controller = new AbortController();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly watchers = new Map<string, fs.FSWatcher>();
  /** Files the editor holds: their live text is the truth, not the disk (unsaved edits). */
  private readonly inEditor = new Set<string>();
  /** Resolves when the first training pass is over (tests and `loom complete` wait for it). */
  ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly model: LearningModel,
    private readonly root: string,
    private readonly options: LearnerOptions,
  ) {}

  start(): void {
    this.ready = this.options
      .train(this.controller.signal)
      .then(() => undefined)
      .catch(() => undefined);
    this.watchTree(this.root);
  }

  /** An editor document changed: learn its live text (read once the typing pauses). */
  documentChanged(relativePath: string, text: () => string): void {
    this.inEditor.add(relativePath);
    this.later(relativePath, () => this.model.updateFile(relativePath, text()));
  }

  close(): void {
    this.controller.abort();
    for (const timer of this.timers.values()) clearTimeout(timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.timers.clear();
    this.watchers.clear();
  }

  private later(key: string, action: () => void): void {
    clearTimeout(this.timers.get(key));
    const timer = setTimeout(() => {
      this.timers.delete(key);
      if (!this.controller.signal.aborted) action();
    }, this.options.debounceMs ?? 150);
    timer.unref();
    this.timers.set(key, timer);
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
        const watcher = fs.watch(dir, (_event, name) => name && this.onDiskChange(path.join(dir, name.toString())));
        watcher.on('error', () => this.unwatch(dir));
        this.watchers.set(dir, watcher);
        added.push(dir);
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          if (entry.isDirectory() && !this.options.skipsDirectory(entry.name)) pending.push(path.join(dir, entry.name));
        }
      } catch {
        this.unwatch(dir); // gone or unreadable: nothing to follow
      }
    }
    return added;
  }

  private unwatch(dir: string): void {
    this.watchers.get(dir)?.close();
    this.watchers.delete(dir);
  }

  private onDiskChange(absolute: string): void {
    const relative = path.relative(this.root, absolute).split(path.sep).join('/');
    // An open document reloads from disk itself when it has no unsaved edits, and tells us.
    if (relative.startsWith('..') || this.inEditor.has(relative)) return;
    this.later(relative, () => {
      // This runs in a timer: a throw here would end the process. A name that cannot be
      // looked at (a loop of symlinks, a name too long, no permission) is as good as gone.
      let stat: fs.Stats | undefined;
      try {
        stat = fs.statSync(absolute, { throwIfNoEntry: false });
      } catch {
        stat = undefined;
      }
      if (!stat) {
        this.model.removeFile(relative);
        this.unwatch(absolute);
      } else if (stat.isDirectory()) {
        if (!this.options.skipsDirectory(path.basename(absolute))) this.learnNewDirectory(absolute);
      } else if (stat.isFile() && this.options.accepts(relative, stat.size)) {
        try {
          // Never a FIFO swapped in since the stat (reading one would block the server); a file
          // that grew since is read on the event its growth sends.
          this.model.updateFile(relative, readRegularFile(absolute, relative, stat.size).text);
        } catch {
          // Deleted, unreadable or no longer a regular file between stat and read: the next event says which.
        }
      }
    });
  }

  /** A folder that appeared (a checkout, a copy): follow it and learn what it holds. */
  private learnNewDirectory(absolute: string): void {
    for (const dir of this.watchTree(absolute)) {
      try {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) if (entry.isFile()) this.onDiskChange(path.join(dir, entry.name));
      } catch {
        // Removed again already.
      }
    }
  }
}
