// The server's clones of registered workspaces, in its data dir, and the worktree each
// session edits. The repository is untrusted code: git runs with hooks off (core.hooksPath to
// an empty folder), fsmonitor off, the ext:: transport never, and the file:// transport only
// for a workspace the operator registered by path; no submodule is ever fetched. Commands
// touching one clone run one at a time (git's ref locks would refuse two fetches at once).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runGit, type RunResult } from './run.ts';
import type { WorkspaceClones, Worktree } from '../../core/composer/clones.ts';
import type { ComposerWorkspace } from '../../core/composer/types.ts';

const SAFE_CONFIG = ['protocol.ext.allow=never', 'core.fsmonitor=', 'core.quotepath=off', 'submodule.recurse=false', 'fetch.recurseSubmodules=false'];
const LOCAL_TIMEOUT_MS = 60_000;
const NETWORK_TIMEOUT_MS = 300_000;

/**
 * Why sessions cannot start from the repository in `folder`, or undefined when they can: a
 * session's clone fetches its branches, so the folder must be a git repository whose HEAD has a
 * commit. Git runs there with the same safe settings as on a clone (no hooks, no fsmonitor).
 *
 * @example await checkLocalRepository('/home/ada/notes') // 'is not a git repository'
 */
export async function checkLocalRepository(folder: string, gitPath = 'git'): Promise<string | undefined> {
  const result = await runGit(
    ['-C', folder, ...SAFE_CONFIG.flatMap((setting) => ['-c', setting]), 'rev-parse', '--show-toplevel', '--end-of-options', 'HEAD^{commit}'],
    {
      gitPath,
      baseEnv: process.env,
      timeoutMs: LOCAL_TIMEOUT_MS,
      maxOutputBytes: 64 * 1024,
      env: { GIT_CONFIG_NOSYSTEM: '1' },
    },
  ).catch(() => undefined);
  if (!result) return 'cannot be read: git did not run';
  if (/not a git repository/i.test(result.stderr)) return 'is not a git repository';
  if (result.code !== 0) return 'has no commit yet';
  // A folder inside a repository is not one: its clone would fetch from the folder itself.
  const top = result.stdout.toString().split('\n')[0]!;
  return sameFolder(top, folder) ? undefined : 'is a folder inside a git repository, not the repository itself';
}

/** Whether two paths name one folder (git prints the real path). */
function sameFolder(a: string, b: string): boolean {
  try {
    return fs.realpathSync.native(a) === fs.realpathSync.native(b);
  } catch {
    return false;
  }
}
const MAX_OUTPUT = 32 * 1024 * 1024;

export interface ClonesOptions {
  /** Where clones (`repos/`), worktrees (`worktrees/`) and an empty hooks folder live. */
  folder: string;
  gitPath?: string;
  env?: NodeJS.ProcessEnv;
}

/** Whether a repository reference is a local path (or file:// URL) rather than a network URL. */
export function isLocalRepo(repo: string): boolean {
  return repo.startsWith('/') || repo.startsWith('file://') || /^[A-Za-z]:[\\/]/.test(repo);
}

/**
 * The clones of registered workspaces.
 *
 * @example
 * const clones = new GitWorkspaceClones({ folder: path.join(dataDir, 'composer') });
 * const tree = await clones.checkout(workspace, 'loom/composer/3f2a…', signal);
 * // … edit tree.path …
 * const commit = await clones.commit(workspace, tree, 'Composer session 3f2a…');
 * if (workspace.push) await clones.push(workspace, tree.branch);
 * await clones.release(workspace, tree);
 */
export class GitWorkspaceClones implements WorkspaceClones {
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly options: ClonesOptions) {}

  /** Fetches the workspace's origin into its clone (made on first use) and checks out `branch` from its base in a new worktree. */
  async checkout(workspace: ComposerWorkspace, branch: string, signal?: AbortSignal, from?: string): Promise<Worktree> {
    const clone = this.clonePath(workspace);
    return this.locked(clone, async () => {
      await this.ensureClone(workspace, clone, signal);
      await this.git(clone, workspace, ['fetch', '--prune', '--no-tags', 'origin', '+refs/heads/*:refs/remotes/origin/*'], { network: true, signal });
      let baseRef: string;
      if (from !== undefined) {
        // A commit the clone had (a session's base): only a full object name, never an option or a ref expression.
        if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(from)) throw new Error(`${JSON.stringify(from.slice(0, 80))} is not a commit id.`);
        baseRef = from;
      } else if (workspace.branch) baseRef = `refs/remotes/origin/${workspace.branch}`;
      else {
        await this.git(clone, workspace, ['remote', 'set-head', 'origin', '--auto'], { network: true, signal });
        baseRef = 'refs/remotes/origin/HEAD';
      }
      const base = (await this.git(clone, workspace, ['rev-parse', '--verify', '--end-of-options', `${baseRef}^{commit}`])).stdout.toString().trim();
      const worktree = path.join(this.options.folder, 'worktrees', branch.replace(/\//g, '-'));
      // A previous attempt (a runner that died) may have left its worktree: start again from the base.
      await this.git(clone, workspace, ['worktree', 'remove', '--force', worktree], { ok: [0, 128] });
      fs.rmSync(worktree, { recursive: true, force: true });
      await this.git(clone, workspace, ['worktree', 'prune']);
      fs.mkdirSync(path.dirname(worktree), { recursive: true, mode: 0o700 });
      await this.git(clone, workspace, ['worktree', 'add', '--force', '-B', branch, '--', worktree, base]);
      return { path: worktree, branch, base };
    });
  }

  /** Commits everything in the worktree; null when nothing changed. */
  async commit(workspace: ComposerWorkspace, tree: Worktree, message: string): Promise<string | null> {
    await this.git(tree.path, workspace, ['add', '--all', '--', '.']);
    const staged = await this.git(tree.path, workspace, ['diff', '--cached', '--quiet'], { ok: [0, 1] });
    if (staged.code === 0) return null;
    await this.git(tree.path, workspace, [
      '-c',
      'user.name=Loom Composer',
      '-c',
      'user.email=composer@loom.invalid',
      'commit',
      '--no-verify',
      '--no-gpg-sign',
      '-q',
      '-m',
      message,
    ]);
    return (await this.git(tree.path, workspace, ['rev-parse', 'HEAD'])).stdout.toString().trim();
  }

  /**
   * Pushes `branch` to the origin under the same name. Forced: the branch is the session's
   * own, so a takeover that pushes again replaces it and never makes a second one.
   */
  async push(workspace: ComposerWorkspace, branch: string, signal?: AbortSignal): Promise<void> {
    const clone = this.clonePath(workspace);
    await this.locked(clone, () =>
      this.git(clone, workspace, ['push', '--force', '--no-verify', 'origin', `refs/heads/${branch}:refs/heads/${branch}`], { network: true, signal }),
    );
  }

  /** Removes a session's worktree (its branch and commit stay in the clone). */
  async release(workspace: ComposerWorkspace, tree: Worktree): Promise<void> {
    const clone = this.clonePath(workspace);
    await this.locked(clone, async () => {
      await this.git(clone, workspace, ['worktree', 'remove', '--force', tree.path], { ok: [0, 128] });
      fs.rmSync(tree.path, { recursive: true, force: true });
    });
  }

  private clonePath(workspace: ComposerWorkspace): string {
    // Named by a hash: a workspace name never becomes a path, and a re-registered repo gets a fresh clone.
    const id = createHash('sha256').update(`${workspace.name}\0${workspace.repo}`).digest('hex').slice(0, 24);
    return path.join(this.options.folder, 'repos', `${id}.git`);
  }

  private async ensureClone(workspace: ComposerWorkspace, clone: string, signal?: AbortSignal): Promise<void> {
    if (fs.existsSync(path.join(clone, 'HEAD'))) return;
    fs.rmSync(clone, { recursive: true, force: true });
    fs.mkdirSync(clone, { recursive: true, mode: 0o700 });
    await this.git(null, workspace, ['init', '--bare', '-q', '--', clone], { signal });
    await this.git(clone, workspace, ['remote', 'add', 'origin', workspace.repo], { signal });
  }

  private locked<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => {});
    this.locks.set(key, settled);
    void settled.then(() => {
      if (this.locks.get(key) === settled) this.locks.delete(key);
    });
    return next;
  }

  private async git(
    cwd: string | null,
    workspace: ComposerWorkspace,
    args: string[],
    call: { network?: boolean; ok?: number[]; signal?: AbortSignal } = {},
  ): Promise<RunResult> {
    const hooks = path.join(this.options.folder, 'no-hooks');
    fs.mkdirSync(hooks, { recursive: true, mode: 0o700 });
    const config = [
      ...SAFE_CONFIG,
      `core.hooksPath=${hooks}`,
      // file:// only for a repository the operator registered by path: a fetched repository's URLs (submodules) never reach the disk.
      `protocol.file.allow=${isLocalRepo(workspace.repo) ? 'always' : 'never'}`,
    ];
    // Clones are bare (their folder ends in .git); worktrees are folders git finds its way from.
    const bare = cwd === null ? [] : cwd.endsWith('.git') ? ['--git-dir', cwd] : ['-C', cwd];
    const result = await runGit([...bare, ...config.flatMap((setting) => ['-c', setting]), ...args], {
      gitPath: this.options.gitPath ?? 'git',
      baseEnv: this.options.env ?? process.env,
      timeoutMs: call.network ? NETWORK_TIMEOUT_MS : LOCAL_TIMEOUT_MS,
      maxOutputBytes: MAX_OUTPUT,
      env: { GIT_CONFIG_NOSYSTEM: '1' },
      ...(call.signal ? { signal: call.signal } : {}),
    });
    if (result.aborted) throw call.signal?.reason ?? new Error('aborted');
    if (result.timedOut) throw new Error(`git ${args[0]} of workspace ${workspace.name} ran past its time limit.`);
    if (result.code === null || !(call.ok ?? [0]).includes(result.code)) {
      throw new Error(`git ${args[0]} failed for workspace ${workspace.name}: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`);
    }
    return result;
  }
}
