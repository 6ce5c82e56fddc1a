// Searching many files line by line without holding the process. Matching one line is linear
// in its length (text-query.ts), but a search over 20,000 files is long work on the one
// thread that also answers every request: it gives the event loop its turn between files and
// whenever it has run for a slice of time, and stops when its signal aborts (a cancel, the
// task's time budget), so that /api/health answers, and a cancel or a time budget takes
// effect, while it runs.
import type { TextQuery } from './text-query.ts';

/** How long the search runs before it gives the event loop its turn within a file. */
const SLICE_MS = 10;

export interface LineMatch {
  /** As the caller named it. */
  file: string;
  /** 1-based. */
  line: number;
  /** The line, without its line ending. */
  text: string;
}

export interface LineSearchOptions {
  /** Stop at this many matches; `more` says whether there were others. */
  maxMatches: number;
  /** Aborting it stops the search: it rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface LineSearchResult {
  matches: LineMatch[];
  /** Whether matches were left after maxMatches. */
  more: boolean;
  /** Lines not searched for being longer than the query's maxLineChars. */
  longLines: number;
}

/**
 * The lines of `files` that `query` finds, file by file in the order given, at most
 * `maxMatches` of them. `read` gives a file's text, or null for a file not to search (binary,
 * too large, gone). Rejects with the signal's reason when it aborts.
 *
 * @example
 * const query = compileTextQuery({ query: 'TODO', maxLineChars: 4000 });
 * const { matches, more } = await searchLines(['src/a.ts'], (file) => fs.readFileSync(file, 'utf8'), query, { maxMatches: 100, signal });
 * // matches: [{ file: 'src/a.ts', line: 3, text: '// TODO: remove' }]
 */
export async function searchLines(
  files: Iterable<string>,
  read: (file: string) => string | null,
  query: TextQuery,
  options: LineSearchOptions,
): Promise<LineSearchResult> {
  const matches: LineMatch[] = [];
  let longLines = 0;
  let sliceStart = performance.now();
  const pause = async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    options.signal?.throwIfAborted();
    sliceStart = performance.now();
  };
  for (const file of files) {
    await pause();
    const text = read(file);
    if (text === null) continue;
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i]!;
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.length > query.maxLineChars) longLines++;
      else if (query.test(line)) {
        if (matches.length >= options.maxMatches) return { matches, more: true, longLines };
        matches.push({ file, line: i + 1, text: line });
      }
      if (performance.now() - sliceStart >= SLICE_MS) await pause();
    }
  }
  return { matches, more: false, longLines };
}
