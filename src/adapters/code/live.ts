// Keeping a workspace's index current while Loom runs: the folder watcher's changes (another
// program's writes, Loom's own saves, a checkout) are gathered until the disk is quiet for
// DISK_QUIET_MS (at most DISK_MAX_WAIT_MS after the first) and then indexed; the editor's
// documents with unsaved edits are parsed EDITOR_QUIET_MS after the last keystroke, for the
// window's view only (agents and the CLI see the files as saved).
import path from 'node:path';
import { isAtomicWriteTemp } from '../../core/files/write-atomically.ts';
import { protectedName } from '../../core/workspace/protected.ts';
import type { CodeIndex } from './code-index.ts';

/** Quiet time on disk that ends a burst of changes. */
export const DISK_QUIET_MS = 150;
/** Longest a change on disk waits, however long the burst. */
export const DISK_MAX_WAIT_MS = 1000;
/** Quiet time in a document (no keystroke) before its unsaved text is parsed. */
export const EDITOR_QUIET_MS = 300;

/** What the watcher offers (src/core/workspace/folder-watcher.ts). */
export interface ChangeSource {
  readonly root: string;
  onChange(listener: (absolute: string) => void): () => void;
  start(): void;
}

/** What the editor's documents offer (src/core/workspace/documents.ts). */
export interface DocumentSource {
  onChange(listener: (path: string, text: () => string) => void): () => void;
  openState(path: string): { dirty: boolean } | undefined;
}

/** A burst indexed: its paths, when the debounce let it go, when it was searchable. */
export interface LiveUpdate {
  paths: string[];
  releasedAt: number;
  doneAt: number;
}

export interface LiveOptions {
  quietMs?: number;
  maxWaitMs?: number;
  editorQuietMs?: number;
  /** Told of each burst indexed (benchmarks measure from releasedAt to doneAt). */
  onUpdate?: (update: LiveUpdate) => void;
}

/**
 * Follows a watcher and the documents for an index until close().
 *
 * @example
 *   const live = new LiveIndex(index, { watcher, documents });
 *   live.start();
 *   // a file saved → indexed DISK_QUIET_MS later
 *   live.close();
 */
export class LiveIndex {
  private readonly pending = new Set<string>();
  private quietTimer: NodeJS.Timeout | undefined;
  private waitTimer: NodeJS.Timeout | undefined;
  private readonly editorTimers = new Map<string, NodeJS.Timeout>();
  private readonly stops: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly index: CodeIndex,
    private readonly sources: { watcher?: ChangeSource; documents?: DocumentSource },
    private readonly options: LiveOptions = {},
  ) {}

  start(): void {
    const { watcher, documents } = this.sources;
    if (watcher) {
      this.stops.push(watcher.onChange((absolute) => this.heard(watcher.root, absolute)));
      watcher.start();
    }
    if (documents) {
      this.index.trackUnsaved((changed) => documents.openState(changed)?.dirty === true);
      this.stops.push(documents.onChange((changed, text) => this.edited(documents, changed, text)));
    }
  }

  close(): void {
    this.closed = true;
    for (const stop of this.stops.splice(0)) stop();
    clearTimeout(this.quietTimer);
    clearTimeout(this.waitTimer);
    for (const timer of this.editorTimers.values()) clearTimeout(timer);
    this.editorTimers.clear();
    this.pending.clear();
  }

  private heard(root: string, absolute: string): void {
    const relative = path.relative(root, absolute).split(path.sep).join('/');
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return;
    if (isAtomicWriteTemp(path.basename(absolute)) || relative.split('/').some((name) => protectedName(name) !== undefined)) return;
    this.pending.add(relative);
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.release(), this.options.quietMs ?? DISK_QUIET_MS);
    this.quietTimer.unref();
    if (!this.waitTimer) {
      this.waitTimer = setTimeout(() => this.release(), this.options.maxWaitMs ?? DISK_MAX_WAIT_MS);
      this.waitTimer.unref();
    }
  }

  private release(): void {
    clearTimeout(this.quietTimer);
    clearTimeout(this.waitTimer);
    this.quietTimer = this.waitTimer = undefined;
    if (this.closed || this.pending.size === 0) return;
    const paths = [...this.pending].sort();
    this.pending.clear();
    const releasedAt = performance.now();
    void this.index.update(paths).then(
      () => this.options.onUpdate?.({ paths, releasedAt, doneAt: performance.now() }),
      () => undefined,
    );
  }

  private edited(documents: DocumentSource, changed: string, text: () => string): void {
    clearTimeout(this.editorTimers.get(changed));
    const timer = setTimeout(() => {
      this.editorTimers.delete(changed);
      if (this.closed) return;
      let dirty = false;
      try {
        dirty = documents.openState(changed)?.dirty ?? false;
      } catch {
        dirty = false; // closed, or gone
      }
      void this.index.setUnsaved(changed, dirty ? text() : undefined);
    }, this.options.editorQuietMs ?? EDITOR_QUIET_MS);
    timer.unref();
    this.editorTimers.set(changed, timer);
  }
}
