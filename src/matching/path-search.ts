// Quick open's search (Ctrl+P) over a workspace's paths: fuzzy, best first, fast enough for
// every key on 50,000 files. Three things keep a key's cost low:
// - The paths are scanned in the picker's own tie order (shorter first, then code-point
//   order): once the best `limit` all have the highest score a path can have for the query,
//   every later path could only tie and lose, so it is not scored.
// - Each path carries a mask of the characters in it: a path lacking one of the query's is
//   passed over without looking at its text (no match, and no scoring, for most paths once a
//   query has a rare letter).
// - The last query's matches (all of them, not only the best) are kept: a query that extends
//   it — one more key — can only match among them.
import { fuzzyMayMatch, fuzzyPathBound, fuzzyPathScore, fuzzyQuery, TopK, type Ranked } from './fuzzy.ts';

/** A path with what the scan needs of it. */
interface Entry<T> {
  item: T;
  folded: string;
  mask: number;
}

/**
 * Fuzzy search over a list of paths (`T` carries a `path` and whatever the caller wants back).
 *
 * @example
 *   const search = new PathSearch([{ path: 'src/web/editor/workbench.ts' }, { path: 'README.md' }]);
 *   search.find('wbench', 50); // → [{ item: { path: 'src/web/editor/workbench.ts' }, score, positions }]
 */
export class PathSearch<T extends { readonly path: string }> {
  /** The entries in the picker's tie order: shorter paths first, then code-point order. */
  private readonly ranked: Entry<T>[];
  /** The last query and every entry it matched, in `ranked` order. */
  private last: { query: string; matched: Entry<T>[] } | undefined;
  private byPath: Map<string, T> | undefined;

  /** `items`: the paths, in the order an empty query lists them. */
  constructor(readonly items: readonly T[]) {
    this.ranked = items
      .map((item) => {
        const folded = item.path.toLowerCase();
        return { item, folded, mask: charMask(folded) };
      })
      .sort((a, b) => a.item.path.length - b.item.path.length || (a.item.path < b.item.path ? -1 : a.item.path > b.item.path ? 1 : 0));
  }

  /** The item of `path`, if listed. */
  get(path: string): T | undefined {
    this.byPath ??= new Map(this.items.map((item) => [item.path, item]));
    return this.byPath.get(path);
  }

  /** The best `limit` paths for `query`, best first (an empty query: the first `limit` items). */
  find(query: string, limit: number): Ranked<T>[] {
    if (query.trim() === '') return this.items.slice(0, limit).map((item) => ({ item, score: 0, positions: [] }));
    const prepared = fuzzyQuery(query);
    const wanted = charMask(prepared.terms.join('').toLowerCase());
    const kept = new TopK<Entry<T>>(limit, (entry) => entry.item.path);
    // What matches `query` matches every query it extends: its characters in order (a space
    // adds a term, each term matched alone), and case-insensitively when it is matched with
    // case (a capital letter makes a query case-sensitive).
    const candidates = this.last && query.startsWith(this.last.query) ? this.last.matched : this.ranked;
    const matched: Entry<T>[] = [];
    const bound = fuzzyPathBound(prepared);
    // Past the first entry that could only tie the best kept and lose, so can every later one
    // (they come after it in the tie order): they are only tested for a match, for the next key.
    let full = false;
    for (const entry of candidates) {
      if ((entry.mask & wanted) !== wanted) continue;
      const folded = prepared.caseSensitive ? entry.item.path : entry.folded;
      if (full || !kept.wouldKeep(bound, entry)) {
        full = true;
        if (fuzzyMayMatch(prepared, folded)) matched.push(entry);
        continue;
      }
      const match = fuzzyPathScore(prepared, entry.item.path, folded);
      if (!match) continue;
      matched.push(entry);
      kept.offer({ item: entry, ...match });
    }
    this.last = { query, matched };
    return kept.sorted().map(({ item, score, positions }) => ({ item: item.item, score, positions }));
  }
}

/**
 * The characters in `folded` (lower-cased) as bits: a–z one each, digits one, the rest five
 * by their code. A path whose mask lacks a bit of the query's cannot match it.
 */
function charMask(folded: string): number {
  let mask = 0;
  for (let i = 0; i < folded.length; i++) {
    const code = folded.charCodeAt(i);
    if (code >= 97 && code <= 122) mask |= 1 << (code - 97);
    else if (code >= 48 && code <= 57) mask |= 1 << 26;
    else mask |= 1 << (27 + (code % 5));
  }
  return mask;
}
