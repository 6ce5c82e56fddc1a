// Every path an edit, an agent or a glob touches must resolve inside the workspace, symlinks
// included, and nothing Loom writes lands in a protected path: git directories and .loom, see
// protected.ts (docs/security.md, "Writes into the workspace, and protected paths"). Loom's own
// folders (config, data, models) are protected for reading too when they lie inside the
// workspace: settings.json holds the API token and the commands agents may run. This class is
// the one gate: reads resolve through `resolve`, walks follow a symbolic link only where
// `admits` says (walk.ts), and every write into the workspace goes through `writeFile`,
// `remove` or `rename`, which check and write in one synchronous step, so no other request can
// change the path in between. No workspace configured means refuse.
import fs from 'node:fs';
import path from 'node:path';
import { LoomError } from '../errors.ts';
import { withFileSystemErrors } from '../files/fs-errors.ts';
import { inHeldFolder } from '../files/held-folder.ts';
import { writeFileAtomically } from '../files/write-atomically.ts';
import { isGitDirectory, protectedInside, protectedName, protection, type Protection } from './protected.ts';

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

/** One of Loom's own folders, which nothing reads or writes through a workspace that holds it. */
export interface LoomFolder {
  /** Absolute. */
  path: string;
  /** What it is, for messages: "Loom's config folder". */
  what: string;
}

export interface WorkspacePathsOptions {
  /**
   * Loom's config, data and models folders (loomFolders in config/folders.ts). Those that lie
   * inside the workspace are protected paths, for reading as well as writing.
   */
  loomFolders?: readonly LoomFolder[];
}

export class WorkspacePaths {
  readonly root: string;
  /** Loom's folders inside the workspace, by real path. */
  readonly loomFolders: readonly LoomFolder[];

  constructor(root: string, options: WorkspacePathsOptions = {}) {
    this.root = fs.realpathSync.native(root);
    this.loomFolders = (options.loomFolders ?? []).flatMap((folder) => {
      const real = realOrAsGiven(path.resolve(folder.path));
      return isInside(this.root, real) ? [{ path: real, what: folder.what }] : [];
    });
  }

  /**
   * The Loom folder that holds the absolute path `candidate`, if any. Compared without letter
   * case: on a case-insensitive file system `.Config/Loom` is the same folder.
   */
  loomFolderOf(candidate: string): LoomFolder | undefined {
    if (this.loomFolders.length === 0) return undefined;
    const folded = candidate.toLowerCase();
    return this.loomFolders.find((folder) => isInside(folder.path.toLowerCase(), folded));
  }

  /**
   * Whether a walk may show, or enter, the real path `real`: inside the workspace, with no
   * `.git` or `.loom` on its way from the workspace folder, and not in one of Loom's folders.
   * A symbolic link is followed only when its target is admitted.
   */
  admits(real: string): boolean {
    if (!isInside(this.root, real)) return false;
    const relative = path.relative(this.root, real);
    if (relative !== '' && relative.split(/[\\/]+/).some((component) => protectedName(component) !== undefined)) return false;
    return this.loomFolderOf(real) === undefined;
  }

  /**
   * For reading: the absolute real path of `relative` inside the workspace, every symlink
   * followed (also one whose target does not exist). Throws LoomError forbidden_path when it
   * lands outside, protected_path when it (or the path as written) is in one of Loom's folders,
   * and the mapped file-system error when it cannot be resolved (a loop of symlinks, a name
   * too long).
   */
  resolve(relative: string): string {
    const absolute = this.lexical(relative);
    const real = this.realInside(relative, absolute);
    this.refuseLoomFolder(relative, real, absolute);
    return real;
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
    return isInside(this.root, real) && !this.loomFolderOf(real) && withFileSystemErrors(this.relative(real), () => protection(real)) === undefined;
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

  /**
   * Writes a file of the workspace's own extensions, `.loom/extensions/<folder>/…`, which every
   * other write refuses: the code a trusted workspace runs. Only the signed-in window of a
   * trusted workspace may ask (the caller checks; docs/security.md, "Who may run code"). The
   * path must be spelled exactly so (no other spelling of `.loom`, no `..`), nothing on it may
   * be a symbolic link (its real path is the path as written), nothing below
   * `.loom/extensions` may be protected (`.git`, `.loom`, a folder git would take for a
   * repository's), and it may not be in Loom's own folders. Returns the real path written.
   *
   * @example
   *   paths.writeExtensionFile('.loom/extensions/hello/extension.js', source);
   */
  writeExtensionFile(relative: string, text: string): string {
    const absolute = this.lexical(relative);
    const components = path.relative(this.root, absolute).split(path.sep);
    const refuse = (why: string) =>
      new LoomError(
        'protected_path',
        `${relative} ${why}.`,
        "A file of the workspace's extensions is .loom/extensions/<extension>/<file>, spelled so, with no symbolic link on the way.",
      );
    if (components[0] !== '.loom' || components[1] !== 'extensions' || components.length < 4) {
      throw refuse('is not a file inside a folder of .loom/extensions');
    }
    if (relative.split(/[\\/]+/).some((component) => component === '..' || component === '.')) throw refuse('names . or ..');
    const below = components.slice(2);
    const found = below.find((component) => protectedName(component) !== undefined);
    if (found) throw refuse(`holds ${found}, a protected name`);
    const real = withFileSystemErrors(relative, () => realpathLoose(absolute));
    if (real !== absolute) throw refuse('goes through a symbolic link');
    this.refuseLoomFolder(relative, real, absolute);
    const extensions = path.join(this.root, '.loom', 'extensions');
    for (let folder = path.dirname(real), child = real; folder.length > extensions.length; child = folder, folder = path.dirname(folder)) {
      if (withFileSystemErrors(relative, () => isGitDirectory(folder, path.basename(child)))) throw refuse('would be in, or make, a git directory');
    }
    if (withFileSystemErrors(relative, () => fs.lstatSync(real, { throwIfNoEntry: false })?.isDirectory())) {
      throw new LoomError('not_a_file', `${relative} is a folder.`);
    }
    withFileSystemErrors(relative, () => {
      const folder = path.dirname(real);
      fs.mkdirSync(folder, { recursive: true });
      inHeldFolder(folder, relative, (base) => writeFileAtomically(path.join(base, path.basename(real)), text));
    });
    return real;
  }

  /**
   * Removes a file, a symlink (not its target) or an empty folder; with `recursive`, a folder
   * and everything in it (symlinks inside are removed, never followed), unless it holds a
   * protected path or one of Loom's folders (checked like rename's, nothing removed then).
   */
  remove(relative: string, options: { recursive?: boolean } = {}): void {
    const entry = this.resolveEntryForWrite(relative);
    withFileSystemErrors(relative, () => {
      const folder = fs.lstatSync(entry).isDirectory();
      if (folder && options.recursive) this.refuseProtectedInside(relative, entry, 'remove');
      inHeldFolder(path.dirname(entry), relative, (base) => {
        const held = path.join(base, path.basename(entry));
        if (folder && options.recursive) fs.rmSync(held, { recursive: true });
        else if (folder) fs.rmdirSync(held);
        else fs.unlinkSync(held);
      });
    });
  }

  /**
   * Creates the folder `relative` (and the missing folders on its way), checked like
   * resolveEntryForWrite; already_exists when anything is there.
   *
   * @example
   *   paths.makeFolder('src/widgets');
   */
  makeFolder(relative: string): string {
    const entry = this.resolveEntryForWrite(relative);
    withFileSystemErrors(relative, () => {
      if (fs.lstatSync(entry, { throwIfNoEntry: false })) throw new LoomError('already_exists', `${relative} already exists.`);
      fs.mkdirSync(path.dirname(entry), { recursive: true });
      inHeldFolder(path.dirname(entry), relative, (base) => fs.mkdirSync(path.join(base, path.basename(entry))));
    });
    return entry;
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
      if (stat.isDirectory()) this.refuseProtectedInside(from, source, 'move');
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

  /** Refuses to move or remove the folder `folder` (real) when it holds one of Loom's folders or a protected path. */
  private refuseProtectedInside(relative: string, folder: string, verb: 'move' | 'remove'): void {
    const loom = this.loomFolders.find((candidate) => isInside(folder.toLowerCase(), candidate.path.toLowerCase()));
    if (loom) throw new LoomError('protected_path', `${relative} holds ${this.relative(loom.path)}, ${loom.what}; Loom does not ${verb} it.`, LOOM_HINT);
    const inside = protectedInside(folder);
    if (inside)
      throw new LoomError('protected_path', `${relative} holds ${this.relative(inside)}, a protected path; Loom does not ${verb} it.`, PROTECTED_HINT);
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
    this.refuseLoomFolder(relative, target, written);
    const found = withFileSystemErrors(relative, () => protection(target, written));
    if (found) throw new LoomError('protected_path', this.describe(relative, found), PROTECTED_HINT);
  }

  /** Refuses a path in one of Loom's folders, as written or as it resolves. */
  private refuseLoomFolder(relative: string, real: string, written: string): void {
    const found = this.loomFolderOf(written) ?? this.loomFolderOf(real);
    if (!found) return;
    throw new LoomError(
      'protected_path',
      `${relative} is in ${this.relative(found.path)}, ${found.what}; nothing reads or writes Loom's own files through the workspace.`,
      LOOM_HINT,
    );
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

const LOOM_HINT = "Loom's settings (the API token, the commands agents may run) are changed with loom commands and the app, not as workspace files.";

/** The real path of `absolute`, or `absolute` itself when it cannot be resolved. */
function realOrAsGiven(absolute: string): string {
  try {
    return realpathLoose(absolute);
  } catch {
    return absolute;
  }
}

function outside(relative: string): LoomError {
  return new LoomError('forbidden_path', `${relative} is outside the workspace.`);
}
