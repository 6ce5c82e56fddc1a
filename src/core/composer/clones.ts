// What a composer session needs of git: the server's clone of a registered workspace, fetched,
// and a worktree on a new branch for the session to edit, committed, pushed and released. Git
// runs in src/adapters/git/clones.ts (GitWorkspaceClones), which compose gives the runner.
import type { ComposerWorkspace } from './types.ts';

/** A session's worktree: a new branch from the workspace's base, checked out in `path`. */
export interface Worktree {
  path: string;
  branch: string;
  /** The commit it started from. */
  base: string;
}

/**
 * The clones of registered workspaces, and the worktrees sessions edit.
 *
 * @example
 * const tree = await clones.checkout(workspace, 'loom/composer/3f2a…', signal);
 * // … edit tree.path …
 * const commit = await clones.commit(workspace, tree, 'Composer session 3f2a…');
 * if (workspace.push) await clones.push(workspace, tree.branch);
 * await clones.release(workspace, tree);
 */
export interface WorkspaceClones {
  /**
   * Fetches the workspace's origin into its clone (made on first use) and checks out `branch`
   * in a new worktree, from the workspace's base, or from the commit `from` (a follow-up's:
   * the commit the session first started from).
   */
  checkout(workspace: ComposerWorkspace, branch: string, signal?: AbortSignal, from?: string): Promise<Worktree>;
  /** Commits everything in the worktree; null when nothing changed. */
  commit(workspace: ComposerWorkspace, tree: Worktree, message: string): Promise<string | null>;
  /** Pushes `branch` to the origin under the same name, replacing the session's earlier push. */
  push(workspace: ComposerWorkspace, branch: string, signal?: AbortSignal): Promise<void>;
  /** Removes a session's worktree (its branch and commit stay in the clone). */
  release(workspace: ComposerWorkspace, tree: Worktree): Promise<void>;
}
