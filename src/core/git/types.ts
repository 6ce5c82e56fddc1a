// The JSON the local API's git routes answer with. Every shape here is plain data (strings,
// numbers, booleans, null, arrays) so a route can send it as is.

/**
 * The state of one side of a file, as `git status` letters:
 * `M` modified, `T` type changed (file ↔ symlink), `A` added, `D` deleted, `R` renamed,
 * `C` copied, `U` unmerged (both sides changed it in a merge), `?` untracked, `' '` unchanged.
 * In a conflicted entry the two letters say what each side did (`UU` both modified, `AA` both
 * added, `DU` deleted by us, `UD` deleted by them, `AU`, `UA`, `DD`).
 */
export type GitFileState = 'M' | 'T' | 'A' | 'D' | 'R' | 'C' | 'U' | '?' | ' ';

/** One changed, untracked or conflicted file. */
export interface GitFileStatus {
  /** Path relative to the workspace root, forward slashes, never quoted. */
  path: string;
  /** What the index (the staging area) holds compared with HEAD. */
  index: GitFileState;
  /** What the working tree holds compared with the index. */
  workingTree: GitFileState;
  /** The index differs from HEAD for this file (it is staged, fully or partly). */
  staged: boolean;
  /** The file has unresolved merge conflicts. */
  conflicted: boolean;
  /** For a rename or copy (`R`, `C`): the path it came from. */
  originalPath?: string;
}

/**
 * `GET /api/git/status`.
 *
 * Only files inside the workspace folder are listed (when the workspace is a subfolder of a
 * larger repository, the rest of the repository is not shown). Untracked files are listed one
 * by one, ignored files not at all.
 */
export interface GitStatus {
  /** The checked-out branch; null when HEAD is detached. Set in an empty repository too. */
  branch: string | null;
  detached: boolean;
  /** The commit HEAD points at; null in a repository with no commit yet. */
  head: string | null;
  /** The branch's upstream, e.g. `origin/main`; null when none is set. */
  upstream: string | null;
  /** Commits on the branch not on its upstream (0 without an upstream). */
  ahead: number;
  /** Commits on the upstream not on the branch (as of the last fetch; 0 without an upstream). */
  behind: number;
  /** A merge stopped on conflicts and waits for a commit (or an abort). */
  merging: boolean;
  files: GitFileStatus[];
  /** No changed, untracked or conflicted file. */
  clean: boolean;
}

export interface GitBranch {
  /** Short name, e.g. `main` or `feature/x`. */
  name: string;
  current: boolean;
  /** Its upstream, e.g. `origin/main`; null when none is set. */
  upstream: string | null;
  /** The commit it points at. */
  head: string;
}

export interface GitRemoteBranch {
  /** `<remote>/<branch>`, e.g. `origin/main`. */
  name: string;
  /** The remote it belongs to, e.g. `origin`. */
  remote: string;
  /** The commit it pointed at when last fetched. */
  head: string;
}

/** `GET /api/git/branches`. Sorted by name. `origin/HEAD` style aliases are left out. */
export interface GitBranches {
  /**
   * The checked-out branch; null when HEAD is detached. In a repository with no commit yet it
   * is the branch the first commit will create, and that branch is not in `branches` yet.
   */
  current: string | null;
  branches: GitBranch[];
  remotes: GitRemoteBranch[];
}

/** The body of `POST /api/git/commit`. */
export interface GitCommitInput {
  /** Required; not blank; at most 10,000 characters. Kept as written (lines starting with `#` too). */
  message: string;
  /**
   * Paths (relative to the workspace root, or absolute inside it) to commit; only these are
   * committed, whatever else is staged. Omitted: every change in the workspace, untracked
   * files included (`git add -A`). A folder stands for everything under it.
   */
  files?: string[];
}

/**
 * `POST /api/git/commit`, 200. The same object is the payload of the `git:commit` event.
 */
export interface GitCommitResult {
  /** The new commit's sha. */
  commit: string;
  /** The branch it was made on; null when HEAD was detached. */
  branch: string | null;
  /** The first line of the message. */
  summary: string;
  /** Paths (relative to the workspace root) the commit changed, added or deleted; for a merge, against its first parent. */
  files: string[];
  /** The commit concluded a merge (it has two parents). */
  merge: boolean;
}

/** The body of `POST /api/git/push` and `POST /api/git/pull`. */
export interface GitSyncInput {
  /** A configured remote's name. Default: the branch's upstream remote, else `origin`. */
  remote?: string;
  /**
   * Push: the local branch to push (default: the current one), to the branch of the same name
   * on the remote, or to its upstream branch when it tracks one on that remote.
   * Pull: the remote branch to merge into the current branch (default: the upstream branch
   * when pulling from the upstream remote, else the current branch's name).
   */
  branch?: string;
}

/** `POST /api/git/push`, 200. */
export interface GitPushResult {
  remote: string;
  /** The local branch pushed. */
  branch: string;
  /** The branch it was pushed to on the remote. */
  remoteBranch: string;
  /** The commit pushed. */
  head: string;
  /** False when the remote already had it. */
  updated: boolean;
  /** The branch had no upstream; this push set it (`git push -u`). */
  upstreamSet: boolean;
  /** One human line, e.g. `Pushed main to origin/main (1a2b3c4..5d6e7f8).` */
  summary: string;
}

/** `POST /api/git/pull`, 200. */
export interface GitPullResult {
  remote: string;
  /** The remote branch merged. */
  branch: string;
  /** HEAD after the pull. */
  head: string;
  /** HEAD before the pull; null in a repository that had no commit. */
  previousHead: string | null;
  /** False when already up to date. */
  updated: boolean;
  /** A merge commit was made (the branches had diverged); false for a fast-forward. */
  merged: boolean;
  /** How many commits the branch gained (merge commit included). */
  commits: number;
  /** One human line, e.g. `Fast-forwarded main to origin/main: 3 new commits.` */
  summary: string;
}
