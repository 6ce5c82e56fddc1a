// The code index of a workspace, built from the settings: the index (its SQLite file in the data
// dir, its parser threads), and, in a server, what keeps it current (the folder watcher and the
// editor's documents) and tells of its builds (`index:progress` on the event bus). The CLI's
// `loom code …` and `loom serve` share it.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CodeIndex } from '../adapters/code/code-index.ts';
import { LiveIndex, type ChangeSource, type DocumentSource, type LiveOptions } from '../adapters/code/live.ts';
import type { IndexProgress } from '../core/code/model.ts';
import { CrossFileContext } from '../core/completion/cross-file.ts';
import { IndexScope } from '../core/completion/builtin/scope.ts';
import type { CodeIndexSettings, CodeIntel } from '../core/code/service.ts';
import type { EventBus } from '../core/events/bus.ts';

export interface CodeIntelOptions {
  /** The workspace folder (its real path is what the index keys on). */
  workspace: string;
  /** Loom's data dir: code-index.db is kept there. */
  dataDir: string;
  settings: CodeIndexSettings;
  /** Where `index:progress` events go. */
  events?: EventBus;
  /** The server's folder watcher: changes on disk are indexed as they happen. */
  watcher?: ChangeSource;
  /** The editor's documents: the window's view sees their unsaved text. */
  documents?: DocumentSource;
  live?: Pick<LiveOptions, 'quietMs' | 'maxWaitMs' | 'editorQuietMs' | 'onUpdate'>;
  /** Told of the data dir or database file found open to other users. */
  warn?: (message: string) => void;
  /**
   * A command the user waits for (`loom code index`): every core parses. A server leaves one
   * core to answer requests (the default).
   */
  foreground?: boolean;
}

/** A workspace's code index and what keeps it current. */
export interface CodeIntelStack {
  index: CodeIndex;
  /**
   * Starts following the watcher and the documents (when given) and builds the index in the
   * background; the build's promise is returned (a failure is in status() too).
   */
  start(): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Opens the code index of `workspace` in `dataDir`.
 *
 * @example
 *   const code = openCodeIntel({ workspace: '/work/app', dataDir, settings: config.codeIndex, events: bus, watcher, documents });
 *   void code.start();
 *   await code.index.findFiles('appts');
 *   await code.close();
 */
export function openCodeIntel(options: CodeIntelOptions): CodeIntelStack {
  const index = CodeIndex.open({
    root: fs.realpathSync.native(options.workspace),
    dataDir: options.dataDir,
    maxFileBytes: options.settings.maxFileBytes,
    maxFiles: options.settings.maxFiles,
    dependencies: options.settings.dependencies,
    workers: options.settings.workers > 0 ? options.settings.workers : options.foreground ? foregroundPoolSize() : undefined,
    warn: options.warn,
  });
  const events = options.events;
  const stopProgress = events
    ? index.onProgress((progress: IndexProgress) => void events.emit('index:progress', { ...progress }).catch(() => undefined))
    : () => {};
  const live =
    options.watcher || options.documents ? new LiveIndex(index, { watcher: options.watcher, documents: options.documents }, options.live) : undefined;
  return {
    index,
    start() {
      live?.start();
      return index.refresh().catch((error: unknown) => error);
    },
    async close() {
      live?.close();
      stopProgress();
      await index.close();
    },
  };
}

/** Threads for a build the user waits for: one per core, at most eight. */
function foregroundPoolSize(): number {
  return Math.max(1, Math.min(8, os.availableParallelism()));
}

/**
 * What opens a composer session's code index (core/composer/runner.ts): one index database per
 * workspace in `<folder>/code-index/<hash of its name>/` (one for every session on attachments),
 * so that each session of a workspace reuses the content earlier ones parsed (the index keys it
 * by its hash) and only its new files are parsed. Bounded: the configured file and size limits,
 * one parsing thread (a session runs beside requests and other sessions).
 *
 * @example
 * const runner = new ComposerRunner({ …, codeIndex: sessionCodeIndexes(path.join(dataDir, 'composer'), config.codeIndex) });
 */
export function sessionCodeIndexes(folder: string, settings: CodeIndexSettings): (cacheKey: string, copy: string) => CodeIntelStack {
  return (cacheKey, copy) => {
    const id = createHash('sha256').update(cacheKey).digest('hex').slice(0, 24);
    const index = CodeIndex.open({
      root: fs.realpathSync.native(copy),
      dataDir: path.join(folder, 'code-index', id),
      maxFileBytes: settings.maxFileBytes,
      maxFiles: settings.maxFiles,
      dependencies: settings.dependencies,
      workers: 1,
    });
    return { index, start: () => index.refresh().catch((error: unknown) => error), close: () => index.close() };
  };
}

/**
 * Completion's cross-file context over a workspace's code index: a request's `filePath`, relative
 * to the workspace or absolute inside it, names the file whose imports and own definitions count.
 *
 * @example
 *   const crossFile = crossFileContext(code.index);
 *   createCompletionEngine({ builtin, catalog, modelsDir, crossFile }, () => config.completion);
 */
export function crossFileContext(index: CodeIntel): CrossFileContext {
  return new CrossFileContext(index, { relativePath: workspaceRelative(index) });
}

/**
 * The builtin model's names in scope over a workspace's code index (src/core/completion/builtin/
 * scope.ts): a request's `filePath` names the file whose definitions and imports count.
 *
 * @example
 *   const builtin = new BuiltinProvider(model, config.codeIndex.background ? builtinScope(code.index) : undefined);
 */
export function builtinScope(index: CodeIntel): IndexScope {
  return new IndexScope(index, { relativePath: workspaceRelative(index) });
}

/** A request's filePath, relative to the workspace or absolute inside it, as a workspace-relative path. */
function workspaceRelative(index: CodeIntel): (filePath: string) => string | undefined {
  return (filePath) => {
    const relative = path.isAbsolute(filePath) ? path.relative(index.root, filePath) : path.normalize(filePath);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    return relative.split(path.sep).join('/');
  };
}
