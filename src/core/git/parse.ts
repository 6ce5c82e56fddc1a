// Parsers for git's machine-readable output. Pure functions: text in, data out.
import type { GitBranches, GitFileState, GitFileStatus, GitStatus } from './types.ts';

const STATES = new Set<string>(['M', 'T', 'A', 'D', 'R', 'C', 'U', '?', ' ']);

function state(letter: string | undefined): GitFileState {
  if (letter === '.' || letter === undefined) return ' ';
  return (STATES.has(letter) ? letter : 'M') as GitFileState;
}

/** Strips the workspace's prefix inside the repository (`sub/dir/`) from a repository path. */
function relativeTo(prefix: string, repoPath: string): string | null {
  if (!prefix) return repoPath;
  return repoPath.startsWith(prefix) ? repoPath.slice(prefix.length) : null;
}

/**
 * Parses `git status --porcelain=v2 --branch -z`. Paths in that format are relative to the
 * repository root; `prefix` (from `git rev-parse --show-prefix`) makes them relative to the
 * workspace, and entries outside it are dropped.
 */
export function parseStatus(output: string, prefix = ''): Omit<GitStatus, 'merging'> {
  const status: Omit<GitStatus, 'merging'> = {
    branch: null,
    detached: false,
    head: null,
    upstream: null,
    ahead: 0,
    behind: 0,
    files: [],
    clean: true,
  };
  const fields = output.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const record = fields[i]!;
    if (record === '') continue;
    const kind = record[0];
    if (kind === '#') {
      const [, key, ...rest] = record.split(' ');
      const value = rest.join(' ');
      if (key === 'branch.oid') status.head = value === '(initial)' ? null : value;
      else if (key === 'branch.head') {
        status.detached = value === '(detached)';
        status.branch = status.detached ? null : value;
      } else if (key === 'branch.upstream') status.upstream = value;
      else if (key === 'branch.ab') {
        const match = /^\+(\d+) -(\d+)$/.exec(value);
        if (match) {
          status.ahead = Number(match[1]);
          status.behind = Number(match[2]);
        }
      }
      continue;
    }
    let entry: GitFileStatus | null = null;
    if (kind === '1' || kind === '2' || kind === 'u') {
      // 1 XY sub mH mI mW hH hI path
      // 2 XY sub mH mI mW hH hI Xscore path \0 origPath
      // u XY sub m1 m2 m3 mW h1 h2 h3 path
      const fixed = kind === '1' ? 8 : kind === '2' ? 9 : 10;
      const parts = splitN(record, ' ', fixed);
      const xy = parts[1] ?? '..';
      const repoPath = parts[fixed] ?? '';
      const conflicted = kind === 'u';
      const index = state(xy[0]);
      entry = { path: repoPath, index, workingTree: state(xy[1]), staged: !conflicted && index !== ' ', conflicted };
      if (kind === '2') {
        const original = fields[++i] ?? '';
        const rel = relativeTo(prefix, original);
        if (rel !== null) entry.originalPath = rel;
      }
    } else if (kind === '?') {
      entry = { path: record.slice(2), index: '?', workingTree: '?', staged: false, conflicted: false };
    }
    if (!entry) continue; // '!' (ignored) or anything newer git may add.
    const rel = relativeTo(prefix, entry.path);
    if (rel === null || rel === '') continue;
    entry.path = rel;
    status.files.push(entry);
  }
  status.clean = status.files.length === 0;
  return status;
}

/** Splits on the first `n` separators; the rest (a path, which may hold spaces) is the last item. */
function splitN(text: string, separator: string, n: number): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let k = 0; k < n; k++) {
    const at = text.indexOf(separator, start);
    if (at < 0) break;
    parts.push(text.slice(start, at));
    start = at + separator.length;
  }
  parts.push(text.slice(start));
  return parts;
}

/** The `git for-each-ref` format `parseRefs` reads: NUL between fields, one ref a line. */
export const REF_FORMAT = '%(refname)%00%(objectname)%00%(upstream)%00%(HEAD)%00%(symref)';

function shortUpstream(ref: string): string | null {
  if (!ref) return null;
  if (ref.startsWith('refs/remotes/')) return ref.slice('refs/remotes/'.length);
  if (ref.startsWith('refs/heads/')) return ref.slice('refs/heads/'.length);
  return ref;
}

/**
 * Parses `git for-each-ref --format=REF_FORMAT refs/heads refs/remotes`. Ref names cannot
 * hold a newline or a NUL, so the split is exact. `remoteNames` (from `git remote`) tells the
 * remote part of `refs/remotes/<remote>/<branch>` when a remote's name holds a `/`.
 */
export function parseRefs(output: string, remoteNames: readonly string[] = []): Omit<GitBranches, 'current'> & { headBranch: string | null } {
  const result: Omit<GitBranches, 'current'> & { headBranch: string | null } = { branches: [], remotes: [], headBranch: null };
  for (const line of output.split('\n')) {
    if (!line) continue;
    const [refname = '', objectname = '', upstream = '', head = '', symref = ''] = line.split('\0');
    if (refname.startsWith('refs/heads/')) {
      const name = refname.slice('refs/heads/'.length);
      const current = head === '*';
      if (current) result.headBranch = name;
      result.branches.push({ name, current, upstream: shortUpstream(upstream), head: objectname });
    } else if (refname.startsWith('refs/remotes/')) {
      if (symref) continue; // origin/HEAD → origin/main: an alias, not a branch.
      const name = refname.slice('refs/remotes/'.length);
      const remote = [...remoteNames].sort((a, b) => b.length - a.length).find((r) => name.startsWith(`${r}/`)) ?? name.split('/')[0] ?? name;
      result.remotes.push({ name, remote, head: objectname });
    }
  }
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  result.branches.sort(byName);
  result.remotes.sort(byName);
  return result;
}

export interface PushRefResult {
  /** ` ` fast-forward, `+` forced, `-` deleted, `*` new, `!` rejected, `=` up to date. */
  flag: string;
  from: string;
  to: string;
  /** e.g. `1a2b3c4..5d6e7f8`, `[new branch]`, `[up to date]`, `[rejected] (fetch first)`. */
  summary: string;
}

/** Parses `git push --porcelain` (stdout): one tab-separated line per ref. */
export function parsePushPorcelain(output: string): PushRefResult[] {
  const refs: PushRefResult[] = [];
  for (const line of output.split('\n')) {
    const match = /^([ +\-*!=])\t([^\t]*)\t(.*)$/.exec(line);
    if (!match) continue;
    const [from = '', to = ''] = match[2]!.split(':');
    refs.push({ flag: match[1]!, from, to, summary: match[3]! });
  }
  return refs;
}

/** The first line of a commit message, as git's whitespace clean-up will leave it. */
export function summaryLine(message: string): string {
  const line = message.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.trimEnd();
}
