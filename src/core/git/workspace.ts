// Git for the local API as core sees it: the operations its routes call, their options, and
// the error of a merge stopped on conflicts. The git command runs in src/adapters/git
// (GitCliWorkspace, built by src/compose/git.ts); see its README for what each operation does.
import type { GitBranchResult, GitCreateBranchRequest, GitFileSide, GitFilesRequest, GitSwitchRequest } from '../../contracts/local-resources.ts';
import { LoomError } from '../errors.ts';
import type { LoomFolder } from '../workspace/paths.ts';
import type { GitBranches, GitCommitInput, GitCommitResult, GitPullResult, GitPushResult, GitStatus, GitSyncInput } from './types.ts';

export interface GitWorkspaceOptions {
  /** The workspace folder. It may be a repository's root or any folder inside one. */
  root: string;
  /** Time limit of each local git command (status, add, …). Default 30 s. */
  timeoutMs?: number;
  /** Time limit of commands that talk to a remote or run hooks (push, pull, commit). Default 120 s. */
  longTimeoutMs?: number;
  /**
   * The environment git starts from (default `process.env`): HOME, PATH, SSH_AUTH_SOCK and
   * the user's git configuration come from it. Loom always lays its own variables over it
   * (no prompts, no askpass, no editor, C locale) and drops those that would point git at
   * another repository (GIT_DIR, GIT_INDEX_FILE, …).
   */
  env?: NodeJS.ProcessEnv;
  /** The git executable. Default `git` (looked up on PATH). */
  gitPath?: string;
  /** Most bytes a git command may print before it is stopped. Default 32 MiB. */
  maxOutputBytes?: number;
  /**
   * Loom's own folders (config, data, models: config/folders.ts), real paths. Those inside the
   * workspace are left out of what status lists and what a commit stages, and a commit naming a
   * file in one is refused (protected_path): with the workspace a home folder that is a
   * repository, a commit of every change would otherwise commit settings.json and its token.
   */
  loomFolders?: readonly LoomFolder[];
}

/** A merge stopped on conflicts, or a commit was asked while files still have conflict markers. */
export class GitConflictError extends LoomError {
  constructor(
    message: string,
    /** The conflicted paths, relative to the workspace root. */
    readonly files: string[],
    hint?: string,
  ) {
    super('git_conflict', message, hint);
  }
}

/** Options of the commands that talk to a remote. */
export interface SyncOptions {
  /** Aborted when whoever asked has gone away: git is stopped and the call rejects with its reason. */
  signal?: AbortSignal;
  /** Each line of git's `--progress` output as it comes (progress.ts reads them). */
  onProgress?: (line: string) => void;
}

/**
 * Git over one workspace folder: each method resolves to the JSON its route answers with, or
 * throws a LoomError whose code is in src/contracts/errors.ts.
 *
 * @example
 * const git: GitWorkspace = createGitWorkspace({ root: '/path/to/workspace' });
 * await git.status(); // GitStatus
 * const made = await git.commit({ message: 'Fix', files: ['src/a.ts'] }); // → the git:commit event
 */
export interface GitWorkspace {
  /** `GET /api/git/status`. */
  status(): Promise<GitStatus>;
  /** `GET /api/git/branches`. */
  branches(): Promise<GitBranches>;
  /** `POST /api/git/commit`: every change in the workspace, or exactly `files`. */
  commit(input: GitCommitInput): Promise<GitCommitResult>;
  /** `POST /api/git/push`: never forced. */
  push(input?: GitSyncInput, options?: SyncOptions): Promise<GitPushResult>;
  /** `POST /api/git/pull`: a fast-forward or a merge commit; GitConflictError on conflicts, the merge left in progress. */
  pull(input?: GitSyncInput, options?: SyncOptions): Promise<GitPullResult>;
  /** Abandons a merge stopped on conflicts; `aborted` is false when there was none. */
  abortMerge(): Promise<{ aborted: boolean; head: string | null }>;
  /** `POST /api/git/stage`: the files, or every change; the status afterwards. */
  stage(input: GitFilesRequest | undefined): Promise<GitStatus>;
  /** `POST /api/git/unstage`: the index back to HEAD for the files, or every file; the status afterwards. */
  unstage(input: GitFilesRequest | undefined): Promise<GitStatus>;
  /** A file as HEAD holds it: the left side of `GET /api/git/diff`. */
  fileAtHead(file: string): Promise<{ path: string; originalPath: string | null; head: GitFileSide }>;
  /** `POST /api/git/branch`: makes a branch and switches to it. */
  createBranch(input: GitCreateBranchRequest): Promise<GitBranchResult>;
  /** `POST /api/git/switch`. */
  switchBranch(input: GitSwitchRequest): Promise<GitBranchResult>;
}
