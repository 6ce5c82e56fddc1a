// `loom admin workspaces add|list|rm`: the git repositories composer sessions may run on. The
// server clones each into its data dir and fetches it before every session (docs/composer.md).
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import type { ComposerWorkspace } from '../../core/composer/types.ts';
import { CliError, cliAction } from '../errors.ts';
import { addSettingOptions } from '../options.ts';
import { formatTable, oneLine, print, printJson } from '../output.ts';
import { withStore } from './admin-store.ts';

const NETWORK_URL = /^(https?|ssh|git):\/\/[^\s]+$/;
/** scp-like `user@host:path/repo.git`. */
const SCP_LIKE = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+$/;

/**
 * The repository as stored: a network URL, an scp-like address, or an existing folder made
 * absolute. Never something git would read as an option or a transport that runs programs.
 */
export function checkRepo(repo: string): string {
  const value = repo.trim();
  if (value === '' || value.startsWith('-') || /[\u0000-\u001f]/.test(value) || value.includes('::')) {
    throw new CliError(`--repo ${JSON.stringify(repo)} is not a repository URL or path`);
  }
  if (NETWORK_URL.test(value) || SCP_LIKE.test(value)) return value;
  const folder = path.resolve(value.startsWith('file://') ? new URL(value).pathname : value);
  if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory())
    throw new CliError(`--repo ${folder} is not a folder (give a git URL or the path of a repository)`);
  return folder;
}

export function workspacesCommand(): Command {
  const workspaces = new Command('workspaces').description('git repositories composer sessions run on');

  const add = new Command('add')
    .description('register (or replace) a workspace: the server clones it into its data dir and fetches it before each session')
    .argument('<name>', 'letters, digits, ".", "_" or "-", a letter or digit first, at most 64')
    .requiredOption('--repo <url-or-path>', 'the repository: https://, ssh://, git@host:path, or a local path')
    .option('--branch <branch>', "the branch sessions start from (default: the origin's default branch)")
    .option('--push', "push each session's branch loom/composer/<id> back to the repository")
    .option('--json', 'print JSON');
  addSettingOptions(add, ['dataDir']).action(
    cliAction(async (name: string, options: { repo: string; branch?: string; push?: boolean; json?: boolean }, command: Command) => {
      // Loaded here, not at start: both modules bring schemas (loom --help stays quick).
      const [{ WORKSPACE_NAME_PATTERN }, { checkBranchName }] = await Promise.all([
        import('../../contracts/composer.ts'),
        import('../../core/git/validate.ts'),
      ]);
      if (!new RegExp(WORKSPACE_NAME_PATTERN).test(name))
        throw new CliError(`${JSON.stringify(name)} is not a workspace name: letters, digits, ".", "_" or "-", a letter or digit first`);
      let branch: string | null = null;
      if (options.branch !== undefined) {
        try {
          branch = checkBranchName(options.branch, '--branch');
        } catch (error) {
          throw new CliError((error as Error).message);
        }
      }
      const workspace: ComposerWorkspace = { name, repo: checkRepo(options.repo), branch, push: options.push === true, createdAt: new Date().toISOString() };
      await withStore(command, async (store) => {
        await store.composerWorkspaces.put(workspace);
        if (options.json) printJson(workspace);
        else
          print(
            `Registered workspace ${name}: ${oneLine(workspace.repo)}${branch ? ` (branch ${branch})` : ''}${workspace.push ? ', sessions pushed back' : ''}.\n`,
          );
      });
    }),
  );

  const list = new Command('list').description('list the workspaces').option('--json', 'print JSON (one array)');
  addSettingOptions(list, ['dataDir']).action(
    cliAction(async (options: { json?: boolean }, command: Command) => {
      await withStore(command, async (store) => {
        const all = await store.composerWorkspaces.list();
        if (options.json) return printJson(all);
        if (all.length === 0) return print('No workspaces. Register one: loom admin workspaces add NAME --repo URL_OR_PATH\n');
        print(
          formatTable([['NAME', 'BRANCH', 'PUSH', 'REPO'], ...all.map((w) => [w.name, w.branch ?? '(default)', w.push ? 'yes' : 'no', oneLine(w.repo)])]) +
            '\n',
        );
      });
    }),
  );

  const rm = new Command('rm').description('unregister a workspace (its clone stays in the data dir)').argument('<name>').option('--json', 'print JSON');
  addSettingOptions(rm, ['dataDir']).action(
    cliAction(async (name: string, options: { json?: boolean }, command: Command) => {
      await withStore(command, async (store) => {
        const removed = await store.composerWorkspaces.remove(name);
        if (!removed) throw new CliError(`there is no workspace ${name}; loom admin workspaces list shows them`);
        if (options.json) printJson({ name, removed: true });
        else print(`Removed workspace ${name}.\n`);
      });
    }),
  );

  return workspaces.addCommand(add).addCommand(list).addCommand(rm);
}
