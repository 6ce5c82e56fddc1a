// Every walk of a workspace — an agent's globs, its list and search tools, the builtin model's
// corpus, a composer session's scratch copy — goes through this one walker, so one rule holds:
// a symbolic link is followed only when its target is admitted by the workspace's gate
// (WorkspacePaths.admits: inside the workspace, not in .git or .loom, not in one of Loom's own
// folders), never into a folder it is already in (a loop), and into any one folder once per
// walk (links that fan out — a folder holding three links to one holding three links… — would
// otherwise make the walk exponential). A walk that starts below a link leading out is refused
// as a path would be (forbidden_path). The walk keeps its own stack rather than recursing, so a
// deep tree cannot exhaust the call stack, and it reads at most MAX_WALK_FOLDERS folders.
import fs from 'node:fs/promises';
import path from 'node:path';
import { isInside, type WorkspacePaths } from './paths.ts';
import { protectedName } from './protected.ts';

/** Folders one walk reads at most; past them it ends, `truncated`. */
export const MAX_WALK_FOLDERS = 50_000;

/** A file a walk found: its path as the walk reached it, and where it really is. */
export interface WorkspaceFile {
  /** Workspace-relative with `/`, through the links the walk followed (`alias/a.ts`). */
  path: string;
  /** Absolute real path, inside the workspace. */
  real: string;
}

export interface WorkspaceWalkOptions {
  /** Folders not entered, by name (dependencies, build output); the walk's first folder is always entered. */
  skipsFolder?: (name: string) => boolean;
  signal?: AbortSignal;
  /** Folders read at most (default MAX_WALK_FOLDERS). */
  maxFolders?: number;
}

/** The folders a folder was reached through, by real path: a link back to any of them is a loop. */
interface Chain {
  real: string;
  up?: Chain;
}

type Pending = { kind: 'file'; path: string; real: string } | { kind: 'folder'; path: string; real: string; chain: Chain };

/**
 * The regular files under `base` (a workspace-relative folder, '' for the workspace), depth
 * first in name order, `.git` and `.loom` never entered. Throws LoomError forbidden_path when
 * `base` leads out of the workspace, protected_path when it is in one of Loom's folders; a
 * base that is missing or not a folder has no files.
 *
 * @example
 * const walk = new WorkspaceWalk(paths, 'src', { skipsFolder: (name) => name === 'node_modules' });
 * for await (const file of walk) console.log(file.path); // src/a.ts, src/lib/b.ts, …
 * walk.truncated; // true when MAX_WALK_FOLDERS folders were read before the end
 */
export class WorkspaceWalk implements AsyncIterable<WorkspaceFile> {
  private ended = false;
  private folders = 0;
  /** Folders entered through a link so far, by real path. */
  private readonly linked = new Set<string>();

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly base: string,
    private readonly options: WorkspaceWalkOptions = {},
  ) {}

  /** Whether the walk stopped at its folder limit before the end. */
  get truncated(): boolean {
    return this.ended;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WorkspaceFile> {
    const start = await this.start();
    if (!start) return;
    const pending: Pending[] = [start];
    const limit = this.options.maxFolders ?? MAX_WALK_FOLDERS;
    while (pending.length > 0) {
      this.options.signal?.throwIfAborted();
      const item = pending.pop()!;
      if (item.kind === 'file') {
        yield { path: item.path, real: item.real };
        continue;
      }
      if (++this.folders > limit) {
        this.ended = true;
        return;
      }
      const children = await this.children(item);
      for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!);
    }
  }

  /** The first folder, or undefined when there is nothing to walk. */
  private async start(): Promise<Pending | undefined> {
    if (this.base === '') return { kind: 'folder', path: '', real: this.paths.root, chain: { real: this.paths.root } };
    // Named through .git or .loom: never listed (reading a file there is another matter).
    if (this.base.split('/').some((name) => protectedName(name) !== undefined)) return undefined;
    const real = this.paths.resolve(this.base);
    if (!this.paths.admits(real)) return undefined;
    const stat = await fs.stat(real).catch(() => undefined);
    return stat?.isDirectory() ? { kind: 'folder', path: this.base, real, chain: { real } } : undefined;
  }

  /** A folder's entries to visit, in name order. */
  private async children(folder: Extract<Pending, { kind: 'folder' }>): Promise<Pending[]> {
    let entries;
    try {
      entries = await fs.readdir(folder.real, { withFileTypes: true });
    } catch {
      return []; // gone or unreadable: nothing to list there
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const skips = this.options.skipsFolder ?? (() => false);
    const out: Pending[] = [];
    for (const entry of entries) {
      if (protectedName(entry.name)) continue;
      const shown = folder.path === '' ? entry.name : `${folder.path}/${entry.name}`;
      const absolute = path.join(folder.real, entry.name);
      if (entry.isDirectory()) {
        if (!skips(entry.name) && !this.paths.loomFolderOf(absolute))
          out.push({ kind: 'folder', path: shown, real: absolute, chain: { real: absolute, up: folder.chain } });
      } else if (entry.isFile()) {
        out.push({ kind: 'file', path: shown, real: absolute });
      } else if (entry.isSymbolicLink()) {
        const target = await this.follow(absolute);
        if (target?.folder) {
          if (skips(entry.name) || loops(target.real, folder) || this.linked.has(target.real)) continue;
          this.linked.add(target.real);
          out.push({ kind: 'folder', path: shown, real: target.real, chain: { real: target.real, up: folder.chain } });
        } else if (target) out.push({ kind: 'file', path: shown, real: target.real });
      }
    }
    return out;
  }

  /** Where a link leads, when the walk may follow it there; undefined for a dangling link, a loop of links, or a target not admitted. */
  private async follow(link: string): Promise<{ real: string; folder: boolean } | undefined> {
    try {
      const real = await fs.realpath(link);
      if (!this.paths.admits(real)) return undefined;
      const stat = await fs.stat(real);
      if (stat.isDirectory()) return { real, folder: true };
      return stat.isFile() ? { real, folder: false } : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Whether entering `target` from `folder` would come back round: it holds `folder`, or the walk came through it. */
function loops(target: string, folder: { real: string; chain: Chain }): boolean {
  if (isInside(target, folder.real)) return true;
  for (let link: Chain | undefined = folder.chain; link; link = link.up) if (link.real === target) return true;
  return false;
}
