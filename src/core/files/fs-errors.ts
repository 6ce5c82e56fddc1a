// The one place where a failure of the file system becomes a LoomError: every caller that
// touches workspace files (documents, the workspace gate, git's path checks) passes what it
// caught through `fileSystemError`, so a new errno is mapped here once and answers a 4xx
// everywhere instead of a 500.
import type { ErrorCode } from '../../contracts/errors.ts';
import { LoomError } from '../errors.ts';

interface Mapping {
  code: ErrorCode;
  /** The sentence after the path, e.g. "does not exist". */
  says: string;
  hint?: string;
}

const TRY_AGAIN = 'Try again in a moment.';

/** errno → error code. Codes not listed here become file_system_error with the errno in the message. */
const MAPPINGS: Record<string, Mapping> = {
  ENOENT: { code: 'not_found', says: 'does not exist' },
  EISDIR: { code: 'not_a_file', says: 'is a folder, not a file' },
  // Opening a socket, or a device without a driver, for reading.
  ENXIO: { code: 'not_a_file', says: 'is not a regular file' },
  ENODEV: { code: 'not_a_file', says: 'is not a regular file' },
  ENOTDIR: { code: 'not_a_folder', says: 'goes through a file as if it were a folder' },
  ELOOP: { code: 'symlink_loop', says: 'goes through a loop of symbolic links' },
  ENAMETOOLONG: { code: 'name_too_long', says: 'is longer than the file system allows', hint: 'Names are limited to 255 bytes on most file systems.' },
  EACCES: { code: 'permission_denied', says: 'cannot be accessed: the operating system denies permission' },
  EPERM: { code: 'permission_denied', says: 'cannot be changed: the operating system does not permit it' },
  EROFS: { code: 'read_only_file_system', says: 'is on a read-only file system' },
  EEXIST: { code: 'already_exists', says: 'already exists' },
  ENOTEMPTY: { code: 'folder_not_empty', says: 'is a folder that is not empty' },
  ENOSPC: { code: 'disk_full', says: 'cannot be written: the disk is full', hint: 'Free some space, then save again.' },
  EDQUOT: { code: 'disk_full', says: 'cannot be written: the disk quota is used up', hint: 'Free some space, then save again.' },
  EFBIG: { code: 'payload_too_large', says: 'would be larger than the file system allows' },
  EMFILE: { code: 'file_system_busy', says: 'cannot be opened: too many files are open', hint: TRY_AGAIN },
  ENFILE: { code: 'file_system_busy', says: 'cannot be opened: too many files are open on this machine', hint: TRY_AGAIN },
  EBUSY: { code: 'file_system_busy', says: 'is busy (in use by another program)', hint: TRY_AGAIN },
  ETXTBSY: { code: 'file_system_busy', says: 'is busy (a running program)', hint: TRY_AGAIN },
  EAGAIN: { code: 'file_system_busy', says: 'is temporarily unavailable', hint: TRY_AGAIN },
  EWOULDBLOCK: { code: 'file_system_busy', says: 'is temporarily unavailable', hint: TRY_AGAIN },
};

/**
 * Whether `error` is a failure reported by the operating system (an errno such as ENOENT or
 * ELOOP), as opposed to a bug (Node's own `ERR_*` codes, a TypeError), which stays a 500.
 */
export function isFileSystemFailure(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return error instanceof Error && typeof code === 'string' && /^E[A-Z0-9]+$/.test(code);
}

/**
 * The LoomError for a file-system failure on `subject` (the path as the caller knows it, never
 * an absolute path of the machine). A LoomError passes through unchanged; anything that is not
 * an operating-system failure is re-thrown as it is (a bug, answered 500 and logged).
 */
export function fileSystemError(error: unknown, subject: string): LoomError {
  if (error instanceof LoomError) return error;
  if (!isFileSystemFailure(error)) throw error;
  const errno = error.code!;
  const mapping = MAPPINGS[errno];
  if (!mapping) return new LoomError('file_system_error', `${subject}: the file system refused the operation (${errno}).`);
  return new LoomError(mapping.code, `${subject} ${mapping.says} (${errno}).`, mapping.hint);
}

/** Runs `work`, turning a file-system failure into its LoomError (see fileSystemError). */
export function withFileSystemErrors<T>(subject: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw fileSystemError(error, subject);
  }
}
