// The workspace's files as an agent sees them: regular files, workspace-relative with `/`, in
// name order. Git directories and .loom are never listed (nothing there is the project's
// code, and nothing there may be written); folders of dependencies and tool state are skipped
// unless the walk starts inside one (a glob that names `node_modules/x/**` means it).
// Symbolic links are followed as the workspace's walk follows them (workspace/walk.ts): only to
// targets inside the workspace and outside its protected paths, never round a loop; a glob
// whose folder leads out of the workspace is refused (forbidden_path).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { WorkspacePaths } from '../../workspace/paths.ts';
import { WorkspaceWalk } from '../../workspace/walk.ts';

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
 * when more were left. Throws LoomError forbidden_path (or protected_path) for a base the
 * workspace's gate refuses.
 *
 * @example
 * const { files } = await walkFiles(paths, 'src', (file) => file.endsWith('.ts'), { limit: 500 });
 */
export async function walkFiles(
  workspace: WorkspacePaths,
  base: string,
  keep: (path: string) => boolean,
  options: WalkOptions,
): Promise<{ files: string[]; truncated: boolean }> {
  const files: string[] = [];
  const walk = new WorkspaceWalk(workspace, base, { skipsFolder: (name) => SKIPPED_FOLDERS.has(name), signal: options.signal });
  for await (const file of walk) {
    if (!keep(file.path)) continue;
    if (files.length >= options.limit) return { files, truncated: true };
    files.push(file.path);
  }
  return { files, truncated: walk.truncated };
}

/** The sizes of workspace files (one gone meanwhile, or that no longer leads where a walk may go, is left out). */
export async function withSizes(workspace: WorkspacePaths, files: readonly string[]): Promise<WalkedFile[]> {
  const sizeOf = async (file: string) => {
    const real = await fs.realpath(path.join(workspace.root, file)).catch(() => undefined);
    return real !== undefined && workspace.admits(real) ? (await fs.stat(real).catch(() => undefined))?.size : undefined;
  };
  const sized = await Promise.all(files.map(async (file) => ({ path: file, size: await sizeOf(file) })));
  return sized.filter((file): file is WalkedFile => file.size !== undefined);
}
