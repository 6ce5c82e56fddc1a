// Every path an edit, an agent or a glob touches must resolve inside the workspace, symlinks
// included (SECURITY.md, local server 4). No workspace configured means refuse.
import fs from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { LoomError } from '../errors.ts';

/** Whether `candidate` (absolute) is `root` or lies under it. */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * The real path of `absolute`, every symlink followed, also when its last components do not
 * exist (a deleted file) or it is a symlink whose target does not exist.
 */
export async function realpathLoose(absolute: string, hops = 0): Promise<string> {
  if (hops > 40) throw Object.assign(new Error('too many symbolic links'), { code: 'ELOOP' });
  try {
    return await fs.realpath(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  const realParent = await realpathLoose(parent, hops);
  const here = path.join(realParent, path.basename(absolute));
  let target: string;
  try {
    target = await fs.readlink(here);
  } catch {
    return here; // Missing, or not a symlink.
  }
  // A symlink whose target is missing: follow it by hand.
  return realpathLoose(path.resolve(realParent, target), hops + 1);
}

export class WorkspacePaths {
  readonly root: string;

  constructor(root: string) {
    this.root = realpathSync(root);
  }

  /**
   * The absolute real path of `relative` inside the workspace, every symlink followed (also one
   * whose target does not exist). Throws LoomError forbidden_path when it lands outside.
   */
  async resolve(relative: string): Promise<string> {
    if (typeof relative !== 'string' || relative.length === 0 || relative.includes('\0')) {
      throw new LoomError('validation_error', 'A path is required, without NUL characters.');
    }
    const absolute = path.resolve(this.root, relative);
    const outside = () => new LoomError('forbidden_path', `${relative} is outside the workspace.`);
    if (!isInside(this.root, absolute)) throw outside();
    const real = await realpathLoose(absolute);
    if (!isInside(this.root, real)) throw outside();
    return real;
  }

  /** The workspace-relative form of an absolute path inside it, with forward slashes. */
  relative(absolute: string): string {
    return path.relative(this.root, absolute).split(path.sep).join('/');
  }
}
