// The files a composer request sends to work on, checked before anything is stored. Each is
// written into a scratch copy on the server's file system, and its edits come back to the
// user's own: so each must be a path every file system Loom runs on can hold, beside the
// others. Names are compared as a file system that ignores case and Unicode normalization
// compares them (macOS's, Windows's): `A.ts` and `a.ts`, or `é` composed and decomposed, are
// one file there, so a request naming both is refused wherever the server runs.
import { MAX_ATTACHMENT_CHARS } from '../../contracts/composer.ts';
import { LoomError } from '../errors.ts';
import { protectedName } from '../workspace/protected.ts';
import type { ComposerAttachment } from './types.ts';

/** Bytes of one name (a file's or a folder's), in UTF-8: the 255 of Linux's and macOS's file systems. */
export const MAX_NAME_BYTES = 255;
/**
 * Bytes of an attachment's path, in UTF-8: the file system's 4,096 for a whole path (Linux's
 * PATH_MAX) less 1,024 for the server's scratch folder in front of it.
 */
export const MAX_PATH_BYTES = 3072;

/**
 * The attachments with checked paths — relative with `/` between folders, no `..`, `.` or
 * empty names, never in .git or .loom, names of at most MAX_NAME_BYTES and paths of at most
 * MAX_PATH_BYTES, each file once (case and normalization aside), no file where another needs a
 * folder — and a cap on their size in all. Throws LoomError validation_error naming the first
 * that is not.
 *
 * @example
 * checkAttachments([{ path: './src/a.ts', content: '' }]); // [{ path: 'src/a.ts', content: '' }]
 * checkAttachments([{ path: 'a', content: '' }, { path: 'a/b', content: '' }]); // throws: a is a file and a folder
 */
export function checkAttachments(attachments: readonly ComposerAttachment[]): ComposerAttachment[] {
  let total = 0;
  /** Each file's path as a case- and normalization-blind file system sees it, and its index. */
  const files = new Map<string, number>();
  /** Each folder the files need, seen the same way, and the index of the first that needs it. */
  const folders = new Map<string, number>();
  return attachments.map(({ path, content }, index) => {
    const where = `attachments[${index}].path`;
    const normalized = path.trim().replace(/^\.\//, '');
    if (normalized === '' || normalized.startsWith('/') || /^[A-Za-z]:/.test(normalized) || normalized.includes('\\') || /[\u0000-\u001f]/.test(normalized)) {
      throw new LoomError('validation_error', `${where} must be a relative path with / between folders.`);
    }
    const segments = normalized.split('/');
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
      throw new LoomError('validation_error', `${where} must not contain "..", "." or empty folder names.`);
    if (segments.some((segment) => protectedName(segment))) throw new LoomError('validation_error', `${where} is in a protected folder (.git, .loom).`);
    const longName = segments.find((segment) => Buffer.byteLength(segment, 'utf8') > MAX_NAME_BYTES);
    if (longName !== undefined) {
      throw new LoomError(
        'validation_error',
        `${where} has a name of ${Buffer.byteLength(longName, 'utf8')} bytes; file systems take names of at most ${MAX_NAME_BYTES} bytes (UTF-8).`,
      );
    }
    const bytes = Buffer.byteLength(normalized, 'utf8');
    if (bytes > MAX_PATH_BYTES)
      throw new LoomError('validation_error', `${where} is ${bytes} bytes long; a path may have at most ${MAX_PATH_BYTES} bytes (UTF-8).`);

    const key = fold(normalized);
    const same = files.get(key);
    if (same !== undefined) {
      throw new LoomError(
        'validation_error',
        attachments[same]!.path.trim().replace(/^\.\//, '') === normalized
          ? `${where} repeats ${normalized}.`
          : `${where} and attachments[${same}].path are the same file on a file system that ignores case or Unicode normalization; send it once.`,
      );
    }
    const folderHere = folders.get(key);
    if (folderHere !== undefined) {
      throw new LoomError('validation_error', `${where} is a file where attachments[${folderHere}].path needs a folder; a name cannot be both.`);
    }
    let folder = '';
    for (const segment of segments.slice(0, -1)) {
      folder = folder === '' ? fold(segment) : `${folder}/${fold(segment)}`;
      const file = files.get(folder);
      if (file !== undefined)
        throw new LoomError('validation_error', `${where} needs a folder where attachments[${file}].path is a file; a name cannot be both.`);
      if (!folders.has(folder)) folders.set(folder, index);
    }
    files.set(key, index);

    total += content.length;
    if (total > MAX_ATTACHMENT_CHARS) throw new LoomError('validation_error', `The attachments hold more than ${MAX_ATTACHMENT_CHARS} characters.`);
    return { path: normalized, content };
  });
}

/** A name as a file system that ignores case and Unicode normalization compares it. */
function fold(name: string): string {
  return name.normalize('NFC').toLowerCase();
}
