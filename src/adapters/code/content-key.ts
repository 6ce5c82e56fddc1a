// The key content is stored under: a SHA-256 of the language the file is read as and its bytes
// (SHA-1 collisions are practical; a crafted file must not pass for another's content). The
// main thread keys a file by reading it through one reused buffer, so the thousands of files
// of a build leave no allocations behind; a parsing thread reads the file itself (from the
// page cache) and keys what it parsed, so a file changed in between is stored under its own key.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { looksBinary } from '../../core/code/content.ts';
import { languageOf } from '../../core/code/languages.ts';
import type { IndexedLanguage } from '../../core/code/model.ts';

const { O_RDONLY, O_NONBLOCK = 0, O_NOCTTY = 0 } = fs.constants;
/** Bytes read at a time; the first read also gives the shebang and the binary test. */
const CHUNK = 256 * 1024;
const chunk = Buffer.allocUnsafeSlow(CHUNK);

/**
 * The key of `bytes` read as `language`.
 *
 * @example contentKey('python', Buffer.from('x = 1\n')).length // 32
 */
export function contentKey(language: IndexedLanguage, bytes: Uint8Array): Buffer {
  return crypto.createHash('sha256').update(language).update('\0').update(bytes).digest();
}

/** What keying a file found. */
export type KeyedFile =
  | { kind: 'text'; key: Buffer; language: IndexedLanguage; size: number }
  | { kind: 'binary'; language: IndexedLanguage; size: number }
  /** Not a regular file any more. */
  | { kind: 'not-regular' }
  /** Larger than the limit (grown since its stat). */
  | { kind: 'too-large' };

/**
 * Keys the file at `absolute` (its workspace path `relative` gives its language) without
 * keeping its bytes: opened non-blocking and read only when the descriptor is a regular file
 * (never a FIFO swapped in), at most `maxBytes`. Throws the file system's error.
 */
export function keyFile(absolute: string, relative: string, maxBytes: number): KeyedFile {
  const fd = fs.openSync(absolute, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { kind: 'not-regular' };
    if (stat.size > maxBytes) return { kind: 'too-large' };
    let filled = fs.readSync(fd, chunk, 0, Math.min(CHUNK, stat.size), 0);
    const first = chunk.subarray(0, filled);
    const language = languageOf(relative, first.subarray(0, 256).toString('latin1'));
    if (looksBinary(first)) return { kind: 'binary', language, size: stat.size };
    const hash = crypto.createHash('sha256').update(language).update('\0').update(first);
    for (let read = filled; filled < stat.size && read > 0; filled += read) {
      read = fs.readSync(fd, chunk, 0, Math.min(CHUNK, stat.size - filled), filled);
      hash.update(chunk.subarray(0, read));
    }
    return { kind: 'text', key: hash.digest(), language, size: filled };
  } finally {
    fs.closeSync(fd);
  }
}
