// `loom git status|stage|unstage|branch|switch|commit|push|pull`: git in the workspace of a running `loom serve` (or `loom
// up`), through its local API, as the desktop app does it: the same checks (paths inside the
// workspace, no force push, a refused commit leaves the index as it was) and the same events.
import { Command } from 'commander';
import { cliAction, localCall as call } from '../errors.ts';
import { localServerFor, withLocalServerOptions } from '../local-server.ts';
import { oneLine, print, printJson } from '../output.ts';

/** `loom git …`. */
export function gitCommand(): Command {
  return new Command('git')
    .description('git in the workspace of a running `loom serve`: status, stage, unstage, branch, switch, commit, push, pull')
    .addCommand(statusCommand())
    .addCommand(stagingCommand('stage', 'stage the files given (new, changed, deleted), or every change'))
    .addCommand(stagingCommand('unstage', 'unstage the files given, or everything; the working tree keeps its changes'))
    .addCommand(branchCommand())
    .addCommand(switchCommand())
    .addCommand(commitCommand())
    .addCommand(syncCommand('push', 'push a branch (default: the current one) to its upstream, else origin; never forces'))
    .addCommand(syncCommand('pull', 'fetch and merge a branch into the current one (a fast-forward when it can)'));
}

function statusCommand(): Command {
  const command = new Command('status').description('the branch, its upstream and the changed files').option('--json', 'print the status as JSON');
  return withLocalServerOptions(command).action(
    cliAction(async (options: { json?: boolean }, self: Command) => {
      const { client } = await localServerFor(self);
      const status = await call(() => client.call('getGitStatus'));
      if (options.json) return printJson(status);
      const branch = status.branch ? oneLine(status.branch) : `(detached at ${status.head?.slice(0, 7) ?? 'nothing'})`;
      const upstream = status.upstream ? `, ${status.ahead} ahead and ${status.behind} behind ${oneLine(status.upstream)}` : ', no upstream';
      const lines = [`On ${branch}${upstream}${status.merging ? '; a merge is in progress (commit to conclude it)' : ''}`];
      if (status.clean) lines.push('Nothing to commit: the working tree is clean.');
      for (const file of status.files) {
        const state = file.conflicted ? 'conflict' : `${file.index}${file.workingTree}`.replace(/ /g, '.');
        lines.push(`  ${state.padEnd(8)} ${oneLine(file.originalPath ? `${file.originalPath} -> ${file.path}` : file.path)}`);
      }
      print(lines.join('\n') + '\n');
    }),
  );
}

function commitCommand(): Command {
  const command = new Command('commit')
    .description('commit every change in the workspace, or exactly the files given')
    .argument('[files...]', 'paths relative to the workspace (a folder stands for everything under it); default: every change')
    .requiredOption('-m, --message <text>', 'the commit message')
    .option('--json', 'print the commit as JSON');
  return withLocalServerOptions(command).action(
    cliAction(async (files: string[], options: { message: string; json?: boolean }, self: Command) => {
      const { client } = await localServerFor(self);
      const body = { message: options.message, ...(files.length ? { files } : {}) };
      const result = await call(() => client.call('commit', { body }));
      if (options.json) return printJson(result);
      const where = result.branch ? oneLine(result.branch) : 'a detached HEAD';
      print(
        `[${where} ${result.commit.slice(0, 7)}] ${oneLine(result.summary)}\n ${result.files.length} file${result.files.length === 1 ? '' : 's'} changed\n`,
      );
    }),
  );
}

function syncCommand(name: 'push' | 'pull', description: string): Command {
  const command = new Command(name)
    .description(description)
    .option('--remote <name>', "a configured remote (default: the branch's upstream remote, else origin)")
    .option(
      '--branch <name>',
      name === 'push' ? 'the local branch to push (default: the current one)' : 'the remote branch to merge (default: the upstream branch)',
    )
    .option('--json', 'print the result as JSON');
  return withLocalServerOptions(command).action(
    cliAction(async (options: { remote?: string; branch?: string; json?: boolean }, self: Command) => {
      const { client } = await localServerFor(self);
      const body = { ...(options.remote ? { remote: options.remote } : {}), ...(options.branch ? { branch: options.branch } : {}) };
      const result = await call(() => client.call(name, { body }));
      if (options.json) printJson(result);
      else print(`${oneLine(result.summary)}\n`);
    }),
  );
}

function stagingCommand(name: 'stage' | 'unstage', description: string): Command {
  const command = new Command(name)
    .description(description)
    .argument('[files...]', 'paths relative to the workspace (a folder stands for everything under it); default: every change')
    .option('--json', 'print the status afterwards as JSON');
  return withLocalServerOptions(command).action(
    cliAction(async (files: string[], options: { json?: boolean }, self: Command) => {
      const { client } = await localServerFor(self);
      const status = await call(() => client.call(name, { body: files.length ? { files } : {} }));
      if (options.json) return printJson(status);
      const staged = status.files.filter((file) => file.staged).map((file) => `  ${oneLine(file.path)}`);
      print(staged.length ? `Staged:\n${staged.join('\n')}\n` : 'Nothing is staged.\n');
    }),
  );
}

function branchCommand(): Command {
  const command = new Command('branch')
    .description('create a branch (from HEAD, or --from a local or remote-tracking branch) and switch to it')
    .argument('<name>', 'the new branch')
    .option('--from <branch>', 'where it starts, e.g. main or origin/main (default: HEAD)')
    .option('--no-switch', 'only create it')
    .option('--json', 'print the result as JSON');
  return withLocalServerOptions(command).action(
    cliAction(async (name: string, options: { from?: string; switch: boolean; json?: boolean }, self: Command) => {
      const { client } = await localServerFor(self);
      const body = { name, switch: options.switch, ...(options.from ? { from: options.from } : {}) };
      const result = await call(() => client.call('createBranch', { body }));
      if (options.json) printJson(result);
      else print(`${oneLine(result.summary)}\n`);
    }),
  );
}

function switchCommand(): Command {
  const command = new Command('switch')
    .description('switch to a branch (refused, nothing changed, when local changes would be overwritten)')
    .argument('<branch>', 'a local branch, or one only a remote has')
    .option('--json', 'print the result as JSON');
  return withLocalServerOptions(command).action(
    cliAction(async (branch: string, options: { json?: boolean }, self: Command) => {
      const { client } = await localServerFor(self);
      const result = await call(() => client.call('switchBranch', { body: { branch } }));
      if (options.json) printJson(result);
      else print(`${oneLine(result.summary)}\n`);
    }),
  );
}
