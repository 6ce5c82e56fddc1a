// Where the server keeps its own files (its data dir, the composer's scratch copies and clones,
// the models) is nobody's business but its operator's: text that leaves the server — an API
// answer's error, a composer session's or an agent task's `error` — names files as their user
// knows them, never by the server's absolute paths. A failure of the file system or of git
// says the path it failed on, absolute; so each folder is registered where it is opened
// (openStore, the completion engine, ComposerRunner), and hidePrivatePaths runs on the text at
// the points where errors become public (describeError for every HTTP answer, the end of a
// composer session or an agent task). One registry per process: every server in it hides every
// folder any of them opened.
import fs from 'node:fs';
import path from 'node:path';

/** A folder, and what it is shown as in its place ('' drops it: what follows reads as relative to it). */
export interface PrivateFolder {
  folder: string;
  shownAs: string;
}

const registered = new Map<string, string>();
let pattern: RegExp | undefined;

/**
 * Registers a folder of the server whose absolute path must never leave it; `shownAs` stands
 * in its place (e.g. `<data dir>`). The path as given, resolved and with its links resolved
 * (macOS's /tmp is /private/tmp) are all hidden.
 *
 * @example
 * registerPrivateFolder('/var/lib/loom', '<data dir>');
 * hidePrivatePaths("EACCES: permission denied, open '/var/lib/loom/loom.db'"); // "… open '<data dir>/loom.db'"
 */
export function registerPrivateFolder(folder: string, shownAs: string): void {
  for (const form of forms(folder)) {
    if (registered.has(form)) continue;
    registered.set(form, shownAs);
    pattern = undefined;
  }
}

/**
 * `text` with every registered folder, and each of `also` (a session's scratch copy, shown as
 * nothing so that its files read as the user named them), replaced by what it is shown as. The
 * longest folder wins where one is inside another.
 */
export function hidePrivatePaths(text: string, also: readonly PrivateFolder[] = []): string {
  let hidden = text;
  if (also.length) {
    const folders = new Map(also.flatMap(({ folder, shownAs }) => forms(folder).map((form): [string, string] => [form, shownAs])));
    hidden = replaceFolders(hidden, folders, folderPattern(folders));
  }
  if (registered.size === 0) return hidden;
  pattern ??= folderPattern(registered);
  return replaceFolders(hidden, registered, pattern);
}

function replaceFolders(text: string, folders: ReadonlyMap<string, string>, regex: RegExp): string {
  return text.replace(regex, (_match, folder: string, separator: string | undefined) => {
    const as = folders.get(folder) ?? '';
    if (separator) return as === '' ? '' : `${as}${separator}`;
    return as === '' ? '.' : as;
  });
}

/** One pattern for all the folders, longest first; a folder counts only where its name ends (not /data in /database). */
function folderPattern(folders: ReadonlyMap<string, string>): RegExp {
  const alternatives = [...folders.keys()].sort((a, b) => b.length - a.length).map(escape);
  return new RegExp(`(${alternatives.join('|')})(?:([/\\\\])|(?=$|[\\s'"\`,;:()\\[\\]{}<>]))`, 'g');
}

/** The spellings of a folder an error may use: as given, resolved, and its real path. */
function forms(folder: string): string[] {
  const resolved = path.resolve(folder).replace(/[/\\]+$/, '');
  const out = new Set([resolved]);
  try {
    out.add(fs.realpathSync.native(resolved));
  } catch {
    // Not there (yet): its resolved path is what errors will name.
  }
  return [...out].filter((form) => form.length > 1);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
