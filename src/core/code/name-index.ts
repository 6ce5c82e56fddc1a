// The distinct names defined in a workspace, in memory, for Ctrl+T: a fuzzy query scans names
// (far fewer than definitions, and no database pages), and only the best names' definitions are
// read from the index. Kept current by counts: a file's new content adds its names, its old
// content removes them.
import { fuzzyQuery, fuzzyScore, TopK, type Ranked } from '../../matching/fuzzy.ts';

interface Entry {
  name: string;
  folded: string;
  count: number;
}

/**
 * Distinct names with how many definitions carry each.
 *
 * @example
 *   const names = new NameIndex();
 *   names.add(['parseConfig', 'Server']);
 *   names.search('pcfg', 10); // [{ item: 'parseConfig', score: …, positions: […] }]
 */
export class NameIndex {
  private readonly slots = new Map<string, number>();
  private readonly entries: (Entry | undefined)[] = [];
  private readonly free: number[] = [];

  /** Distinct names held. */
  get size(): number {
    return this.slots.size;
  }

  /** Counts one definition more for each name (a name twice counts twice). */
  add(names: Iterable<string>): void {
    for (const name of names) {
      const slot = this.slots.get(name);
      if (slot !== undefined) {
        this.entries[slot]!.count++;
        continue;
      }
      const entry = { name, folded: name.toLowerCase(), count: 1 };
      const at = this.free.pop() ?? this.entries.length;
      this.entries[at] = entry;
      this.slots.set(name, at);
    }
  }

  /** Counts one definition less for each name; a name no definition carries is dropped. */
  remove(names: Iterable<string>): void {
    for (const name of names) {
      const slot = this.slots.get(name);
      if (slot === undefined) continue;
      const entry = this.entries[slot]!;
      if (--entry.count > 0) continue;
      this.entries[slot] = undefined;
      this.slots.delete(name);
      this.free.push(slot);
    }
  }

  /** The best `limit` names for a fuzzy query (fuzzy.ts), best first. */
  search(query: string, limit: number): Ranked<string>[] {
    const prepared = fuzzyQuery(query);
    const kept = new TopK<string>(limit, (name) => name);
    for (const entry of this.entries) {
      if (!entry) continue;
      const match = fuzzyScore(prepared, entry.name, prepared.caseSensitive ? entry.name : entry.folded);
      if (match) kept.offer({ item: entry.name, ...match });
    }
    return kept.sorted();
  }
}
