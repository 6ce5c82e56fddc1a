// A folder of the workspace as the window's file tree shows it: folders first, then files,
// each by name. What the tree must not lead into is left out: `.git` and `.loom` (under any name
// a file system takes for them), Loom's own folders, and symlinks whose target the workspace's
// gate does not admit (outside the workspace, in a protected path), is missing, or is neither a
// file nor a folder. Listing a protected folder itself is refused.
import fs from 'node:fs';
import path from 'node:path';
import type { FolderEntry, FolderListing } from '../../contracts/local-resources.ts';
import { LoomError } from '../errors.ts';
import { withFileSystemErrors } from '../files/fs-errors.ts';
import type { WorkspacePaths } from './paths.ts';
import { protectedName } from './protected.ts';

/** Entries listed at most per folder (a tree of a million files is not read whole). */
export const MAX_FOLDER_ENTRIES = 5000;

/**
 * Lists `relative` ('' or undefined: the workspace).
 *
 * @example
 *   listFolderOf(new WorkspacePaths('/work/project'), 'src') // { path: 'src', entries: [{ name: 'a.ts', path: 'src/a.ts', kind: 'file' }] }
 */
export function listFolderOf(paths: WorkspacePaths, relative: string | undefined): FolderListing {
  const wanted = relative === undefined || relative === '' || relative === '.' ? undefined : relative;
  const folder = wanted === undefined ? paths.root : paths.resolve(wanted);
  const key = paths.relative(folder);
  if (key.split('/').some((component) => protectedName(component))) {
    throw new LoomError('protected_path', `${key} is in .git or .loom, which the window does not show.`);
  }
  const names = withFileSystemErrors(key || '.', () => {
    const stat = fs.statSync(folder);
    if (!stat.isDirectory()) throw new LoomError('not_a_folder', `${key} is a file, not a folder.`);
    return fs.readdirSync(folder);
  });
  const entries: FolderEntry[] = [];
  for (const name of names) {
    if (entries.length >= MAX_FOLDER_ENTRIES) break;
    if (protectedName(name)) continue;
    const kind = kindOf(paths, path.join(folder, name));
    if (kind) entries.push({ name, path: key ? `${key}/${name}` : name, kind });
  }
  entries.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'folder' ? -1 : 1));
  return { path: key, entries };
}

/** A file or a folder (symlinks followed where the workspace's gate admits their target); undefined for anything else. */
function kindOf(paths: WorkspacePaths, absolute: string): FolderEntry['kind'] | undefined {
  try {
    const link = fs.lstatSync(absolute).isSymbolicLink();
    if (!paths.admits(link ? fs.realpathSync.native(absolute) : absolute)) return undefined;
    const stat = fs.statSync(absolute);
    if (stat.isDirectory()) return 'folder';
    if (stat.isFile()) return 'file';
  } catch {
    // Gone since the folder was read, a dangling symlink, a loop: not shown.
  }
  return undefined;
}
