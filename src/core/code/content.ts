// What a file's bytes say about how to index it: binary (skipped), minified or data with
// enormous lines (listed and searched, not parsed), or text.

/** Bytes looked at for a NUL, as git and ripgrep do. */
const BINARY_PROBE_BYTES = 8192;

/**
 * Whether bytes are binary: a NUL byte in the first 8 KB (git's and ripgrep's test).
 *
 * @example looksBinary(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0])) // true
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_PROBE_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/**
 * Whether some line of `text` is longer than `maxLineChars` (minified code, a data file): such
 * a file is not parsed (an outline of one line says nothing) and has no ranked-search entry.
 *
 * @example hasLongLine('a'.repeat(30_000), 20_000) // true
 */
export function hasLongLine(text: string, maxLineChars: number): boolean {
  if (text.length <= maxLineChars) return false;
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    if ((end < 0 ? text.length : end) - start > maxLineChars) return true;
    if (end < 0) return false;
    start = end + 1;
  }
}
