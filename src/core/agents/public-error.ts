// A task's or a session's `error` is public: the status, `agent:complete`, webhooks, a composer
// session's answer and events. What failed may say anything (a store's error quoting its file,
// a model server's answer): what is shown is that text with the server's own folders hidden
// (files/private-folders.ts), cut to a length a status can carry. The whole failure goes to the
// server's log instead.
import { hidePrivatePaths, type PrivateFolder } from '../files/private-folders.ts';
import { trimText } from './types.ts';

/** Longest `error` a task or a session shows (then a note of how much more there was). */
export const PUBLIC_ERROR_CHARS = 1000;

/**
 * `text` as a task or session shows it: registered folders (and `also`) hidden, then cut.
 *
 * @example
 * publicError(`SQLITE_FULL writing ${dataDir}/loom.db`); // 'SQLITE_FULL writing <data dir>/loom.db'
 */
export function publicError(text: string, also: readonly PrivateFolder[] = []): string {
  return trimText(hidePrivatePaths(text, also), PUBLIC_ERROR_CHARS);
}
