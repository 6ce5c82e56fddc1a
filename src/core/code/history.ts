// What a workspace's git history says about its files, for ranking: how often and how recently
// each changed, and which changed together. Pure: the commits come from an adapter
// (src/adapters/code/git-history.ts) that reads a bounded number of them.

/** One commit: the files it changed (paths relative to the workspace), and when. */
export interface HistoryCommit {
  files: readonly string[];
  /** Commit time, seconds since the epoch. */
  time: number;
}

/** Recent commits, newest first. Empty when the workspace has no git history. */
export interface ChangeHistory {
  commits: readonly HistoryCommit[];
}

/** Commits changing more files than this are sweeping (formatting, renames, releases): they say nothing of which files belong together. */
export const SWEEPING_COMMIT_FILES = 30;
/** The window "recently changed" looks at, in commits. */
export const RECENT_COMMITS = 100;

export interface FileChangeStats {
  /** Commits among the last RECENT_COMMITS that changed the file. */
  recentChanges: number;
  /** exp(-k / RECENT_COMMITS) for the newest commit k (0 = newest) that changed it; 0 if none did. */
  recency: number;
  /** Commits (not sweeping) that changed it, over the whole history read. */
  changes: number;
}

/**
 * Per-file change statistics over `history`.
 *
 * @example
 * changeStats({ commits: [{ files: ['a.ts'], time: 0 }] }).get('a.ts') // { recentChanges: 1, recency: 1, changes: 1 }
 */
export function changeStats(history: ChangeHistory): Map<string, FileChangeStats> {
  const stats = new Map<string, FileChangeStats>();
  history.commits.forEach((commit, k) => {
    const sweeping = commit.files.length > SWEEPING_COMMIT_FILES;
    for (const file of commit.files) {
      let entry = stats.get(file);
      if (!entry) stats.set(file, (entry = { recentChanges: 0, recency: Math.exp(-k / RECENT_COMMITS), changes: 0 }));
      if (k < RECENT_COMMITS) entry.recentChanges++;
      if (!sweeping) entry.changes++;
    }
  });
  return stats;
}

/**
 * For each seed file, the files that changed in the same commits (sweeping commits left out),
 * with how many commits they shared: `coChanges(history, ['a.ts']).get('a.ts')?.get('b.ts')`.
 *
 * @example
 * coChanges({ commits: [{ files: ['a.ts', 'b.ts'], time: 0 }] }, ['a.ts']).get('a.ts') // Map { 'b.ts' => 1 }
 */
export function coChanges(history: ChangeHistory, seeds: Iterable<string>): Map<string, Map<string, number>> {
  const result = new Map<string, Map<string, number>>();
  for (const seed of seeds) result.set(seed, new Map());
  for (const commit of history.commits) {
    if (commit.files.length > SWEEPING_COMMIT_FILES) continue;
    for (const file of commit.files) {
      const partners = result.get(file);
      if (!partners) continue;
      for (const other of commit.files) if (other !== file) partners.set(other, (partners.get(other) ?? 0) + 1);
    }
  }
  return result;
}
