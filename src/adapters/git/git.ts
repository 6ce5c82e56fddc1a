// The git operations of the local API (status, branches, commit, push, pull) over one
// workspace folder. git is spawned directly, never through a shell; user input never becomes
// an option (docs/security.md, "Git"): paths go after `--` as literal pathspecs, branch and
// remote names are validated and remotes must be configured ones; the ext:: transport is off.
import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { LoomError } from '../../core/errors.ts';
import { classify, gist, listedFiles, pushRejected } from '../../core/git/failures.ts';
import { GitConflictError, type GitWorkspace, type GitWorkspaceOptions, type SyncOptions } from '../../core/git/workspace.ts';
import { fileSystemError } from '../../core/files/fs-errors.ts';
import { readRegularFile } from '../../core/files/read-regular.ts';
import { isInside, realpathLoose } from '../../core/workspace/paths.ts';
import { protection } from '../../core/workspace/protected.ts';
import { parsePushPorcelain, parseRefs, parseStatus, REF_FORMAT, summaryLine } from '../../core/git/parse.ts';
import { GitSpawnError, runGit, type RunResult } from './run.ts';
import { createBranch, switchBranch } from './branches.ts';
import { fileAtHead, stageFiles, unstageFiles } from './worktree.ts';
import type { GitBranchResult, GitCreateBranchRequest, GitFileSide, GitFilesRequest, GitSwitchRequest } from '../../contracts/local-resources.ts';
import type { GitBranches, GitCommitInput, GitCommitResult, GitPullResult, GitPushResult, GitStatus, GitSyncInput } from '../../core/git/types.ts';
import { checkBranchName, checkMessage, checkRemoteName, literalPathspec, loomExcludes, resolveWorkspacePaths } from '../../core/git/validate.ts';

export interface Call {
  /** Talks to a remote (push, pull): its failures are the remote's, its timeout the long one. */
  network?: boolean;
  /** Use the long timeout (commands that run hooks). */
  long?: boolean;
  input?: string;
  /** Exit codes that are not failures. Default: 0 only. */
  ok?: number[];
  env?: Record<string, string>;
  /** Extra `-c name=value` settings. */
  config?: string[];
  /** Stops git when aborted; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** stderr's lines as they come (with `--progress`). */
  progress?: (line: string) => void;
}

export interface Workspace {
  /** Real path of the workspace folder; every git command runs with `-C` on it. */
  root: string;
  /** The folder's path inside the repository, `''` at the top or `sub/dir/`. */
  prefix: string;
  /** Real path of the repository's top folder. */
  top: string;
  /** Settings pinned for this repository on every command (see hookPins). */
  pins: string[];
  /** Pathspecs leaving Loom's own folders out (loomExcludes), after every pathspec that lists or stages. */
  excludes: string[];
}

interface Upstream {
  remote: string;
  /** Full ref on the remote, e.g. `refs/heads/main`. */
  ref: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_LONG_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_OUTPUT = 32 * 1024 * 1024;
/** Files larger than this are not scanned for conflict markers (they count as unresolved). */
const MAX_MARKER_SCAN = 16 * 1024 * 1024;

/**
 * Settings on every command (command-line settings override every config file):
 * - the ext:: transport runs any program the remote's URL names;
 * - core.fsmonitor names a program git runs on every status, and status runs in the
 *   background, without the user asking: a folder downloaded with such a .git/config would
 *   run it on open. Turning it off costs only speed. Empty, not `false`: git before 2.36 takes
 *   the value as a program's name (and would run `false`), while empty means off in every version;
 * - safe.bareRepository=explicit: a workspace folder that has been made to look like a bare
 *   repository (HEAD, config, objects/, refs/ written into it, with core.worktree set) is
 *   refused rather than read as the repository, whose config would then be the workspace's;
 * - paths print raw.
 */
export const SAFE_CONFIG = ['protocol.ext.allow=never', 'core.fsmonitor=', 'safe.bareRepository=explicit', 'core.quotepath=off'];

/**
 * Git over one workspace folder, by running the git command (./run.ts). Methods resolve to the
 * JSON the local API answers with and throw LoomError with a code from the error table for
 * every failure a user can meet. Commit, push, pull and abortMerge run one at a time per
 * instance. Built in src/compose/git.ts; the local API sees the GitWorkspace core declares.
 *
 * @example
 * const git = new GitCliWorkspace({ root: '/path/to/workspace' });
 * await git.status(); // { branch: 'main', files: [...], ... }
 */
export class GitCliWorkspace implements GitWorkspace {
  private readonly timeoutMs: number;
  private readonly longTimeoutMs: number;
  private readonly maxOutputBytes: number;
  private readonly gitPath: string;
  private readonly env: NodeJS.ProcessEnv;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(readonly options: GitWorkspaceOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.longTimeoutMs = options.longTimeoutMs ?? DEFAULT_LONG_TIMEOUT_MS;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    this.gitPath = options.gitPath ?? 'git';
    this.env = options.env ?? process.env;
  }

  /** `GET /api/git/status`. */
  async status(): Promise<GitStatus> {
    const ws = await this.workspace();
    const [result, merging] = await Promise.all([
      // No optional locks: a status polled in the background never blocks the user's own git.
      this.git(ws, ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--', '.', ...ws.excludes], { env: { GIT_OPTIONAL_LOCKS: '0' } }),
      this.isMerging(ws),
    ]);
    const parsed = parseStatus(result.stdout.toString('utf8'), ws.prefix);
    const { files, clean, ...head } = parsed;
    return { ...head, merging, files, clean };
  }

  /** `GET /api/git/branches`. */
  async branches(): Promise<GitBranches> {
    const ws = await this.workspace();
    const [refs, remotes, current] = await Promise.all([
      this.git(ws, ['for-each-ref', `--format=${REF_FORMAT}`, '--', 'refs/heads', 'refs/remotes']),
      this.remoteNames(ws),
      this.currentBranch(ws),
    ]);
    const { branches, remotes: remoteBranches } = parseRefs(refs.stdout.toString('utf8'), remotes);
    return { current, branches, remotes: remoteBranches };
  }

  /**
   * `POST /api/git/commit`. Without `files`, commits every change in the workspace (new files
   * included); with them, exactly those paths, whatever else is staged. Works without a
   * configured identity (then `Loom <loom@localhost>`). On a detached HEAD the commit is made
   * as git would (branch null). During a merge, committing every change concludes it.
   * The result is what the server sends as the `git:commit` event.
   */
  commit(input: GitCommitInput): Promise<GitCommitResult> {
    return this.exclusive(async () => {
      const body: Partial<GitCommitInput> = input ?? {};
      const message = checkMessage(body.message);
      const ws = await this.workspace();
      const files = body.files === undefined ? undefined : await resolveWorkspacePaths(ws.root, body.files, this.options.loomFolders);
      const merging = await this.isMerging(ws);
      if (merging && files) {
        throw new LoomError(
          'merge_in_progress',
          'A merge is in progress: it can only be concluded by committing every change, not chosen files.',
          'Resolve the conflicts and commit without files, or abort the merge.',
        );
      }
      await this.refuseUnresolved(ws);

      const config = await this.identityConfig(ws);
      await this.withIndexCopy(ws, async (env) => {
        let pathspecs: string[] | undefined;
        if (files) {
          // New files must be known to git before `commit --only` can take them; tracked ones
          // (deleted ones included) are taken from the working tree by the commit itself.
          const present: string[] = [];
          for (const file of files) if (await exists(path.join(ws.root, file))) present.push(file);
          // A folder named may hold Loom's own: left out.
          if (present.length) await this.add(ws, [...present.map(literalPathspec), ...ws.excludes], env);
          pathspecs = [...files.map(literalPathspec), ...ws.excludes];
        } else {
          await this.add(ws, ['.', ...ws.excludes], env);
          // A merge is concluded by a plain commit; otherwise `--only .` keeps what is staged
          // outside the workspace (when it is a subfolder of the repository) out of the commit.
          pathspecs = merging ? undefined : ['.', ...ws.excludes];
        }

        const args = ['commit', '--no-edit', `--message=${message}`];
        if (pathspecs) args.push('--only', '--pathspec-from-file=-', '--pathspec-file-nul');
        const result = await this.git(ws, args, { long: true, config, env, ok: [0, 1, 128], input: pathspecs ? pathspecs.join('\0') : undefined });
        if (result.code !== 0) throw await this.commitFailure(ws, result, pathspecs);
      });

      const sha = (await this.git(ws, ['rev-parse', '--verify', 'HEAD^{commit}'])).stdout.toString('utf8').trim();
      const parents = (await this.git(ws, ['rev-list', '--parents', '-n', '1', sha])).stdout.toString('utf8').trim().split(' ').slice(1);
      const diff = parents[0]
        ? ['diff-tree', '-r', '--name-only', '--no-renames', '-z', '--relative', parents[0], sha]
        : ['diff-tree', '-r', '--root', '--no-commit-id', '--name-only', '--no-renames', '-z', '--relative', sha];
      const changed = (await this.git(ws, diff)).stdout.toString('utf8').split('\0').filter(Boolean);
      return {
        commit: sha,
        branch: await this.currentBranch(ws),
        summary: summaryLine(message),
        files: changed,
        merge: parents.length > 1,
      };
    });
  }

  /**
   * `POST /api/git/push`. Pushes a local branch (default: the current one) to the branch's
   * upstream, or to `<remote>/<same name>`; sets the upstream when the branch has none.
   * Never forces.
   */
  push(input: GitSyncInput = {}, options: SyncOptions = {}): Promise<GitPushResult> {
    return this.exclusive(async () => {
      options.signal?.throwIfAborted();
      const { remoteArg, branchArg } = syncArguments(input);
      const ws = await this.workspace();
      const branch = branchArg ?? (await this.currentBranch(ws));
      if (!branch) {
        throw new LoomError(
          'detached_head',
          'HEAD is detached (not on a branch), so there is no branch to push.',
          'Check out a branch, or name one in branch.',
        );
      }
      const tip = await this.resolveCommit(ws, `refs/heads/${branch}`);
      if (!tip) {
        throw branchArg
          ? new LoomError('unknown_branch', `There is no local branch ${branch}.`)
          : new LoomError('unknown_branch', `The branch ${branch} has no commit yet, so there is nothing to push.`, 'Commit first.');
      }
      const upstream = await this.upstreamOf(ws, branch);
      const remote = remoteArg ?? upstream?.remote ?? 'origin';
      await this.requireRemote(ws, remote, remoteArg !== undefined);
      const destination = upstream && upstream.remote === remote ? upstream.ref : `refs/heads/${branch}`;
      const remoteBranch = destination.replace(/^refs\/heads\//, '');
      const setUpstream = !upstream;

      const args = ['push', '--porcelain'];
      if (options.onProgress) args.push('--progress');
      if (setUpstream) args.push('--set-upstream');
      args.push('--', remote, `refs/heads/${branch}:${destination}`);
      const result = await this.git(ws, args, { network: true, ok: [0, 1, 128], signal: options.signal, progress: options.onProgress });
      const ref = parsePushPorcelain(result.stdout.toString('utf8'))[0];
      const text = `${result.stderr}\n${result.stdout.toString('utf8')}`;
      if (result.code !== 0 || ref?.flag === '!') {
        if (ref?.flag === '!') throw pushRejected(remote, branch, ref.summary);
        if (/src refspec .* does not match any/.test(text)) throw new LoomError('unknown_branch', `There is no local branch ${branch}.`);
        throw classify(text, true, remote);
      }
      const where = `${remote}/${remoteBranch}`;
      let summary =
        ref?.flag === '='
          ? `${where} is already up to date.`
          : ref?.flag === '*'
            ? `Created ${where} from ${branch} (${tip.slice(0, 7)}).`
            : `Pushed ${branch} to ${where} (${ref?.summary ?? tip.slice(0, 7)}).`;
      if (setUpstream) summary += ` ${branch} now tracks ${where}.`;
      return { remote, branch, remoteBranch, head: tip, updated: ref?.flag !== '=', upstreamSet: setUpstream, summary };
    });
  }

  /**
   * `POST /api/git/pull`. Fetches a remote branch and merges it into the current branch
   * (`git pull --no-rebase --ff`): a fast-forward when possible, else a merge commit. On
   * conflicts it throws GitConflictError (`git_conflict`) naming the files and leaves the merge
   * in progress, as git does, so the user can resolve them in the editor and commit; or call
   * abortMerge().
   */
  pull(input: GitSyncInput = {}, options: SyncOptions = {}): Promise<GitPullResult> {
    return this.exclusive(async () => {
      options.signal?.throwIfAborted();
      const { remoteArg, branchArg } = syncArguments(input);
      const ws = await this.workspace();
      const current = await this.currentBranch(ws);
      if (!current) {
        throw new LoomError('detached_head', 'HEAD is detached (not on a branch), so there is no branch to pull into.', 'Check out a branch first.');
      }
      if (await this.isMerging(ws)) {
        throw new LoomError('merge_in_progress', 'A merge is already in progress.', 'Resolve the conflicts and commit, or abort the merge, then pull again.');
      }
      await this.refuseUnresolved(ws);
      const upstream = await this.upstreamOf(ws, current);
      const remote = remoteArg ?? upstream?.remote ?? 'origin';
      await this.requireRemote(ws, remote, remoteArg !== undefined);
      const branch = checkBranchName(branchArg ?? (upstream && upstream.remote === remote ? upstream.ref.replace(/^refs\/heads\//, '') : current));
      const previousHead = await this.resolveCommit(ws, 'HEAD');
      const config = await this.identityConfig(ws);

      const args = [
        'pull',
        '--no-rebase',
        '--ff',
        '--no-edit',
        '--no-autostash',
        ...(options.onProgress ? ['--progress'] : []),
        '--',
        remote,
        `refs/heads/${branch}`,
      ];
      const result = await this.git(ws, args, { network: true, config, ok: [0, 1, 2, 128], signal: options.signal, progress: options.onProgress });
      const where = `${remote}/${branch}`;
      if (result.code !== 0) {
        const text = `${result.stderr}\n${result.stdout.toString('utf8')}`;
        if (/^CONFLICT|Automatic merge failed/m.test(text)) {
          const files = await this.unmergedFiles(ws);
          throw new GitConflictError(
            `Pulling ${where} into ${current} stopped on conflicts in ${files.length} file${files.length === 1 ? '' : 's'}: ${files.join(', ')}.`,
            files,
            'The merge is left in progress: fix the files and commit (without files), or abort the merge.',
          );
        }
        if (/would be overwritten by merge|untracked working tree files would be/.test(text)) {
          const files = listedFiles(text);
          throw new LoomError(
            'uncommitted_changes',
            `Pulling ${where} would overwrite local changes${files.length ? ` to ${files.join(', ')}` : ''}; nothing was changed.`,
            'Commit (or discard) those changes, then pull again.',
          );
        }
        if (/couldn't find remote ref/.test(text)) {
          throw new LoomError(
            'unknown_branch',
            `The remote ${remote} has no branch ${branch}.`,
            upstream
              ? 'The branch may have been deleted on the remote; set another upstream.'
              : `${current} has no upstream: push it first to create ${where}, or name a branch to pull.`,
          );
        }
        if (/refusing to merge unrelated histories/.test(text)) {
          throw new LoomError(
            'unrelated_histories',
            `${where} and ${current} share no history; git refuses to merge them.`,
            'Merge them once by hand with --allow-unrelated-histories, if that is what you want.',
          );
        }
        if (/not concluded your merge|MERGE_HEAD exists/.test(text)) throw new LoomError('merge_in_progress', 'A merge is already in progress.');
        throw classify(text, true, remote);
      }
      const head = (await this.resolveCommit(ws, 'HEAD')) ?? '';
      const updated = head !== previousHead;
      const fetched = await this.resolveCommit(ws, 'FETCH_HEAD');
      const merged = updated && previousHead !== null && head !== fetched;
      const range = previousHead ? `${previousHead}..${head}` : head;
      const commits = updated ? Number((await this.git(ws, ['rev-list', '--count', range, '--'])).stdout.toString('utf8').trim()) : 0;
      const count = `${commits} new commit${commits === 1 ? '' : 's'}`;
      const summary = !updated
        ? `${current} is already up to date with ${where}.`
        : merged
          ? `Merged ${where} into ${current}: ${count}.`
          : `Fast-forwarded ${current} to ${where}: ${count}.`;
      return { remote, branch, head, previousHead, updated, merged, commits, summary };
    });
  }

  /** Abandons a merge stopped on conflicts (`git merge --abort`). `aborted` is false when there was none. */
  stage(input: GitFilesRequest | undefined): Promise<GitStatus> {
    return stageFiles(this, input);
  }

  unstage(input: GitFilesRequest | undefined): Promise<GitStatus> {
    return unstageFiles(this, input);
  }

  fileAtHead(file: string): Promise<{ path: string; originalPath: string | null; head: GitFileSide }> {
    return fileAtHead(this, file);
  }

  createBranch(input: GitCreateBranchRequest): Promise<GitBranchResult> {
    return createBranch(this, input);
  }

  switchBranch(input: GitSwitchRequest): Promise<GitBranchResult> {
    return switchBranch(this, input);
  }

  abortMerge(): Promise<{ aborted: boolean; head: string | null }> {
    return this.exclusive(async () => {
      const ws = await this.workspace();
      if (!(await this.isMerging(ws))) return { aborted: false, head: await this.resolveCommit(ws, 'HEAD') };
      await this.git(ws, ['merge', '--abort']);
      return { aborted: true, head: await this.resolveCommit(ws, 'HEAD') };
    });
  }

  // ---- helpers -------------------------------------------------------------------------

  /** @internal for the sibling modules (worktree.ts, branches.ts). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** The workspace folder, checked to exist and to be inside a repository's working tree. */
  /** @internal for the sibling modules (worktree.ts, branches.ts). */
  async workspace(): Promise<Workspace> {
    const configured = this.options.root;
    if (typeof configured !== 'string' || configured.length === 0) {
      throw new LoomError('no_workspace', 'No workspace folder is open.', 'Open a folder first.');
    }
    let root: string;
    try {
      root = await fs.realpath(configured);
      if (!(await fs.stat(root)).isDirectory()) throw new Error('not a directory');
    } catch {
      throw new LoomError('no_workspace', `The workspace folder ${configured} does not exist or is not a folder.`, 'Open another folder.');
    }
    const probe: Workspace = { root, prefix: '', top: root, pins: [], excludes: [] };
    const result = await this.git(probe, ['rev-parse', '--is-inside-work-tree', '--show-prefix', '--git-path', 'hooks', '--git-common-dir'], { ok: [0, 128] });
    if (result.code !== 0) throw classify(result.stderr, false);
    const [inside = '', prefix = '', hooks = '', common = ''] = result.stdout.toString('utf8').split('\n');
    if (inside !== 'true') {
      // A bare repository, or a folder inside .git.
      throw new LoomError(
        'not_a_repository',
        'The workspace folder is not inside the working tree of a git repository.',
        "Open the folder that holds the files, not the repository's .git folder.",
      );
    }
    const depth = prefix.split('/').filter(Boolean).length;
    return {
      root,
      prefix,
      top: path.resolve(root, ...Array<string>(depth).fill('..')),
      pins: hookPins(root, path.resolve(root, hooks), path.resolve(root, common)),
      excludes: loomExcludes(root, this.options.loomFolders ?? []),
    };
  }

  /** Runs git in the workspace and turns every failure into a LoomError. */
  /** @internal for the sibling modules (worktree.ts, branches.ts). */
  async git(ws: Workspace, args: string[], call: Call = {}): Promise<RunResult> {
    const config = [...SAFE_CONFIG, ...ws.pins, ...(call.config ?? [])];
    const full = ['-C', ws.root, ...config.flatMap((setting) => ['-c', setting]), ...args];
    const timeoutMs = call.network || call.long ? this.longTimeoutMs : this.timeoutMs;
    let result: RunResult;
    try {
      result = await runGit(full, {
        gitPath: this.gitPath,
        baseEnv: this.env,
        timeoutMs,
        maxOutputBytes: this.maxOutputBytes,
        input: call.input,
        env: call.env,
        signal: call.signal,
        progress: call.progress,
      });
    } catch (error) {
      if (error instanceof GitSpawnError) {
        throw new LoomError(
          'git_unavailable',
          error.errno === 'ENOENT' ? `git is not installed, or ${this.gitPath} is not on PATH.` : `git could not be started (${error.errno ?? error.message}).`,
          'Install git (https://git-scm.com) and restart Loom.',
        );
      }
      throw error;
    }
    if (result.aborted) throw call.signal?.reason;
    if (result.timedOut) {
      if (call.network)
        throw new LoomError(
          'remote_unavailable',
          `The remote did not answer within ${duration(timeoutMs)}; git was stopped.`,
          'Check the network and try again.',
        );
      throw new LoomError('git_timeout', `git ${args[0]} did not finish within ${duration(timeoutMs)} and was stopped.`);
    }
    if (result.overflow) throw new LoomError('git_failed', `git ${args[0]} printed more than ${this.maxOutputBytes} bytes and was stopped.`);
    const ok = call.ok ?? [0];
    if (result.code === null || !ok.includes(result.code)) {
      throw classify(`${result.stderr}\n${result.stdout.toString('utf8')}`, call.network ?? false);
    }
    return result;
  }

  /**
   * Runs `work` on a copy of the index (its environment points git at it) and puts the copy in
   * place of the index only when `work` succeeds: what a refused commit staged on the way (new
   * files, everything for a commit of all changes) is dropped with the copy, and the index is as
   * it was. The index's lock is held meanwhile, as git holds it, so no other git process changes
   * the index in between.
   */
  private async withIndexCopy(ws: Workspace, work: (env: Record<string, string>) => Promise<void>): Promise<void> {
    const index = path.resolve(ws.root, (await this.git(ws, ['rev-parse', '--git-path', 'index'])).stdout.toString('utf8').trim());
    const lock = `${index}.lock`;
    try {
      await (await fs.open(lock, 'wx')).close();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw classify(`Unable to create '${lock}': File exists.`, false);
      throw error;
    }
    const copy = `${index}.loom-${randomBytes(6).toString('hex')}`;
    try {
      await fs.copyFile(index, copy).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error; // a repository without an index yet
      });
      await work({ GIT_INDEX_FILE: copy });
      await fs.rename(copy, index);
    } finally {
      await fs.rm(copy, { force: true });
      await fs.rm(lock, { force: true });
    }
  }

  /** @internal for the sibling modules (worktree.ts, branches.ts). */
  async add(ws: Workspace, pathspecs: string[], env?: Record<string, string>): Promise<void> {
    const result = await this.git(ws, ['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], { input: pathspecs.join('\0'), env, ok: [0, 1, 128] });
    if (result.code === 0) return;
    const text = result.stderr;
    const ignored = /paths are ignored by one of your \.gitignore files:\n([\s\S]*?)(?:\nhint:|$)/.exec(text);
    if (ignored) {
      const names = ignored[1]!.split('\n').filter(Boolean);
      throw new LoomError(
        'validation_error',
        `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} ignored by .gitignore; Loom does not add ignored files.`,
        'Remove it from files, or from .gitignore.',
      );
    }
    const unmatched = unmatchedPathspec(text, 'did not match any files', pathspecs);
    if (unmatched !== undefined) throw new LoomError('validation_error', `${unmatched} matches no file.`);
    if (/beyond a symbolic link/.test(text)) throw new LoomError('forbidden_path', 'A path goes through a symbolic link.');
    throw classify(text, false);
  }

  private async commitFailure(ws: Workspace, result: RunResult, pathspecs: readonly string[] | undefined): Promise<LoomError> {
    const text = `${result.stderr}\n${result.stdout.toString('utf8')}`;
    if (/^(nothing to commit|nothing added to commit|no changes added to commit)/m.test(text)) {
      return new LoomError('nothing_to_commit', 'There is nothing to commit: the files are unchanged.');
    }
    const unknown = unmatchedPathspec(text, 'did not match any file(s) known to git', pathspecs ?? []);
    if (unknown !== undefined) return new LoomError('validation_error', `${unknown} matches no file, changed or tracked.`);
    if (/unmerged files|unresolved conflict/i.test(text)) {
      const files = await this.unmergedFiles(ws);
      return new GitConflictError(`Files still have merge conflicts: ${files.join(', ')}.`, files, 'Resolve them, then commit every change.');
    }
    if (/partial commit during a merge/.test(text)) {
      return new LoomError('merge_in_progress', 'A merge is in progress: it can only be concluded by committing every change.');
    }
    const error = classify(text, false);
    if (error.code !== 'git_failed') return error;
    return new LoomError(
      'commit_rejected',
      `git refused the commit: ${gist(text)}`,
      'A pre-commit or commit-msg hook usually says why; fix that and commit again.',
    );
  }

  /**
   * Files with unmerged entries whose working copy still holds conflict markers: committing
   * them would record the markers. A conflicted file saved without markers counts as resolved
   * (the commit stages it), as in other editors.
   */
  private async refuseUnresolved(ws: Workspace): Promise<void> {
    const unmerged = await this.unmergedFiles(ws, true);
    if (unmerged.length === 0) return;
    const unresolved: string[] = [];
    for (const repoPath of unmerged) {
      if (hasConflictMarkers(path.join(ws.top, repoPath), fromRepo(ws, repoPath))) unresolved.push(fromRepo(ws, repoPath));
    }
    if (unresolved.length) {
      throw new GitConflictError(
        `${unresolved.length} file${unresolved.length === 1 ? ' still has' : 's still have'} conflict markers: ${unresolved.join(', ')}.`,
        unresolved,
        'Resolve the conflicts (remove the <<<<<<< ======= >>>>>>> blocks), then commit.',
      );
    }
  }

  /** Paths with unmerged index entries; relative to the workspace, or to the repository when `repoRelative`. */
  /** @internal for the sibling modules (worktree.ts, branches.ts). */
  async unmergedFiles(ws: Workspace, repoRelative = false): Promise<string[]> {
    // Plumbing, so no diff.* setting changes the paths: `<mode> <sha> <stage>\t<path>`, one per stage.
    const result = await this.git(ws, ['ls-files', '--unmerged', '-z', '--full-name', '--', ':/']);
    const records = result.stdout.toString('utf8').split('\0').filter(Boolean);
    const repoPaths = [...new Set(records.map((record) => record.slice(record.indexOf('\t') + 1)))];
    return repoRelative ? repoPaths : repoPaths.map((p) => fromRepo(ws, p));
  }

  /** @internal for the sibling modules (worktree.ts, branches.ts). */
  async isMerging(ws: Workspace): Promise<boolean> {
    return (await this.resolveCommit(ws, 'MERGE_HEAD')) !== null;
  }

  /** The commit a (trusted, internal) revision names, or null. */
  /** @internal for the sibling modules (worktree.ts, branches.ts). */
  async resolveCommit(ws: Workspace, revision: string): Promise<string | null> {
    const result = await this.git(ws, ['rev-parse', '-q', '--verify', `${revision}^{commit}`], { ok: [0, 1, 128] });
    return result.code === 0 ? result.stdout.toString('utf8').trim() || null : null;
  }

  /** The checked-out branch (also when it has no commit yet); null on a detached HEAD. */
  /** @internal for the sibling modules (worktree.ts, branches.ts). */
  async currentBranch(ws: Workspace): Promise<string | null> {
    const result = await this.git(ws, ['symbolic-ref', '-q', 'HEAD'], { ok: [0, 1] });
    const ref = result.stdout.toString('utf8').trim();
    return result.code === 0 && ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
  }

  private async upstreamOf(ws: Workspace, branch: string): Promise<Upstream | null> {
    const result = await this.git(ws, ['for-each-ref', '--format=%(upstream:remotename)%00%(upstream:remoteref)', '--', `refs/heads/${branch}`]);
    const [remote = '', ref = ''] = result.stdout.toString('utf8').replace(/\n$/, '').split('\0');
    // An upstream on `.` is another local branch, not a remote.
    if (!remote || remote === '.' || !ref.startsWith('refs/heads/')) return null;
    return { remote, ref };
  }

  private async remoteNames(ws: Workspace): Promise<string[]> {
    const result = await this.git(ws, ['remote']);
    return result.stdout.toString('utf8').split('\n').filter(Boolean);
  }

  private async requireRemote(ws: Workspace, remote: string, named: boolean): Promise<void> {
    if ((await this.remoteNames(ws)).includes(remote)) return;
    throw new LoomError(
      'no_remote',
      named ? `The repository has no remote named ${remote}.` : `The branch has no upstream and the repository has no remote named ${remote}.`,
      'Add one with git remote add <name> <url>, or name an existing remote.',
    );
  }

  /** `-c user.name=Loom` / `-c user.email=loom@localhost`, only for what is not configured. */
  /** @internal for the sibling modules (worktree.ts, branches.ts). */
  async identityConfig(ws: Workspace): Promise<string[]> {
    const result = await this.git(ws, ['config', '--get-regexp', '^user\\.(name|email)$'], { ok: [0, 1] });
    const set = new Set(
      result.stdout
        .toString('utf8')
        .split('\n')
        .map((line) => line.split(' ')[0]?.toLowerCase()),
    );
    const config: string[] = [];
    if (!set.has('user.name')) config.push('user.name=Loom');
    if (!set.has('user.email')) config.push('user.email=loom@localhost');
    return config;
  }
}

/**
 * Hooks run for the commands a user asks for (commit, push, pull), as in every git client:
 * those of the repository's own hooks folder, which no Loom writer may write (it is in a git
 * directory). A core.hooksPath that leads into the workspace (`.husky`, `.githooks`) names
 * files that Loom's editor and agents can write, so a request could choose what a later
 * commit runs: for Loom's commands git is pointed back at the repository's own hooks folder.
 */
function hookPins(root: string, hooks: string, commonDir: string): string[] {
  let writable: boolean;
  try {
    const real = realpathLoose(hooks);
    writable = isInside(root, real) && protection(real) === undefined;
  } catch {
    writable = isInside(root, hooks); // Unresolvable (a loop, no permission): judged by its path as written.
  }
  return writable ? [`core.hooksPath=${path.join(commonDir, 'hooks')}`] : [];
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}

function hasConflictMarkers(file: string, subject: string): boolean {
  let text: string;
  try {
    // A symlink's content is its target's name, not text with markers.
    if (fsSync.lstatSync(file).isSymbolicLink()) return false;
    // Never a FIFO or a device: reading one would wait for ever.
    ({ text } = readRegularFile(file, subject, MAX_MARKER_SCAN));
  } catch (error) {
    const failure = fileSystemError(error, subject);
    if (failure.code === 'not_found' || failure.code === 'not_a_file') return false; // Deleted (resolved by deleting it), or no text.
    if (failure.code === 'payload_too_large') return true; // Too large to scan: counts as unresolved.
    throw failure;
  }
  return /^<{7}(?: |$)/m.test(text) && /^>{7}(?: |$)/m.test(text);
}

/** A repository path as a workspace path (unchanged when it lies outside the workspace). */
function fromRepo(ws: Workspace, repoPath: string): string {
  return ws.prefix && repoPath.startsWith(ws.prefix) ? repoPath.slice(ws.prefix.length) : repoPath;
}

/** The remote and branch a push or pull names, checked (undefined: the upstream's, or the current branch). */
function syncArguments(input: GitSyncInput | undefined): { remoteArg?: string; branchArg?: string } {
  const body: GitSyncInput = input ?? {};
  return {
    remoteArg: body.remote === undefined ? undefined : checkRemoteName(body.remote),
    branchArg: body.branch === undefined ? undefined : checkBranchName(body.branch),
  };
}

/**
 * The named path git's "pathspec '<path>' <complaint>" message is about, or undefined when the
 * message is not that one. A file name may hold any byte but `/` and NUL, line breaks too, and
 * git writes a control character other than a line break as `?`: the path is read across
 * lines and found again among the pathspecs given, so the message names the file as asked for
 * (quoted when it holds control characters).
 */
function unmatchedPathspec(stderr: string, complaint: string, pathspecs: readonly string[]): string | undefined {
  const start = stderr.indexOf("pathspec '");
  const end = stderr.lastIndexOf(`' ${complaint}`);
  if (start < 0 || end < start) return undefined;
  const reported = stderr.slice(start + "pathspec '".length, end).replace(/^:\(literal\)/, '');
  const isControl = (char: string) => char < ' ' || char === '\u007f';
  const named = pathspecs
    .map((pathspec) => pathspec.replace(/^:\(literal\)/, ''))
    .find((name) => name.length === reported.length && [...name].every((char, i) => char === reported[i] || (isControl(char) && reported[i] === '?')));
  const name = named ?? reported;
  return [...name].some(isControl) ? JSON.stringify(name) : name;
}
