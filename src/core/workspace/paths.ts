// Every path an edit, an agent or a glob touches must resolve inside the workspace, symlinks
// included, and nothing Loom writes lands in a protected path: git directories and .loom, see
// protected.ts (docs/security.md, "Writes into the workspace, and protected paths"). This
// class is the one gate: reads resolve through `resolve`, and every write into the
// workspace — the editor's save now, agents' create, delete and rename next — goes through
// `writeFile`, `remove` or `rename`, which check and write in one synchronous step, so no
// other request can change the path in between. No workspace configured means refuse.
import fs from 'node:fs';
import path from 'node:path';
import { LoomError } from '../errors.ts';
import { withFileSystemErrors } from '../files/fs-errors.ts';
import { inHeldFolder } from '../files/held-folder.ts';
import { writeFileAtomically } from '../files/write-atomically.ts';
import { protectedInside, protection, type Protection } from './protected.ts';

/** Whether `candidate` (absolute) is `root` or lies under it. */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * The real path of `absolute`, every symlink followed, also when its last components do not
 * exist (a deleted file) or it is a symlink whose target does not exist. Throws the file
 * system's error (ELOOP, ENAMETOOLONG, EACCES…) for the caller to map.
 */
export function realpathLoose(absolute: string, hops = 0): string {
  if (hops > 40) throw Object.assign(new Error('too many symbolic links'), { code: 'ELOOP' });
  try {
    return fs.realpathSync.native(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  const realParent = realpathLoose(parent, hops);
  const here = path.join(realParent, path.basename(absolute));
  let target: string;
  try {
    target = fs.readlinkSync(here);
  } catch {
    return here; // Missing, or not a symlink.
  }
  // A symlink whose target is missing: follow it by hand.
  return realpathLoose(path.resolve(realParent, target), hops + 1);
}

export class WorkspacePaths {
  readonly root: string;

  constructor(root: string) {
    this.root = fs.realpathSync.native(root);
  }

  /**
   * For reading: the absolute real path of `relative` inside the workspace, every symlink
   * followed (also one whose target does not exist). Throws LoomError forbidden_path when it
   * lands outside, and the mapped file-system error when it cannot be resolved (a loop of
   * symlinks, a name too long).
   */
  resolve(relative: string): string {
    return this.realInside(relative, this.lexical(relative));
  }

  /**
   * For writing the content of `relative`: its real path (a symlink inside the workspace is
   * followed, so the file it points to is written), refused with protected_path when that, or
   * the path as written, is protected.
   */
  resolveForWrite(relative: string): string {
    const absolute = this.lexical(relative);
    const real = this.realInside(relative, absolute);
    // Its folder would be the one around the workspace, where nothing is written, not even a temporary file.
    if (real === this.root) throw new LoomError('not_a_file', `${relative} is the workspace folder itself, not a file.`);
    this.refuseProtected(relative, real, absolute);
    return real;
  }

  /**
   * For creating, removing or renaming the entry `relative` itself: its folder's real path
   * with its own name (a symlink is the entry, not followed). Refused like resolveForWrite.
   */
  resolveEntryForWrite(relative: string): string {
    const absolute = this.lexical(relative);
    const folder = withFileSystemErrors(relative, () => realpathLoose(path.dirname(absolute)));
    const entry = path.join(folder, path.basename(absolute));
    if (entry === this.root || !isInside(this.root, entry)) throw outside(relative);
    this.refuseProtected(relative, entry, absolute);
    return entry;
  }

  /** Whether Loom may write at the real path `real` (documents opened elsewhere are read-only). */
  isWritable(real: string): boolean {
    return isInside(this.root, real) && withFileSystemErrors(this.relative(real), () => protection(real)) === undefined;
  }

  /**
   * Writes `text` to `relative` atomically (temporary file, fsync, rename), creating missing
   * folders, after the checks of resolveForWrite. `at`, when given, is the real path the caller
   * expects: if the path now leads elsewhere (a folder on it became a symlink), nothing is
   * written (edit_conflict). Returns the real path written.
   */
  writeFile(relative: string, text: string, options: { at?: string } = {}): string {
    const target = this.resolveForWrite(relative);
    if (options.at !== undefined && options.at !== target) {
      throw new LoomError(
        'edit_conflict',
        `${relative} now leads to ${this.relative(target)} (a folder on its path was moved or replaced by a symbolic link); nothing was written.`,
        'Open the file again.',
      );
    }
    withFileSystemErrors(relative, () => {
      const folder = path.dirname(target);
      fs.mkdirSync(folder, { recursive: true });
      inHeldFolder(folder, relative, (base) => writeFileAtomically(path.join(base, path.basename(target)), text));
    });
    return target;
  }

  /** Removes a file, a symlink (not its target) or an empty folder. */
  remove(relative: string): void {
    const entry = this.resolveEntryForWrite(relative);
    withFileSystemErrors(relative, () => {
      const folder = fs.lstatSync(entry).isDirectory();
      inHeldFolder(path.dirname(entry), relative, (base) => {
        const held = path.join(base, path.basename(entry));
        if (folder) fs.rmdirSync(held);
        else fs.unlinkSync(held);
      });
    });
  }

  /**
   * Renames a file, a symlink or a folder. Both ends are checked like resolveEntryForWrite;
   * a folder that holds a protected path is not moved; an existing target is never replaced
   * (already_exists). Missing folders of the target are created.
   */
  rename(from: string, to: string): void {
    const source = this.resolveEntryForWrite(from);
    const target = this.resolveEntryForWrite(to);
    withFileSystemErrors(from, () => {
      const stat = fs.lstatSync(source);
      if (stat.isDirectory()) {
        const inside = protectedInside(source);
        if (inside) throw new LoomError('protected_path', `${from} holds ${this.relative(inside)}, a protected path; Loom does not move it.`, PROTECTED_HINT);
      }
      const existing = fs.lstatSync(target, { throwIfNoEntry: false });
      // The same entry under another letter case (a case-insensitive file system) is a rename, not a clash.
      if (existing && !(existing.ino === stat.ino && existing.dev === stat.dev)) {
        throw new LoomError('already_exists', `${to} already exists; nothing was renamed.`);
      }
      fs.mkdirSync(path.dirname(target), { recursive: true });
      inHeldFolder(path.dirname(source), from, (sourceBase) =>
        inHeldFolder(path.dirname(target), to, (targetBase) =>
          fs.renameSync(path.join(sourceBase, path.basename(source)), path.join(targetBase, path.basename(target))),
        ),
      );
    });
  }

  /** The workspace-relative form of an absolute path inside it, with forward slashes. */
  relative(absolute: string): string {
    return path.relative(this.root, absolute).split(path.sep).join('/');
  }

  /** `relative` resolved against the workspace without touching the disk; refused outside it. */
  private lexical(relative: string): string {
    if (typeof relative !== 'string' || relative.length === 0 || relative.includes('\0')) {
      throw new LoomError('validation_error', 'A path is required, without NUL characters.');
    }
    const absolute = path.resolve(this.root, relative);
    if (!isInside(this.root, absolute)) throw outside(relative);
    return absolute;
  }

  private realInside(relative: string, absolute: string): string {
    const real = withFileSystemErrors(relative, () => realpathLoose(absolute));
    if (!isInside(this.root, real)) throw outside(relative);
    return real;
  }

  private refuseProtected(relative: string, target: string, written: string): void {
    const found = withFileSystemErrors(relative, () => protection(target, written));
    if (found) throw new LoomError('protected_path', this.describe(relative, found), PROTECTED_HINT);
  }

  private describe(relative: string, found: Protection): string {
    if (found.kind === 'name') {
      const alias = found.component === found.name ? '' : ` ("${found.component}" is ${found.name} on some file systems)`;
      const what = found.name === '.git' ? 'a git directory (.git)' : '.loom (the settings and extensions Loom trusts)';
      return `${relative} is in ${what} or would create it${alias}; Loom never writes there.`;
    }
    const folder = isInside(this.root, found.folder) ? this.relative(found.folder) || 'the workspace folder' : 'a folder around the workspace';
    return found.created
      ? `${relative} would make ${folder} a git directory (HEAD beside objects/ and refs/); Loom never writes that.`
      : `${relative} is inside ${folder}, which git uses as a repository's directory; Loom never writes there.`;
  }
}

const PROTECTED_HINT = 'Git changes its own files through git commands (the /api/git routes); .loom is changed by the app, not through file writes.';

function outside(relative: string): LoomError {
  return new LoomError('forbidden_path', `${relative} is outside the workspace.`);
}
