// One side of a diff (GET /api/git/diff) from a file's bytes, by git's own rules: binary when a
// NUL byte is in its first 8,000 bytes, left without text past MAX_DIFF_SIDE_BYTES.
import { MAX_DIFF_SIDE_BYTES, type GitFileSide } from '../../contracts/local-resources.ts';

/** git's own test for binary content: a NUL byte in the first 8,000 bytes. */
const BINARY_PROBE = 8000;

/**
 * One side of a diff from bytes read elsewhere (the working tree), by the same rules as HEAD's side.
 *
 * @example fileSide(new TextEncoder().encode('a\n'), 2) // { exists: true, binary: false, tooLarge: false, size: 2, text: 'a\n' }
 */
export function fileSide(bytes: Uint8Array | null, size: number | null): GitFileSide {
  if (bytes === null || size === null) return { exists: false, binary: false, tooLarge: false, size: null, text: null };
  if (size > MAX_DIFF_SIDE_BYTES) return { exists: true, binary: false, tooLarge: true, size, text: null };
  const binary = isBinary(bytes);
  return { exists: true, binary, tooLarge: false, size, text: binary ? null : Buffer.from(bytes).toString('utf8') };
}

/** Whether bytes are binary by git's test. */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_PROBE).includes(0);
}
