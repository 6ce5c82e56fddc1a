// AgentFiles over a plain folder: a composer session's scratch copy (attached files, or a git
// worktree). Nobody edits it but the session, so there are never unsaved edits; every path
// still goes through the workspace gate (inside the folder, symlinks followed; .git and .loom
// never written), since the files come from an untrusted repository or request.
import fs from 'node:fs';
import { AGENT_FILE_LIMIT, type AgentFiles } from '../agents/files/agent-files.ts';
import { LoomError } from '../errors.ts';
import { withFileSystemErrors } from '../files/fs-errors.ts';
import { readRegularFile } from '../files/read-regular.ts';
import { WorkspacePaths } from '../workspace/paths.ts';

/**
 * The files of a folder, for the agent runtime.
 *
 * @example
 * const files = new FolderFiles('/var/lib/loom/composer/scratch/3f2a…');
 * files.read(files.key('src/app.ts'));
 */
export class FolderFiles implements AgentFiles {
  readonly root: string;
  private readonly paths: WorkspacePaths;

  constructor(folder: string) {
    this.paths = new WorkspacePaths(folder);
    this.root = this.paths.root;
  }

  key(relative: string): string {
    return this.paths.relative(this.paths.resolve(relative));
  }

  read(key: string): string | null {
    const absolute = this.paths.resolve(key);
    const stat = withFileSystemErrors(key, () => fs.statSync(absolute, { throwIfNoEntry: false }));
    if (!stat) return null;
    const { text } = readRegularFile(absolute, key, AGENT_FILE_LIMIT);
    if (text.includes('\u0000')) throw new LoomError('not_a_file', `${key} is a binary file; agents read and edit text files only.`);
    return text;
  }

  hasUnsavedEdits(): boolean {
    return false;
  }

  checkWritable(key: string): void {
    this.paths.resolveForWrite(key);
  }

  async write(key: string, text: string): Promise<void> {
    this.paths.writeFile(key, text);
  }

  remove(key: string): void {
    this.paths.remove(key);
  }

  rename(from: string, to: string): void {
    this.paths.rename(from, to);
  }
}
