// The workspace's recent git history, for locate: the files each of the last commits changed.
// Read-only and bounded: at most `maxCommits` commits (2,000), `timeoutMs` (10 s) and
// `maxOutputBytes` (16 MiB); whatever was read by then is used. A workspace without git (or
// git missing, or a repository git refuses) has no history, which is not an error: locate
// ranks without it.
import { SAFE_CONFIG } from '../git/git.ts';
import { runGit } from '../git/run.ts';
import type { ChangeHistory, HistoryCommit } from '../../core/code/history.ts';

export interface GitHistoryOptions {
  /** Commits read, newest first (2,000). */
  maxCommits?: number;
  timeoutMs?: number;
  maxOutputBytes?: number;
  gitPath?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

// A record separator starts each commit; file names end with NUL (-z), so no name is quoted.
const RECORD = '\x1e';

/**
 * The last commits of the branch checked out in `root` (merges left out), each with the files it
 * changed relative to `root`: a workspace inside a larger repository sees the commits that
 * changed its files, and those files only.
 *
 * @example
 * const history = await readGitHistory('/path/to/workspace');
 * history.commits[0] // { files: ['src/router.ts', 'src/router.test.ts'], time: 1718000000 }
 */
export async function readGitHistory(root: string, options: GitHistoryOptions = {}): Promise<ChangeHistory> {
  const maxCommits = Math.max(1, Math.floor(options.maxCommits ?? 2000));
  const args = [
    '-C',
    root,
    ...SAFE_CONFIG.flatMap((setting) => ['-c', setting]),
    'log',
    `--max-count=${maxCommits}`,
    '--no-merges',
    '--no-renames',
    '--name-only',
    '--relative',
    '-z',
    `--format=${RECORD}%ct`,
    'HEAD',
    '--',
    '.',
  ];
  let result;
  try {
    result = await runGit(args, {
      gitPath: options.gitPath ?? 'git',
      baseEnv: options.env ?? process.env,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxOutputBytes: options.maxOutputBytes ?? 16 * 1024 * 1024,
      env: { GIT_OPTIONAL_LOCKS: '0' },
      signal: options.signal,
    });
  } catch {
    return { commits: [] };
  }
  // Cut short (time, size, abort): the last record may be partial, so it is dropped.
  const complete = result.code === 0;
  if (!complete && !result.timedOut && !result.overflow && !result.aborted) return { commits: [] };
  return { commits: parseLog(result.stdout.toString('utf8'), complete) };
}

/** Parses `git log -z --name-only --format=<RS>%ct` output. */
export function parseLog(output: string, complete = true): HistoryCommit[] {
  const records = output.split(RECORD).slice(1);
  if (!complete) records.pop();
  const commits: HistoryCommit[] = [];
  for (const record of records) {
    const end = record.indexOf('\0');
    const time = Number(end === -1 ? record : record.slice(0, end));
    if (!Number.isFinite(time)) continue;
    const files =
      end === -1
        ? []
        : record
            .slice(end + 1)
            .replace(/^\n/, '')
            .split('\0')
            .filter(Boolean);
    commits.push({ files, time });
  }
  return commits;
}
