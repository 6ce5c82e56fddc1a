// Keeps the builtin model in step with the workspace: trained on its files at start, then told
// of every edit in the editor and every file change on disk. Updates are debounced per file
// (a burst of keystrokes is one update) and training never blocks the server from answering.
// A file on disk is learned only where the workspace's gate admits its real path: a symbolic
// link that appears, leading out of the workspace or into Loom's own folders, teaches nothing.
import fs from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../files/read-regular.ts';
import { FolderWatcher } from '../workspace/folder-watcher.ts';
import type { WorkspacePaths } from '../workspace/paths.ts';

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
  /** The server's watcher of the workspace, shared with what else follows the disk; without it the learner watches on its own. */
  watcher?: FolderWatcher;
}

export class WorkspaceLearner {
  private readonly controller = new AbortController();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly watcher: FolderWatcher;
  private readonly ownsWatcher: boolean;
  private stopWatching: () => void = () => {};
  /** Files the editor holds: their live text is the truth, not the disk (unsaved edits). */
  private readonly inEditor = new Set<string>();
  /** Resolves when the first training pass is over (tests and `loom complete` wait for it). */
  ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly model: LearningModel,
    private readonly paths: WorkspacePaths,
    private readonly options: LearnerOptions,
  ) {
    this.ownsWatcher = !options.watcher;
    this.watcher =
      options.watcher ??
      new FolderWatcher(paths.root, {
        skipsDirectory: options.skipsDirectory,
        excludes: (absolute) => paths.loomFolderOf(absolute) !== undefined,
        maxWatchedDirectories: options.maxWatchedDirectories,
      });
  }

  start(): void {
    this.ready = this.options
      .train(this.controller.signal)
      .then(() => undefined)
      .catch(() => undefined);
    this.stopWatching = this.watcher.onChange((absolute) => this.onDiskChange(absolute));
    this.watcher.start();
  }

  /** An editor document changed: learn its live text (read once the typing pauses). */
  documentChanged(relativePath: string, text: () => string): void {
    this.inEditor.add(relativePath);
    this.later(relativePath, () => this.model.updateFile(relativePath, text()));
  }

  close(): void {
    this.controller.abort();
    this.stopWatching();
    if (this.ownsWatcher) this.watcher.close();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
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

  private onDiskChange(absolute: string): void {
    const relative = path.relative(this.paths.root, absolute).split(path.sep).join('/');
    // An open document reloads from disk itself when it has no unsaved edits, and tells us.
    if (relative.startsWith('..') || this.inEditor.has(relative)) return;
    this.later(relative, () => {
      // This runs in a timer: a throw here would end the process. A name that cannot be
      // looked at (a loop of symlinks, a name too long, no permission) is as good as gone.
      let real: string | undefined;
      let stat: fs.Stats | undefined;
      try {
        real = fs.realpathSync.native(absolute);
        stat = fs.statSync(real, { throwIfNoEntry: false });
      } catch {
        stat = undefined;
      }
      // A folder that appeared is the watcher's: it tells of each file the folder holds. A link
      // whose target the gate does not admit is as good as gone.
      if (!stat || !real || !this.paths.admits(real)) this.model.removeFile(relative);
      else if (stat.isFile() && this.options.accepts(relative, stat.size)) {
        try {
          // Never a FIFO swapped in since the stat (reading one would block the server); a file
          // that grew since is read on the event its growth sends.
          this.model.updateFile(relative, readRegularFile(real, relative, stat.size).text);
        } catch {
          // Deleted, unreadable or no longer a regular file between stat and read: the next event says which.
        }
      }
    });
  }
}
