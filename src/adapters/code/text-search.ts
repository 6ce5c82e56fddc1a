// Text search across the workspace's files (those the index lists, so .gitignore and the other
// rules of the walk hold), streamed: matching lines come out file by file as they are found,
// bounded in matches and in time, and stopped by an abort. Like ripgrep, binary files (a NUL in
// the first 8 KB) and files over the size limit are not searched.
import path from 'node:path';
import { looksBinary } from '../../core/code/content.ts';
import { pathFilter } from '../../core/code/path-filter.ts';
import type { TextSearchItem, TextSearchOptions } from '../../core/code/service.ts';
import { compileTextQuery, searchLines, type LineMatch } from '../../core/code/text-match.ts';
import { readRegularBytes, readRegularBytesSync } from '../../core/files/read-regular.ts';

export const TEXT_SEARCH_DEFAULTS = { maxMatches: 2000, maxMatchesPerFile: 200, timeoutMs: 10_000, maxFileBytes: 4 * 1024 * 1024 } as const;

/** Files up to this size are read at once (no round trip to libuv's threads). */
const SYNC_READ_BYTES = 256 * 1024;
/** The search gives the event loop a turn at least this often. */
const BREATHE_EVERY_MS = 20;
/** Reasons a listed file holds no text to search. */
const NOT_TEXT = new Set(['binary', 'not-regular', 'unreadable']);

/** Where the search finds files and their text. */
export interface TextSource {
  root: string;
  /** The workspace's files in path order, with the index's state and size. */
  files(): { path: string; size: number; reason: string | null }[];
  /** Unsaved text of a file, when the search's view counts it. */
  unsaved(path: string): Promise<string | undefined>;
}

/**
 * Compiles the query (throwing LoomError validation_error for a refused one, before anything
 * runs) and returns the search as an async iterable: matching lines, then one summary.
 *
 * @example
 *   for await (const item of searchWorkspaceText(source, { pattern: 'TODO', wholeWord: true })) console.log(item);
 */
export function searchWorkspaceText(source: TextSource, options: TextSearchOptions): AsyncIterable<TextSearchItem> {
  const matcher = compileTextQuery(options);
  const keep = pathFilter(options.include, options.exclude);
  const maxMatches = positive(options.maxMatches, TEXT_SEARCH_DEFAULTS.maxMatches);
  const maxPerFile = positive(options.maxMatchesPerFile, TEXT_SEARCH_DEFAULTS.maxMatchesPerFile);
  const timeoutMs = positive(options.timeoutMs, TEXT_SEARCH_DEFAULTS.timeoutMs);
  const maxFileBytes = positive(options.maxFileBytes, TEXT_SEARCH_DEFAULTS.maxFileBytes);
  // UTF-8 bytes compare as SQLite orders the paths (code points), which UTF-16 strings do not.
  const after = options.after !== undefined ? Buffer.from(options.after) : undefined;
  return {
    async *[Symbol.asyncIterator]() {
      const started = Date.now();
      const deadline = started + timeoutMs;
      let files = 0;
      let matches = 0;
      let skipped = 0;
      let truncated: 'matches' | 'time' | 'aborted' | undefined;
      let lastBreath = Date.now();
      const stop = () => {
        if (options.signal?.aborted) truncated ??= 'aborted';
        else if (Date.now() > deadline) truncated ??= 'time';
        return truncated !== undefined;
      };
      for (const file of source.files()) {
        if (stop()) break;
        if (after !== undefined && Buffer.compare(Buffer.from(file.path), after) <= 0) continue;
        if (!keep(file.path)) continue;
        let text = await source.unsaved(file.path);
        if (text === undefined) {
          if ((file.reason && NOT_TEXT.has(file.reason)) || file.size > maxFileBytes) {
            skipped++;
            continue;
          }
          let bytes: Buffer | undefined;
          const absolute = path.join(source.root, ...file.path.split('/'));
          try {
            // Small files (most) at once, from the page cache; large ones without blocking.
            bytes = file.size <= SYNC_READ_BYTES ? readRegularBytesSync(absolute, maxFileBytes) : await readRegularBytes(absolute, maxFileBytes);
          } catch {
            bytes = undefined;
          }
          // Reading at once must not keep the event loop from others for long.
          if (Date.now() - lastBreath > BREATHE_EVERY_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            lastBreath = Date.now();
          }
          if (!bytes || looksBinary(bytes)) {
            skipped++;
            continue;
          }
          text = bytes.toString('utf8');
        }
        files++;
        const found: LineMatch[] = [];
        searchLines(text, matcher, { maxPerFile: Math.min(maxPerFile, maxMatches - matches), stop }, (line) => {
          found.push(line);
          return true;
        });
        for (const line of found) {
          matches += line.matches.length;
          yield { type: 'match', path: file.path, ...line };
        }
        if (matches >= maxMatches) {
          truncated ??= 'matches';
          break;
        }
      }
      yield { type: 'end', files, matches, skipped, ...(truncated ? { truncated } : {}), elapsedMs: Date.now() - started };
    },
  };
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}
