// Protected paths (docs/security.md, "Writes into the workspace, and protected paths"): what git or the app would run or trust, so
// that nothing Loom writes on a client's or a model's behalf may land there.
//
// - A git directory: a folder named `.git`, or any folder git would take as a repository's
//   directory by its content (`HEAD` beside `objects/` and `refs/`, or beside `commondir`):
//   the target of a `.git` file (`gitdir: …`, worktrees and submodules), a bare repository,
//   a `--separate-git-dir` folder. A write that would *make* a folder one (the last of those
//   entries) is refused too, so one cannot be assembled file by file.
// - `.loom`: the workspace's settings and the code the app trusts (`.loom/extensions/`).
//
// Names are compared as the file systems Loom may run on compare them, on every platform
// (a workspace on Linux may live on an NTFS or HFS+ volume): letter case folded, the
// code points HFS+ ignores removed, what NTFS drops or reads as a stream cut off (trailing
// dots and spaces, `:stream`), and the 8.3 short names NTFS gives them (`GIT~1`).
import fs from 'node:fs';
import path from 'node:path';

export type ProtectedName = '.git' | '.loom';

/** Why a path may not be written: a protected name on it, or a git directory around it. */
export type Protection = { kind: 'name'; name: ProtectedName; component: string } | { kind: 'git-directory'; folder: string; created: boolean };

const NAMES: readonly ProtectedName[] = ['.git', '.loom'];
/** NTFS 8.3 short names: `.git` → `GIT~1`, `.loom` → `LOOM~1` (`~2`… when the first is taken). */
const SHORT_NAME = /^(git|loom)~[0-9]+$/;
/** Code points HFS+ ignores in names (git's is_hfs_dotgit list is a subset of these). */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/** The protected name `name` stands for on some file system, or undefined. */
export function protectedName(name: string): ProtectedName | undefined {
  const stripped = name.replace(IGNORABLE, '').normalize('NFKC').replace(IGNORABLE, '');
  // NTFS: `.git::$INDEX_ALLOCATION` opens `.git`; `.git. . ` is `.git`.
  const ntfs = stripped.replace(/:.*$/s, '').replace(/[. ]+$/, '');
  // Both foldings: `ı` only becomes `i` through upper case.
  for (const folded of new Set([ntfs.toLowerCase(), ntfs.toUpperCase().toLowerCase()])) {
    const found = NAMES.find((protectedOne) => folded === protectedOne);
    if (found) return found;
    const short = SHORT_NAME.exec(folded);
    if (short) return `.${short[1]}` as ProtectedName;
  }
  return undefined;
}

/** The components of a path, split at `/` and at `\` (a separator on Windows, so refused everywhere). */
function components(absolute: string): string[] {
  return absolute.split(/[\\/]+/).filter(Boolean);
}

/**
 * Why writing `target` is refused, or undefined when it may be written. `target` is the
 * absolute path that will be created or replaced, its folders' real paths with the last
 * name as the write will use it; `written` is the path as the request named it (resolved
 * against the workspace, not through symlinks). Every folder from the target up to the
 * file system's root is checked, so a workspace opened inside a git directory is read-only.
 */
export function protection(target: string, written: string = target): Protection | undefined {
  for (const candidate of [written, target]) {
    for (const component of components(candidate)) {
      const name = protectedName(component);
      if (name) return { kind: 'name', name, component };
    }
  }
  // The target itself, when it is a folder (a rename or removal of one; a symlink is not followed).
  if (isFolder(target) && isGitDirectory(target)) return { kind: 'git-directory', folder: target, created: false };
  let child = target;
  for (let folder = path.dirname(target); ; folder = path.dirname(folder)) {
    if (isGitDirectory(folder, path.basename(child))) return { kind: 'git-directory', folder, created: !isGitDirectory(folder) };
    if (path.dirname(folder) === folder) return undefined;
    child = folder;
  }
}

/**
 * Whether git would take `folder` as a repository's directory (setup.c is_git_directory:
 * `HEAD`, and `objects/` with `refs/` or a `commondir` file), counting `adding` as present
 * when it is given: the entry a write is about to create there. Stricter than git: HEAD's
 * content is not checked, and names are compared without case.
 */
export function isGitDirectory(folder: string, adding?: string): boolean {
  const added = adding?.toLowerCase();
  const has = (entry: string) => added === entry.toLowerCase() || exists(path.join(folder, entry));
  return has('HEAD') && ((has('objects') && has('refs')) || has('commondir'));
}

function isFolder(entry: string): boolean {
  return fs.lstatSync(entry, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

function exists(entry: string): boolean {
  try {
    fs.lstatSync(entry);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

/**
 * The first protected path inside `folder` (not following symlinks), or undefined: moving a
 * folder must not carry a git directory or `.loom` to a name that is not protected.
 */
export function protectedInside(folder: string): string | undefined {
  const pending = [folder];
  while (pending.length) {
    const current = pending.pop()!;
    if (current !== folder && isGitDirectory(current)) return current;
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (protectedName(entry.name)) return full;
      if (entry.isDirectory()) pending.push(full);
    }
  }
  return undefined;
}
