// Files that hold secrets (the database with its signing keys, token hashes and sessions;
// settings.json with the local API token; credentials.json with the CLI's tokens) are for their
// owner only: folders 0700, files 0600, whatever the umask. One found looser (an older Loom, a
// copy, a hand-made file) is tightened, and the caller hears of it so that the operator does.
import fs from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Told what was found open to others, and whether it was put right. */
export type ModeWarning = (message: string) => void;

/** Creates `dir` (and missing parents) for its owner only; an existing one that others can enter is tightened. */
export function ensurePrivateDir(dir: string, warn: ModeWarning): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  tighten(dir, PRIVATE_DIR_MODE, warn);
}

/** Tightens `file` to 0600 when it exists and others can read or write it. */
export function tightenPrivateFile(file: string, warn: ModeWarning): void {
  tighten(file, PRIVATE_FILE_MODE, warn);
}

/**
 * Creates `file` empty with mode 0600 unless it exists (then tightens it): for files another
 * library creates with its own mode (SQLite takes the umask's, 0644 by default).
 */
export function createPrivateFile(file: string, warn: ModeWarning): void {
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  tighten(file, PRIVATE_FILE_MODE, warn);
}

function tighten(target: string, mode: number, warn: ModeWarning): void {
  // Windows has no such modes: the user profile's ACLs keep these folders private there.
  if (process.platform === 'win32') return;
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat || (stat.mode & 0o077) === 0) return;
  const was = octal(stat.mode & 0o777);
  try {
    fs.chmodSync(target, mode);
    warn(`${target} was ${was}, open to other users; it is now ${octal(mode)}`);
  } catch (error) {
    warn(
      `${target} is ${was}, open to other users, and could not be made ${octal(mode)} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); restrict it by hand`,
    );
  }
}

function octal(mode: number): string {
  return `0${mode.toString(8)}`;
}
