// The workspace's files as an agent sees them: regular files, workspace-relative with `/`, in
// name order. Git directories and .loom are never listed (nothing there is the project's
// code, and nothing there may be written); folders of dependencies and tool state are skipped
// unless the walk starts inside one (a glob that names `node_modules/x/**` means it).
// Symbolic links are not followed: they loop, or lead out of the workspace.
import fs from 'node:fs/promises';
import path from 'node:path';
import { protectedName } from '../../workspace/protected.ts';

/** Folders that hold dependencies or caches, not code anyone asks an agent to change. */
const SKIPPED_FOLDERS = new Set([
  'node_modules',
  'bower_components',
  '__pycache__',
  '.venv',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.gradle',
  '.next',
  '.nuxt',
  '.cache',
]);

/** A file and its size in bytes. */
export interface WalkedFile {
  /** Workspace-relative, `/`-separated. */
  path: string;
  size: number;
}

export interface WalkOptions {
  /** Stop after this many files (the caller says there were more). */
  limit: number;
  signal?: AbortSignal;
}

/**
 * The files under `base` (a workspace-relative folder, '' for the whole workspace) that `keep`
 * accepts, workspace-relative, depth first in name order, at most `limit` of them; `truncated`
 * when more were left.
 */
export async function walkFiles(
  root: string,
  base: string,
  keep: (path: string) => boolean,
  options: WalkOptions,
): Promise<{ files: string[]; truncated: boolean }> {
  const files: string[] = [];
  let truncated = false;
  const visit = async (folder: string): Promise<void> => {
    options.signal?.throwIfAborted();
    let entries;
    try {
      entries = await fs.readdir(path.join(root, folder), { withFileTypes: true });
    } catch {
      return; // missing or unreadable: nothing to list there
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (truncated) return;
      if (protectedName(entry.name)) continue;
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) await visit(relative);
      } else if (entry.isFile() && keep(relative)) {
        if (files.length >= options.limit) {
          truncated = true;
          return;
        }
        files.push(relative);
      }
    }
  };
  if (base === '' || !base.split('/').some((name) => protectedName(name) !== undefined)) await visit(base);
  return { files, truncated };
}

/** The sizes of workspace files (one gone meanwhile is left out). */
export async function withSizes(root: string, files: readonly string[]): Promise<WalkedFile[]> {
  const sized = await Promise.all(files.map(async (file) => ({ path: file, size: (await fs.stat(path.join(root, file)).catch(() => undefined))?.size })));
  return sized.filter((file): file is WalkedFile => file.size !== undefined);
}
