// Building and updating a workspace's index: the walk streams files; each is looked at by its
// stat first (unchanged: nothing read), then read and keyed by content (already in the cache:
// nothing parsed), and only new content goes to the parser pool. Reads, parses and writes
// overlap, with a bounded number of files and bytes in flight, and results are written in
// batches (one transaction each), so memory stays flat whatever the size of the workspace.
import fs from 'node:fs';
import path from 'node:path';
import { ignoresPath, type IgnoreFile } from '../../core/code/gitignore.ts';
import { languageOf } from '../../core/code/languages.ts';
import { DEPENDENCY_FOLDERS, LIMITS, type BuildSummary, type IndexedLanguage, type IndexProgress, type SkipReason } from '../../core/code/model.ts';
import { isInside } from '../../core/workspace/paths.ts';
import { protectedName } from '../../core/workspace/protected.ts';
import { keyFile, type KeyedFile } from './content-key.ts';
import type { IndexedContent } from './index-content.ts';
import type { FileRow, IndexDatabase } from './index-db.ts';
import { ParseFailure, type ParserPool } from './parser-pool.ts';
import { ignoreFilesOf, walkWorkspace, type WalkedFile } from './walk.ts';

/** What the index takes in (the `codeIndex.*` settings). */
export interface IndexerOptions {
  maxFileBytes: number;
  maxFiles: number;
  /** Index dependency folders (node_modules, vendor, .venv…) too. */
  dependencies: boolean;
}

/** Told, inside the transaction that makes it, that a file's content key changed (null: none). */
export type ContentChange = (before: Buffer | null, after: Buffer | null) => void;

/** Files being read or parsed at once, per parsing thread. */
const FILES_IN_FLIGHT_PER_THREAD = 4;
/** Bytes being read or parsed at once, at most. */
const BYTES_IN_FLIGHT = 8 * 1024 * 1024;
/** Results written per transaction. */
const BATCH_FILES = 32;
/** Unchanged files marked seen per transaction. */
const SEEN_BATCH = 2000;
/** A progress report at most this often. */
const PROGRESS_EVERY_MS = 250;

/** One file's result, waiting to be written. */
interface Result {
  row: FileRow;
  content?: IndexedContent;
}

/** Counts of one build or update. */
interface Tally {
  parsed: number;
  reused: number;
  unchanged: number;
  skipped: number;
  bytes: number;
}

/**
 * Brings one workspace's rows of the database up to date with its files.
 *
 * @example
 *   const indexer = new Indexer(db, db.workspace(root), root, pool, options);
 *   const summary = await indexer.build({ onProgress: (p) => console.log(p.done, '/', p.files) });
 */
export class Indexer {
  /** The .gitignore rules of folders, for updates that come one path at a time. */
  private readonly ignoreCache = new Map<string, IgnoreFile[]>();

  constructor(
    private readonly db: IndexDatabase,
    private readonly workspace: number,
    private readonly root: string,
    private readonly pool: ParserPool,
    private readonly options: IndexerOptions,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
    private readonly onContentChange: ContentChange = () => {},
  ) {}

  /**
   * Walks the whole workspace: new and changed files are indexed, files gone are removed,
   * content no file has pointed to for two weeks is dropped.
   */
  async build(options: { signal?: AbortSignal; onProgress?: (progress: IndexProgress) => void } = {}): Promise<BuildSummary> {
    const startedAt = Date.now();
    this.ignoreCache.clear();
    const generation = this.db.nextGeneration(this.workspace);
    this.pool.warm();
    const tally: Tally = { parsed: 0, reused: 0, unchanged: 0, skipped: 0, bytes: 0 };
    const progress: IndexProgress = { phase: 'walking', files: 0, done: 0, parsed: 0, skipped: 0, bytes: 0, walked: false, elapsedMs: 0 };
    let lastReport = 0;
    const report = (force = false) => {
      const now = Date.now();
      if (!force && now - lastReport < PROGRESS_EVERY_MS) return;
      lastReport = now;
      progress.parsed = tally.parsed;
      progress.skipped = tally.skipped;
      progress.bytes = tally.bytes;
      progress.elapsedMs = now - startedAt;
      options.onProgress?.({ ...progress });
    };
    report(true);
    const pipeline = new Pipeline(this, generation, tally, () => {
      progress.done++;
      report();
    });
    try {
      for await (const item of walkWorkspace(this.root, { maxFiles: this.options.maxFiles, dependencies: this.options.dependencies, signal: options.signal })) {
        if (item.kind === 'skip') {
          tally.skipped++;
          pipeline.skip(item.path, item.reason);
          continue;
        }
        progress.files++;
        if (progress.phase === 'walking') progress.phase = 'indexing';
        await pipeline.add(item);
        report();
      }
      progress.walked = true;
      report(true);
      await pipeline.finish();
    } catch (error) {
      await pipeline.finish().catch(() => undefined);
      throw error;
    }
    const now = this.now();
    const removed = this.db.transaction(() => this.db.sweep(this.workspace, generation, now));
    this.db.collectGarbage(now);
    progress.phase = 'done';
    report(true);
    return {
      startedAt: new Date(startedAt).toISOString(),
      durationMs: Date.now() - startedAt,
      files: progress.files,
      parsed: tally.parsed,
      reused: tally.reused,
      unchanged: tally.unchanged,
      removed,
      skipped: tally.skipped,
      bytes: tally.bytes,
    };
  }

  /**
   * Brings workspace-relative paths up to date (the watcher heard them change): a file is
   * indexed again, a folder walked, a path that is gone removed with what was below it.
   * Returns whether a .gitignore changed (the caller then walks everything again).
   */
  async update(paths: readonly string[]): Promise<{ rulesChanged: boolean }> {
    let rulesChanged = false;
    // Rows written here count as seen by the last walk; the next walk sweeps by its own.
    const generation = this.db.generation(this.workspace);
    const tally: Tally = { parsed: 0, reused: 0, unchanged: 0, skipped: 0, bytes: 0 };
    const pipeline = new Pipeline(this, generation, tally, () => undefined);
    try {
      for (const relative of new Set(paths)) {
        const segments = relative.split('/');
        if (segments.some((segment) => segment === '' || segment === '.' || segment === '..' || protectedName(segment) !== undefined)) continue;
        if (segments[segments.length - 1] === '.gitignore') {
          rulesChanged = true;
          continue;
        }
        if (!this.options.dependencies && segments.slice(0, -1).some((segment) => DEPENDENCY_FOLDERS.has(segment))) continue;
        if (segments.length - 1 > LIMITS.maxDepth) continue;
        const absolute = path.join(this.root, ...segments);
        const found = this.look(absolute);
        if (!found) {
          this.db.transaction(() => {
            for (const hash of this.db.removeFiles(this.workspace, relative, this.now())) this.onContentChange(hash, null);
          });
          continue;
        }
        const isDirectory = found.isDirectory();
        if (await this.ignored(relative, isDirectory)) continue;
        if (isDirectory) {
          if (!this.options.dependencies && DEPENDENCY_FOLDERS.has(segments[segments.length - 1]!)) continue;
          for await (const item of walkWorkspace(this.root, { maxFiles: this.options.maxFiles, dependencies: this.options.dependencies, start: relative })) {
            if (item.kind === 'skip') pipeline.skip(item.path, item.reason);
            else await pipeline.add(item);
          }
        } else if (found.isFile()) {
          await pipeline.add({ kind: 'file', path: relative, absolute, stat: found });
        }
      }
    } finally {
      await pipeline.finish();
    }
    return { rulesChanged };
  }

  /** The stat of a path that may be indexed (a link is followed inside the workspace only), or undefined. */
  private look(absolute: string): fs.Stats | undefined {
    try {
      const real = fs.realpathSync.native(absolute);
      if (!isInside(this.root, real)) return undefined;
      return fs.statSync(real);
    } catch {
      return undefined;
    }
  }

  private async ignored(relative: string, isDirectory: boolean): Promise<boolean> {
    const segments = relative.split('/');
    const folders = [''];
    for (let depth = 1; depth < segments.length; depth++) folders.push(segments.slice(0, depth).join('/'));
    for (const folder of folders) {
      if (!this.ignoreCache.has(folder)) this.ignoreCache.set(folder, await ignoreFilesOf(this.root, folder));
    }
    return ignoresPath(relative, isDirectory, (folder) => this.ignoreCache.get(folder) ?? []);
  }

  /** Forgets cached .gitignore rules (one changed). */
  forgetRules(): void {
    this.ignoreCache.clear();
  }

  /** @internal The pipeline's view of the indexer. */
  get context(): PipelineContext {
    return { db: this.db, workspace: this.workspace, pool: this.pool, options: this.options, now: this.now, onContentChange: this.onContentChange };
  }
}

interface PipelineContext {
  db: IndexDatabase;
  workspace: number;
  pool: ParserPool;
  options: IndexerOptions;
  now: () => number;
  onContentChange: ContentChange;
}

/** Files in flight between the walk and the database. */
class Pipeline {
  private readonly inFlight = new Set<Promise<void>>();
  private bytesInFlight = 0;
  private readonly results: Result[] = [];
  private readonly skips: { path: string; reason: SkipReason }[] = [];
  /** Files found unchanged, to mark seen by this walk. */
  private readonly seen: string[] = [];
  private readonly context: PipelineContext;
  private failure: unknown;

  constructor(
    indexer: Indexer,
    private readonly generation: number,
    private readonly tally: Tally,
    private readonly onDone: () => void,
  ) {
    this.context = indexer.context;
  }

  skip(entryPath: string, reason: SkipReason): void {
    this.skips.push({ path: entryPath, reason });
    if (this.skips.length >= BATCH_FILES) this.flush();
  }

  /** Takes a file; resolves once there is room for the next. */
  async add(file: WalkedFile): Promise<void> {
    if (this.failure) throw this.failure;
    const { db, workspace } = this.context;
    const row = db.file(workspace, file.path);
    // A row's content is never dropped while the row points to it (collectGarbage), so an
    // unchanged stat is enough.
    if (row && unchanged(row, file.stat)) {
      // Written with the next batch: one transaction for many, not one each.
      this.seen.push(file.path);
      if (this.seen.length >= SEEN_BATCH) this.flush();
      this.tally.unchanged++;
      this.onDone();
      return;
    }
    const limit = this.context.pool.size * FILES_IN_FLIGHT_PER_THREAD;
    while (this.inFlight.size >= limit || (this.inFlight.size > 0 && this.bytesInFlight + file.stat.size > BYTES_IN_FLIGHT)) {
      await Promise.race(this.inFlight);
      if (this.failure) throw this.failure;
    }
    const size = Math.min(file.stat.size, this.context.options.maxFileBytes);
    this.bytesInFlight += size;
    const work = this.index(file)
      .then((result) => {
        this.results.push(result);
        if (this.results.length >= BATCH_FILES) this.flush();
        this.onDone();
      })
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.bytesInFlight -= size;
        this.inFlight.delete(work);
      });
    this.inFlight.add(work);
  }

  /** Waits for the files in flight and writes what is left. */
  async finish(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.race(this.inFlight);
    this.flush();
    if (this.failure) throw this.failure;
  }

  private flush(): void {
    if (this.results.length === 0 && this.skips.length === 0 && this.seen.length === 0) return;
    const { db, workspace, now, onContentChange } = this.context;
    const results = this.results.splice(0);
    const skips = this.skips.splice(0);
    const seen = this.seen.splice(0);
    const time = now();
    db.transaction(() => {
      for (const { row, content } of results) {
        if (content && row.hash) db.putContent(row.hash, content, time);
        const before = db.putFile(workspace, row, this.generation, time) ?? null;
        if (!(before === null ? row.hash === null : row.hash !== null && before.equals(row.hash))) onContentChange(before, row.hash);
      }
      for (const skip of skips) db.putSkip(workspace, skip.path, skip.reason, this.generation);
      for (const filePath of seen) db.seen(workspace, filePath, this.generation);
    });
  }

  /** Keys one file and, when its content is new, has it parsed (the thread reads it again, from the page cache). */
  private async index(file: WalkedFile): Promise<Result> {
    const { db, pool, options } = this.context;
    const base: Omit<FileRow, 'language' | 'state'> = {
      path: file.path,
      size: file.stat.size,
      mtime: file.stat.mtimeMs,
      ctime: file.stat.ctimeMs,
      inode: file.stat.ino,
      hash: null,
      reason: null,
    };
    const skipped = (reason: SkipReason, language: IndexedLanguage = languageOf(file.path, '')): Result => {
      this.tally.skipped++;
      return { row: { ...base, language, state: 'skipped', reason } };
    };
    if (file.stat.size > options.maxFileBytes) return skipped('too-large');
    let keyed: KeyedFile;
    try {
      keyed = keyFile(file.absolute, file.path, options.maxFileBytes);
    } catch {
      return skipped('unreadable');
    }
    if (keyed.kind === 'not-regular' || keyed.kind === 'too-large') return skipped(keyed.kind);
    this.tally.bytes += keyed.size;
    if (keyed.kind === 'binary') return skipped('binary', keyed.language);
    const { language } = keyed;
    const known = db.contentState(keyed.key);
    if (known) {
      this.tally.reused++;
      if (known.state === 'skipped') this.tally.skipped++;
      return { row: { ...base, hash: keyed.key, language, state: known.state, reason: known.reason } };
    }
    let parsed: { content: IndexedContent; key: Buffer };
    try {
      parsed = await pool.parseFile(file.absolute, language, options.maxFileBytes);
    } catch (error) {
      if (!(error instanceof ParseFailure)) throw error;
      return skipped(error.reason, language);
    }
    const { content, key } = parsed;
    // Changed between the two reads into something the thread would not read.
    if (key.length === 0) return skipped(content.reason ?? 'unreadable', language);
    this.tally.parsed++;
    if (content.state === 'skipped') this.tally.skipped++;
    return { row: { ...base, hash: key, language, state: content.state, reason: content.reason ?? null }, content };
  }
}

/** Whether a file's stat is the one the index last saw (then its content is not read again). */
function unchanged(row: FileRow, stat: fs.Stats): boolean {
  return row.size === stat.size && row.mtime === stat.mtimeMs && row.ctime === stat.ctimeMs && row.inode === stat.ino;
}
