// Reading a file the client named, safely: reading a FIFO or a device with readFileSync blocks
// the event loop for ever (or reads for ever: /dev/zero), so the file is opened without
// blocking and read only when the opened descriptor says it is a regular file. Checking the
// path first (stat, then read) would leave a window in which it is swapped for a FIFO.
import fs from 'node:fs';
import fsPromises from 'node:fs/promises';
import { LoomError } from '../errors.ts';
import { withFileSystemErrors } from './fs-errors.ts';

const { O_RDONLY, O_NONBLOCK = 0, O_NOCTTY = 0 } = fs.constants;

/** What a non-regular file is, for messages. */
export function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/**
 * The UTF-8 text and the stat of the regular file at `absolute`. `subject` names it in errors
 * (the workspace-relative path). Throws LoomError: not_a_file for anything but a regular file,
 * payload_too_large above `maxBytes`, and the mapped code of any file-system failure.
 */
export function readRegularFile(absolute: string, subject: string, maxBytes: number): { text: string; stat: fs.Stats } {
  return withFileSystemErrors(subject, () => {
    const fd = fs.openSync(absolute, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile()) throw new LoomError('not_a_file', `${subject} is ${kindOf(stat)}, not a regular file.`, 'The editor opens regular files only.');
      if (stat.size > maxBytes) throw tooLarge(subject, maxBytes);
      const bytes = fs.readFileSync(fd);
      // It may have grown between fstat and the read.
      if (bytes.length > maxBytes) throw tooLarge(subject, maxBytes);
      return { text: bytes.toString('utf8'), stat };
    } finally {
      fs.closeSync(fd);
    }
  });
}

/**
 * The bytes of the file at `absolute` when it is a regular file of at most `maxBytes` (empty
 * files included), else undefined; for callers that read many files in the background (the
 * completion corpus). File-system failures are thrown as they are.
 */
export async function readRegularBytes(absolute: string, maxBytes: number): Promise<Buffer | undefined> {
  const handle = await fsPromises.open(absolute, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > maxBytes) return undefined;
    const bytes = await handle.readFile();
    return bytes.length > maxBytes ? undefined : bytes;
  } finally {
    await handle.close();
  }
}

/**
 * readRegularBytes without the thread pool: for small files read by the thousand (the code
 * index), where four round trips to libuv's threads per file cost more than the read. Reads at
 * most the size fstat gave (a file growing meanwhile is read as it was).
 */
export function readRegularBytesSync(absolute: string, maxBytes: number): Buffer | undefined {
  const fd = fs.openSync(absolute, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes) return undefined;
    const bytes = Buffer.allocUnsafeSlow(stat.size);
    let filled = 0;
    while (filled < bytes.length) {
      const read = fs.readSync(fd, bytes, filled, bytes.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return filled === bytes.length ? bytes : bytes.subarray(0, filled);
  } finally {
    fs.closeSync(fd);
  }
}

function tooLarge(subject: string, maxBytes: number): LoomError {
  return new LoomError('payload_too_large', `${subject} is larger than ${maxBytes} bytes.`);
}
