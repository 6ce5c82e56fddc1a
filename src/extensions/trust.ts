// Which workspaces the user trusts to run their extensions: a list of folders in
// `<config dir>/trusted-workspaces.json` (0600 in a 0700 folder). A workspace is keyed by its
// real path, so a symlink or `..` in the way it was named trusts nothing else.
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE, tightenPrivateFile, type ModeWarning } from '../core/files/private-files.ts';
import { writeFileAtomically } from '../core/files/write-atomically.ts';

const FILE_NAME = 'trusted-workspaces.json';

/**
 * The trusted workspaces, read from and written to the config folder on every call (the CLI and
 * a running server share the file).
 *
 * @example
 *   const trust = new WorkspaceTrust(configDir);
 *   trust.trust('/home/me/project');
 *   trust.isTrusted('/home/me/project'); // true
 */
export class WorkspaceTrust {
  readonly file: string;

  constructor(
    private readonly configDir: string,
    private readonly warn: ModeWarning = () => {},
  ) {
    this.file = path.join(configDir, FILE_NAME);
  }

  isTrusted(workspace: string): boolean {
    return this.read().includes(realFolder(workspace));
  }

  /** Every trusted folder. */
  list(): string[] {
    return this.read();
  }

  /** Trusts `workspace`; answers its real path. */
  trust(workspace: string): string {
    const folder = realFolder(workspace);
    const folders = this.read();
    if (!folders.includes(folder)) this.write([...folders, folder].sort());
    return folder;
  }

  /** Stops trusting `workspace`; answers its real path. */
  untrust(workspace: string): string {
    const folder = realFolder(workspace);
    const folders = this.read();
    if (folders.includes(folder)) this.write(folders.filter((entry) => entry !== folder));
    return folder;
  }

  private read(): string[] {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    tightenPrivateFile(this.file, this.warn);
    try {
      const json = JSON.parse(text) as { workspaces?: unknown };
      return Array.isArray(json.workspaces) ? json.workspaces.filter((entry): entry is string => typeof entry === 'string') : [];
    } catch {
      // A damaged file trusts nothing: the safe reading.
      this.warn(`${this.file} is not valid JSON; no workspace is trusted until it is fixed or trust is given again`);
      return [];
    }
  }

  private write(folders: string[]): void {
    ensurePrivateDir(this.configDir, this.warn);
    writeFileAtomically(this.file, `${JSON.stringify({ workspaces: folders }, null, 2)}\n`, PRIVATE_FILE_MODE);
  }
}

/** The real path of a folder (as given when it does not exist: nothing can run from it then anyway). */
function realFolder(folder: string): string {
  const absolute = path.resolve(folder);
  try {
    return fs.realpathSync(absolute);
  } catch {
    return absolute;
  }
}
