// The localization instances (/work/shared/bench-data/localization, or LOOM_BENCH_LOCALIZATION)
// and their workspaces: a checkout of each instance's `parent` with its history up to it, made
// once from a clone of the repository and kept in a cache folder.
//
// Where the clones are: LOOM_BENCH_REPOS, a folder holding one clone per repository at
// <owner>/<name> (a bare clone or one with a work tree), for example
//   git clone --bare https://github.com/honojs/hono "$LOOM_BENCH_REPOS/honojs/hono"
// Where the workspaces go: LOOM_BENCH_CACHE (default <tmp>/loom-bench-localization).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Instance {
  repo: string;
  commit: string;
  parent: string;
  query: string;
  gold: string[];
}

export const DEFAULT_INSTANCES = '/work/shared/bench-data/localization';

/** Every instance of every `*.jsonl` file in `folder`, file by file, line by line. */
export function readInstances(folder: string): Instance[] {
  const instances: Instance[] = [];
  for (const name of fs
    .readdirSync(folder)
    .filter((entry) => entry.endsWith('.jsonl'))
    .sort()) {
    for (const line of fs.readFileSync(path.join(folder, name), 'utf8').split('\n')) {
      if (line.trim()) instances.push(JSON.parse(line) as Instance);
    }
  }
  return instances;
}

/** The git directory of `repo`'s clone under `reposFolder`, or undefined when there is none. */
export function cloneOf(reposFolder: string, repo: string): string | undefined {
  const folder = path.join(reposFolder, ...repo.split('/'));
  if (!fs.existsSync(folder)) return undefined;
  try {
    const gitDir = execFileSync('git', ['-C', folder, 'rev-parse', '--absolute-git-dir'], { encoding: 'utf8' }).trim();
    return gitDir || undefined;
  } catch {
    return undefined;
  }
}

function git(args: string[], cwd?: string, input?: string): Buffer {
  return execFileSync('git', args, { cwd, input, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'pipe'] });
}

/**
 * The workspace of `instance`: `parent` checked out, with history up to it and no ref that points
 * past it. Made once under `cacheFolder`, then reused.
 */
export function workspaceOf(instance: Instance, clone: string, cacheFolder: string): string {
  const root = path.join(cacheFolder, instance.repo.replace('/', '+'), instance.parent);
  if (fs.existsSync(path.join(root, '.git', 'loom-bench-ready'))) return root;
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(root), { recursive: true });
  git(['clone', '-q', '--no-checkout', '--shared', clone, root]);
  // The clone's refs (branches, tags, the remote's) point past `parent`: only HEAD stays.
  git(['-C', root, 'update-ref', '--no-deref', 'HEAD', instance.parent]);
  const refs = git(['-C', root, 'for-each-ref', '--format=delete %(refname)']).toString();
  git(['-C', root, 'update-ref', '--no-deref', '--stdin'], undefined, refs);
  git(['-C', root, 'reflog', 'expire', '--expire=now', '--all']);
  writeTree(root, instance.parent);
  fs.writeFileSync(path.join(root, '.git', 'loom-bench-ready'), '');
  return root;
}

// The tree's files written one by one (a checkout stops at the first object a partial copy
// lacks); missing objects are skipped. The index is then refreshed so that `git status` agrees.
function writeTree(root: string, commit: string): void {
  const entries = git(['-C', root, 'ls-tree', '-r', '-z', commit])
    .toString()
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [meta, file] = line.split('\t') as [string, string];
      const [mode, type, object] = meta.split(' ') as [string, string, string];
      return { mode, type, object, file };
    })
    .filter((entry) => entry.type === 'blob' && entry.mode !== '120000');
  const batch = git(['-C', root, 'cat-file', '--batch'], undefined, entries.map((entry) => entry.object).join('\n') + '\n');
  let offset = 0;
  for (const entry of entries) {
    const headerEnd = batch.indexOf(10, offset);
    const header = batch.subarray(offset, headerEnd).toString();
    offset = headerEnd + 1;
    if (header.endsWith(' missing')) continue;
    const size = Number(header.split(' ')[2]);
    const target = path.join(root, entry.file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, batch.subarray(offset, offset + size));
    offset += size + 1;
  }
  try {
    git(['-C', root, 'read-tree', commit]);
  } catch {
    // A tree with missing objects: history still answers, status does not matter here.
  }
}

/** The cache folder for workspaces. */
export function cacheFolder(): string {
  return process.env.LOOM_BENCH_CACHE || path.join(os.tmpdir(), 'loom-bench-localization');
}
