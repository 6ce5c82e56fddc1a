// Input checks done before git sees anything: names that could be read as options or as
// something other than a plain branch, and paths that leave the workspace.
import path from 'node:path';
import { MAX_COMMIT_FILES, MAX_COMMIT_MESSAGE_LENGTH } from '../../contracts/local-resources.ts';
import { LoomError } from '../errors.ts';
import { withFileSystemErrors } from '../files/fs-errors.ts';
import { isInside, realpathLoose, type LoomFolder } from '../workspace/paths.ts';
import { protectedName } from '../workspace/protected.ts';

export const MAX_MESSAGE_LENGTH = MAX_COMMIT_MESSAGE_LENGTH;
export const MAX_FILES = MAX_COMMIT_FILES;
const MAX_NAME_LENGTH = 255;
/**
 * Longest component of a branch name, in UTF-8 bytes: git writes each ref as a file, and
 * `<name>.lock` first, and a file's name stops at 255 bytes (a longer one fails inside git).
 */
const MAX_COMPONENT_BYTES = 255 - '.lock'.length;
const utf8 = new TextEncoder();
const MAX_PATH_LENGTH = 4096;

/**
 * A branch name by the rules of `git check-ref-format --branch`, stricter where they are
 * loose: no leading `-` (it would read as an option), no `HEAD`, nothing git would take as a
 * revision expression (`@{`, `..`, `~`, `^`, `:`), no glob characters, no control characters
 * or spaces of any script, no invisible format characters (a byte-order mark, zero-width or
 * bidirectional marks: a name that shows as another, or as nothing), no component starting
 * with `.` or ending with `.lock`, none longer than a file's name may be.
 */
export function checkBranchName(name: unknown, field = 'branch'): string {
  const bad = (why: string) =>
    new LoomError(
      'invalid_ref',
      `${field} ${JSON.stringify(name)} is not a valid branch name: ${why}.`,
      'Branch names follow git check-ref-format, e.g. main or feature/login.',
    );
  if (typeof name !== 'string' || name.length === 0) throw new LoomError('invalid_ref', `${field} must be a non-empty string.`);
  if (name.length > MAX_NAME_LENGTH) throw bad(`longer than ${MAX_NAME_LENGTH} characters`);
  if (name.startsWith('-')) throw bad('it starts with "-"');
  if (name === 'HEAD' || name === '@') throw bad('it is reserved');
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) throw bad('it contains a space, a control character or one of ~ ^ : ? * [ \\');
  if (/[\p{White_Space}\p{Cc}\p{Cf}]/u.test(name))
    throw bad('it contains a space or an invisible character (a byte-order mark, a zero-width or direction mark)');
  if (name.includes('..')) throw bad('it contains ".."');
  if (name.includes('@{')) throw bad('it contains "@{"');
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) throw bad('it has an empty component');
  if (name.endsWith('.')) throw bad('it ends with "."');
  for (const component of name.split('/')) {
    if (component.startsWith('.')) throw bad('a component starts with "."');
    if (component.endsWith('.lock')) throw bad('a component ends with ".lock"');
    if (utf8.encode(component).length > MAX_COMPONENT_BYTES) throw bad(`a component is longer than ${MAX_COMPONENT_BYTES} bytes`);
  }
  return name;
}

/** A remote's name: letters, digits, `.`, `_`, `-`; not starting with `-`; not `.` or `..`. */
export function checkRemoteName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) throw new LoomError('invalid_ref', 'remote must be a non-empty string.');
  if (name.length > MAX_NAME_LENGTH || !/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('-') || name === '.' || name === '..') {
    throw new LoomError(
      'invalid_ref',
      `remote ${JSON.stringify(name)} is not a valid remote name.`,
      'Remote names use letters, digits, ".", "_" and "-", e.g. origin.',
    );
  }
  return name;
}

/** Checks a commit message and returns it unchanged. */
export function checkMessage(message: unknown): string {
  if (typeof message !== 'string') throw new LoomError('validation_error', 'message must be a string.');
  if (message.trim().length === 0) throw new LoomError('validation_error', 'message must not be empty.', 'Describe the change in a line.');
  if (message.length > MAX_MESSAGE_LENGTH) throw new LoomError('validation_error', `message is longer than ${MAX_MESSAGE_LENGTH} characters.`);
  if (message.includes('\0')) throw new LoomError('validation_error', 'message must not contain a NUL character.');
  return message;
}

/**
 * Checks the `files` of a commit: each must resolve (symlinks followed) inside the workspace,
 * not inside a `.git` folder (forbidden_path) and not inside one of Loom's own folders
 * (`loomFolders`, real paths: protected_path). Returns them relative to the workspace root,
 * forward slashes, `.` for the root itself, without duplicates.
 */
export async function resolveWorkspacePaths(realRoot: string, files: unknown, loomFolders: readonly LoomFolder[] = []): Promise<string[]> {
  if (!Array.isArray(files)) throw new LoomError('validation_error', 'files must be an array of paths.');
  if (files.length === 0) throw new LoomError('validation_error', 'files must name at least one path; omit it to commit every change.');
  if (files.length > MAX_FILES) throw new LoomError('validation_error', `files may name at most ${MAX_FILES} paths.`);
  const out = new Set<string>();
  for (const [i, file] of files.entries()) {
    if (typeof file !== 'string' || file.length === 0 || file.length > MAX_PATH_LENGTH || file.includes('\0')) {
      throw new LoomError('validation_error', `files[${i}] must be a non-empty path without NUL characters.`);
    }
    const absolute = path.resolve(realRoot, file);
    const outside = () => new LoomError('forbidden_path', `${file} is outside the workspace.`, 'Give paths relative to the workspace folder.');
    if (!isInside(realRoot, absolute)) throw outside();
    const real = withFileSystemErrors(file, () => realpathLoose(absolute));
    if (!isInside(realRoot, real)) throw outside();
    // The path git is given: its folder's real path (git will not look through a symlinked
    // folder), its last component as written (a symlink is committed as a symlink).
    const parent = absolute === realRoot ? realRoot : withFileSystemErrors(file, () => realpathLoose(path.dirname(absolute)));
    const named = absolute === realRoot ? realRoot : path.join(parent, path.basename(absolute));
    if (!isInside(realRoot, named)) throw outside();
    const rel = path.relative(realRoot, named).split(path.sep).join('/');
    // Git's own folder is never committed (under any name a file system takes for it);
    // refuse rather than let git guess.
    if (rel.split('/').some((part) => protectedName(part) === '.git')) {
      throw new LoomError('forbidden_path', `${file} is inside a .git folder.`);
    }
    // Loom's own files (settings.json with the API token, the store) are never committed, by any path.
    const loom = loomFolders.find((folder) => [named, real].some((candidate) => isInside(folder.path.toLowerCase(), candidate.toLowerCase())));
    if (loom) throw new LoomError('protected_path', `${file} is in ${loom.what}; Loom never commits its own files.`);
    out.add(rel === '' ? '.' : rel);
  }
  return [...out];
}

/**
 * Pathspecs that leave Loom's own folders inside the workspace out of what a git command
 * lists or stages (letters compared without case, as the write gate compares them).
 */
export function loomExcludes(realRoot: string, loomFolders: readonly LoomFolder[]): string[] {
  return loomFolders
    .filter((folder) => folder.path !== realRoot && isInside(realRoot, folder.path))
    .map((folder) => `:(exclude,literal,icase)${path.relative(realRoot, folder.path).split(path.sep).join('/')}`);
}

/** A path as a pathspec that git takes literally (no glob, no `:(magic)`). */
export function literalPathspec(rel: string): string {
  return rel === '.' ? '.' : `:(literal)${rel}`;
}
