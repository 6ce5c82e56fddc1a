// Writing into the folder that was checked, not into whatever its path leads to a moment
// later. Between a check of a real path and the write, another process (git checking out a
// commit, a tool the user runs) may replace a folder on that path with a symbolic link into
// a place Loom must not write. Node has no openat/renameat, so the folder is held open and,
// on Linux, reached through /proc/self/fd/N: every later lookup starts from the folder that
// was opened, whatever happens to its path. Elsewhere the opened folder's identity (device
// and inode) is compared with what the path leads to just before the write.
import fs from 'node:fs';
import { LoomError } from '../errors.ts';

const { O_RDONLY, O_DIRECTORY = 0, O_NOFOLLOW = 0 } = fs.constants;

/**
 * Runs `work` with a path that reaches `folder` (an absolute real path) as it was when it was
 * opened here. Throws file_system_busy (nothing done) when the folder at that path is not the
 * folder that was opened: a component was swapped or the folder moved since it was checked.
 */
export function inHeldFolder<T>(folder: string, subject: string, work: (base: string) => T): T {
  const moved = () => new LoomError('file_system_busy', `${subject}: its folder changed while it was being written; nothing was written.`, 'Try again.');
  if (process.platform === 'win32') {
    // Folders cannot be opened as files on Windows: check the path once more, just before.
    if (fs.realpathSync.native(folder) !== folder) throw moved();
    return work(folder);
  }
  let fd: number;
  try {
    fd = fs.openSync(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    // The folder's own name is now a symbolic link (ELOOP) or a file (ENOTDIR).
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw moved();
    throw error;
  }
  try {
    const proc = `/proc/self/fd/${fd}`;
    const held = readlinkOrUndefined(proc);
    if (held !== undefined) {
      if (held !== folder) throw moved();
      return work(proc);
    }
    const opened = fs.fstatSync(fd);
    const there = fs.statSync(folder);
    if (opened.dev !== there.dev || opened.ino !== there.ino) throw moved();
    return work(folder);
  } finally {
    fs.closeSync(fd);
  }
}

/** Where /proc says a descriptor leads, or undefined without /proc (macOS, BSD). */
function readlinkOrUndefined(proc: string): string | undefined {
  try {
    return fs.readlinkSync(proc);
  } catch {
    return undefined;
  }
}
