import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Replaces a file so that a crash never leaves half of it: a temporary file in the same folder,
 * fsynced, renamed over the target. `mode` defaults to the target's current mode (0644 for a
 * new file); it is set on the temporary file before the rename, so the file is never visible
 * with wider permissions, whatever the umask.
 */
export function writeFileAtomically(file: string, contents: string, mode?: number): void {
  const finalMode = mode ?? (fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : 0o644);
  // The temporary name keeps only the start of the file's name: a name near the file system's
  // limit (255 bytes) must not make the temporary one too long.
  const stem = Array.from(path.basename(file)).slice(0, 32).join('');
  const temp = path.join(path.dirname(file), `.${stem}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = fs.openSync(temp, 'wx', finalMode);
    try {
      fs.writeFileSync(fd, contents);
      fs.fchmodSync(fd, finalMode);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/** Whether a file name is one of writeFileAtomically's temporary files (a watcher of the disk leaves them out). */
export function isAtomicWriteTemp(name: string): boolean {
  return /^\..*\.\d+\.[0-9a-f]{12}\.tmp$/su.test(name);
}
