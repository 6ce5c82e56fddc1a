// The hash an edit's `baseHash` is: what `apply` compares the local file with, and what a
// follow-up checks its fresh copy against.
import { createHash } from 'node:crypto';

/**
 * sha256 (hex) of a file's content.
 *
 * @example contentHash('a\n'); // '87428fc5…'
 */
export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
