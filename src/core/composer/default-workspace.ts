// The workspace a server offers without registering it: under `loom up` (one machine, one user)
// the desktop app's folder is the hosted server's default workspace, so that the spec's request
// `{prompt, files}` starts a session on it. It is held in memory beside the registered ones, never
// written to the store: `loom admin workspaces list` shows only what the operator registered.
import path from 'node:path';
import { LoomError } from '../errors.ts';
import type { ComposerWorkspaceRepository } from './records.ts';
import type { ComposerWorkspace } from './types.ts';

/** What a workspace name may be (contracts/composer.ts WORKSPACE_NAME_PATTERN). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A server's default workspace: used when a request names none and sends no attachments. */
export interface DefaultWorkspace {
  /** The workspace, registered or not. */
  readonly workspace: ComposerWorkspace;
  /**
   * Throws LoomError validation_error, with what to do, when sessions cannot run on it now (the
   * folder is not a git repository with a commit); checked at each request, since a user may
   * `git init` and commit while the server runs.
   */
  check(): Promise<void>;
}

export interface DefaultWorkspaceOptions {
  /** Why sessions cannot start from the repository in a folder, or undefined (git: src/adapters/git/clones.ts checkLocalRepository, given by compose). */
  checkRepository: (folder: string) => Promise<string | undefined>;
  now?: () => number;
}

/**
 * The folder `folder` as a default workspace, named after it (`/home/ada/code/app` → `app`;
 * a name no workspace may have becomes `workspace`). Sessions start from its current branch's
 * last commit, as for a workspace registered by path; nothing is pushed back.
 *
 * @example
 * const home = folderWorkspace('/home/ada/code/app', { checkRepository: checkLocalRepository });
 * await home.check(); // throws when /home/ada/code/app has no commit
 * const workspaces = withDefaultWorkspace(store.composerWorkspaces, home.workspace);
 */
export function folderWorkspace(folder: string, options: DefaultWorkspaceOptions): DefaultWorkspace {
  const base = path
    .basename(folder)
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^[._-]+/, '');
  const workspace: ComposerWorkspace = {
    name: NAME.test(base) ? base : base.length > 64 && NAME.test(base.slice(0, 64)) ? base.slice(0, 64) : 'workspace',
    repo: folder,
    branch: null,
    push: false,
    createdAt: new Date((options.now ?? Date.now)()).toISOString(),
  };
  return {
    workspace,
    async check() {
      const problem = await options.checkRepository(folder);
      if (problem)
        throw new LoomError(
          'validation_error',
          `A session needs files to work on, and this server's workspace (${workspace.name}) ${problem}.`,
          'Commit the files there (git init; git add; git commit), name a registered workspace, or send attachments ([{path, content}]).',
        );
    },
  };
}

/**
 * `registered` with `workspace` beside its entries: found by its name (before a registered one of
 * the same name, which it hides) and listed first. Writes go to `registered`.
 *
 * @example
 * const workspaces = withDefaultWorkspace(store.composerWorkspaces, composerFolderWorkspace(config.local.workspace).workspace);
 * await workspaces.get('app'); // the folder, unregistered
 */
export function withDefaultWorkspace(registered: ComposerWorkspaceRepository, workspace: ComposerWorkspace): ComposerWorkspaceRepository {
  return {
    put: (entry) => registered.put(entry),
    remove: (name) => registered.remove(name),
    get: async (name) => (name === workspace.name ? workspace : registered.get(name)),
    list: async () => [workspace, ...(await registered.list()).filter((entry) => entry.name !== workspace.name)],
  };
}
