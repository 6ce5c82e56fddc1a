// Git for a workspace folder, as the local API calls it: the git command run by the adapter
// (src/adapters/git/git.ts) behind the GitWorkspace core declares.
import { GitCliWorkspace } from '../adapters/git/git.ts';
import type { GitWorkspace, GitWorkspaceOptions } from '../core/git/workspace.ts';

/**
 * Git over the workspace folder `options.root`.
 *
 * @example
 * const git = createGitWorkspace({ root: workspace, loomFolders: loomFolders(config) });
 * await git.status();
 */
export function createGitWorkspace(options: GitWorkspaceOptions): GitWorkspace {
  return new GitCliWorkspace(options);
}
