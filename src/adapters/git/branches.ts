// Making and switching branches over a GitWorkspace. Names are checked as branch names
// (validate.ts: never starting with `-`, no `..`, no revision syntax) and reach git after
// `--end-of-options`, so nothing a client sends is read as an option. A switch that would
// overwrite local changes is refused by git itself; its reason comes back in words.
import type { GitBranchResult, GitCreateBranchRequest, GitSwitchRequest } from '../../contracts/local-resources.ts';
import { LoomError } from '../../core/errors.ts';
import type { GitCliWorkspace as GitWorkspace, Workspace } from './git.ts';
import type { RunResult } from './run.ts';
import { checkBranchName } from '../../core/git/validate.ts';

/**
 * `POST /api/git/branch`: makes `name` at `from` (a local or remote-tracking branch; HEAD by
 * default) and, unless `switch` is false, switches to it in the same step (`git switch
 * --create`), so a refused switch makes no branch either. A branch made from a remote-tracking
 * one tracks it.
 *
 * @example
 *   await createBranch(git, { name: 'feature/login' });               // made at HEAD, switched to
 *   await createBranch(git, { name: 'fix', from: 'origin/main', switch: false });
 */
export function createBranch(git: GitWorkspace, input: GitCreateBranchRequest): Promise<GitBranchResult> {
  return git.exclusive(async () => {
    const name = checkBranchName(input?.name, 'name');
    const from = input?.from === undefined ? undefined : checkBranchName(input.from, 'from');
    const switchTo = input?.switch !== false;
    const ws = await git.workspace();
    if (await git.resolveCommit(ws, `refs/heads/${name}`)) {
      throw new LoomError('branch_exists', `A branch named ${name} already exists.`, 'Switch to it, or choose another name.');
    }
    const start = from ? await startPoint(git, ws, from) : { ref: 'HEAD', remote: false };
    const sha = await git.resolveCommit(ws, start.ref);
    if (!sha) {
      throw new LoomError('unknown_branch', 'HEAD has no commit yet, so a branch cannot start from it.', 'Commit first, then make the branch.');
    }
    const track = start.remote ? '--track' : '--no-track';
    const args = switchTo
      ? ['switch', '--no-guess', track, '--create', name, '--end-of-options', start.ref]
      : ['branch', track, '--end-of-options', name, start.ref];
    const result = await git.git(ws, args, { long: switchTo, ok: [0, 1, 128] });
    if (result.code !== 0) throw switchFailure(result, name);
    const current = await git.currentBranch(ws);
    const where = from ? ` from ${from}` : '';
    return {
      branch: name,
      head: sha,
      current,
      created: true,
      switched: switchTo,
      summary: switchTo ? `Created ${name}${where} and switched to it (${sha.slice(0, 7)}).` : `Created ${name}${where} (${sha.slice(0, 7)}).`,
    };
  });
}

/**
 * `POST /api/git/switch`: checks out a local branch; a branch that only one remote has is made
 * locally, tracking it (as `git switch` guesses, but only on request). Refused with
 * `uncommitted_changes` (409) when local changes would be overwritten: git's words name the files.
 *
 * @example
 *   await switchBranch(git, { branch: 'main' }); // {switched: true, summary: 'Switched to main (1a2b3c4).'}
 */
export function switchBranch(git: GitWorkspace, input: GitSwitchRequest): Promise<GitBranchResult> {
  return git.exclusive(async () => {
    const branch = checkBranchName(input?.branch);
    const ws = await git.workspace();
    const local = await git.resolveCommit(ws, `refs/heads/${branch}`);
    if (local && (await git.currentBranch(ws)) === branch) {
      return { branch, head: local, current: branch, created: false, switched: false, summary: `Already on ${branch}.` };
    }
    let args: string[];
    let created = false;
    if (local) {
      args = ['switch', '--no-guess', '--end-of-options', branch];
    } else {
      const remote = await remoteBranchesNamed(git, ws, branch);
      if (remote.length !== 1) {
        throw new LoomError(
          'unknown_branch',
          remote.length
            ? `Several remotes have a branch ${branch}: ${remote.join(', ')}.`
            : `There is no branch ${branch}, here or on a remote as last fetched.`,
          remote.length ? 'Make the branch from the one you mean (from: "<remote>/<branch>").' : 'Create it, or pull first if a remote has it now.',
        );
      }
      args = ['switch', '--no-guess', '--track', '--create', branch, '--end-of-options', `refs/remotes/${remote[0]}`];
      created = true;
    }
    const result = await git.git(ws, args, { long: true, ok: [0, 1, 128] });
    if (result.code !== 0) throw switchFailure(result, branch);
    const head = (await git.resolveCommit(ws, 'HEAD')) ?? '';
    return {
      branch,
      head,
      current: await git.currentBranch(ws),
      created,
      switched: true,
      summary: `${created ? `Created ${branch} tracking ${args.at(-1)!.replace('refs/remotes/', '')}; switched` : 'Switched'} to ${branch} (${head.slice(0, 7)}).`,
    };
  });
}

/** The ref a `from` names: a local branch first, then a remote-tracking one. */
async function startPoint(git: GitWorkspace, ws: Workspace, from: string): Promise<{ ref: string; remote: boolean }> {
  if (await git.resolveCommit(ws, `refs/heads/${from}`)) return { ref: `refs/heads/${from}`, remote: false };
  if (await git.resolveCommit(ws, `refs/remotes/${from}`)) return { ref: `refs/remotes/${from}`, remote: true };
  throw new LoomError('unknown_branch', `There is no branch ${from}, local or remote-tracking.`, 'Name a local branch (main) or a remote one (origin/main).');
}

/** `<remote>/<branch>` for every remote-tracking branch named `branch`. */
async function remoteBranchesNamed(git: GitWorkspace, ws: Workspace, branch: string): Promise<string[]> {
  const remotes = (await git.git(ws, ['remote'])).stdout.toString('utf8').split('\n').filter(Boolean);
  const found: string[] = [];
  for (const remote of remotes) if (await git.resolveCommit(ws, `refs/remotes/${remote}/${branch}`)) found.push(`${remote}/${branch}`);
  return found;
}

/** git's refusal of a switch, in words: the files it would overwrite, a merge in the way, or git's own lines. */
function switchFailure(result: RunResult, branch: string): LoomError {
  const text = result.stderr;
  const lines = text.split('\n');
  const files = lines.filter((line) => line.startsWith('\t')).map((line) => line.trim());
  if (/would be overwritten by checkout|untracked working tree files would be (overwritten|removed)/.test(text)) {
    const untracked = /untracked working tree files/.test(text);
    return new LoomError(
      'uncommitted_changes',
      `Switching to ${branch} would overwrite ${untracked ? 'untracked files' : 'local changes'}${files.length ? ` in ${files.join(', ')}` : ''}; git refused and nothing changed. git says: "${reason(lines)}"`,
      untracked ? 'Move or delete those files (or commit them), then switch.' : 'Commit those changes (or discard them), then switch.',
    );
  }
  if (/resolve your current index first|you need to resolve/.test(text)) {
    return new LoomError(
      'merge_in_progress',
      `A merge is in progress, so git will not switch to ${branch}.`,
      'Resolve the conflicts and commit, or abort the merge.',
    );
  }
  if (/already exists/.test(text)) return new LoomError('branch_exists', `A branch named ${branch} already exists.`, 'Switch to it, or choose another name.');
  const said = reason(lines);
  return new LoomError('git_failed', `git could not switch to ${branch}: ${said}`);
}

/** git's message without the file list and hints, on one line. */
function reason(lines: string[]): string {
  const said = lines
    .filter((line) => line.trim() && !line.startsWith('\t') && !line.startsWith('hint:'))
    .map((line) => line.replace(/^(error|fatal): /, '').trim())
    .join(' ');
  return said.length > 400 ? `${said.slice(0, 397)}...` : said || 'no output';
}
