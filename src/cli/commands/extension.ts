// `loom extension new|list|trust|untrust|restart|reload`, `loom commands` and `loom run-command`:
// extensions and their commands. Scaffolding and trust work on the folders themselves (no server
// needed); the rest talk to a running `loom serve` through the typed client, found as
// `loom agent` finds it.
import path from 'node:path';
import { Command } from 'commander';
import type { LocalClient } from '../../client/local.ts';
import type { ExtensionList } from '../../contracts/local-resources.ts';
import { discoverExtensions, extensionRoots } from '../../extensions/manifest.ts';
import { scaffoldExtension } from '../../extensions/scaffold.ts';
import { WorkspaceTrust } from '../../extensions/trust.ts';
import { cliAction, CliError, localCall as call } from '../errors.ts';
import { localServerFor } from '../local-server.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { formatTable, oneLine, print, printJson, printWarning } from '../output.ts';

/** `loom extension …`. */
export function extensionCommand(): Command {
  return new Command('extension')
    .description('extensions: scaffold, list, trust a workspace to run its own, restart, reload')
    .addCommand(newCommand())
    .addCommand(listCommand())
    .addCommand(trustCommand('trust'))
    .addCommand(trustCommand('untrust'))
    .addCommand(restartCommand())
    .addCommand(reloadCommand());
}

/** `loom commands`: the extensions' commands. */
export function commandsCommand(): Command {
  const command = new Command('commands').description("the extensions' commands of a running `loom serve`").option('--json', 'print them as JSON');
  return withServer(command).action(
    cliAction(async (options: { json?: boolean }, self: Command) => {
      const { commands } = await call(async () => (await clientFor(self)).call('listCommands'));
      if (options.json) return printJson(commands);
      if (commands.length === 0) return print('No commands: no extension provides one (loom extension list).\n');
      print(`${formatTable([['COMMAND', 'TITLE', 'EXTENSION'], ...commands.map((c) => [c.name, oneLine(c.title), c.extension])])}\n`);
    }),
  );
}

/** `loom run-command NAME [ARGS…]`: each argument is JSON when it parses as JSON (`3`, `true`, `{"a":1}`), else a string. */
export function runCommandCommand(): Command {
  const command = new Command('run-command')
    .description("run an extension's command on a running `loom serve` and print its result")
    .argument('<name>', 'the command, e.g. wordCount.count')
    .argument('[args...]', 'its arguments: JSON where they parse as JSON, else strings')
    .option('--json', 'print the result as JSON, even a string');
  return withServer(command).action(
    cliAction(async (name: string, args: string[], options: { json?: boolean }, self: Command) => {
      const { result } = await call(async () => (await clientFor(self)).call('runCommand', { params: { name }, body: { args: args.map(jsonOrString) } }));
      if (!options.json && typeof result === 'string') print(`${result}\n`);
      else if (options.json || result !== null) printJson(result);
    }),
  );
}

function newCommand(): Command {
  const command = new Command('new')
    .description('scaffold an extension: in the config folder (yours, always trusted), or with --workspace in <workspace>/.loom/extensions')
    .argument('<name>', 'lower case letters, digits, ".", "_" or "-", e.g. hello-world')
    .option('--workspace [dir]', "in this workspace's .loom/extensions (the current folder when no dir is given)")
    .option('--json', 'print {dir, command}');
  return addSettingOptions(command, ['configDir']).action(
    cliAction(async (name: string, options: { workspace?: string | true; json?: boolean }, self: Command) => {
      const { local } = configFromOptions(self);
      const workspace = options.workspace === true ? process.cwd() : options.workspace;
      const roots = extensionRoots(local.configDir, workspace ?? local.workspace);
      const { dir, command: made } = asCliError(() => scaffoldExtension(workspace === undefined ? roots.user : roots.workspace, name));
      if (options.json) return printJson({ dir, command: made });
      print(`Created ${dir}\nRun it: loom run-command ${made}   (on a running loom serve: loom extension reload first)\n`);
      if (workspace !== undefined) print(`A workspace's extensions run once the workspace is trusted: loom extension trust ${path.resolve(workspace)}\n`);
    }),
  );
}

function listCommand(): Command {
  const command = new Command('list')
    .description('the extensions found and their state (from a running loom serve, else from the folders), and those in the folders it has not loaded')
    .option('--json', 'print them as JSON');
  return withServer(command, ['workspace']).action(
    cliAction(async (options: { json?: boolean }, self: Command) => {
      const list = await running(self, (client) => client.call('listExtensions'));
      const { local } = configFromOptions(self);
      const trust = new WorkspaceTrust(local.configDir, printWarning);
      // The running server's workspace when one runs: its folders are the ones it loads from.
      const workspace = list?.workspace ?? local.workspace;
      const roots = extensionRoots(local.configDir, workspace);
      const onDisk = folderList(roots, workspace, trust.isTrusted(workspace));
      const shown: Listed = list ?? onDisk;
      // What the folders hold now and the running server has not loaded (added since it read
      // them), or loaded and is no longer there: a reload makes the two agree.
      const key = (e: { scope: string; name: string }) => `${e.scope}:${e.name}`;
      const loaded = new Set(shown.extensions.map(key));
      const present = new Set(onDisk.extensions.map(key));
      const notLoaded = list ? onDisk.extensions.filter((e) => !loaded.has(key(e))).map(({ name, scope, dir }) => ({ name, scope, dir })) : [];
      const removed = list ? shown.extensions.filter((e) => !present.has(key(e))).map(({ name, scope, dir }) => ({ name, scope, dir })) : [];
      if (options.json) return printJson({ ...shown, notLoaded, removed });
      if (shown.extensions.length > 0)
        print(
          `${formatTable([
            ['NAME', 'VERSION', 'SCOPE', 'STATE', 'COMMANDS'],
            ...shown.extensions.map((e) => [e.name, e.version, e.scope, e.state, e.commands.join(', ')]),
          ])}\n`,
        );
      else if (list && notLoaded.length > 0) print('The running loom serve has loaded no extensions.\n');
      else print(`No extensions in ${roots.user} or ${roots.workspace}.\n`);
      for (const problem of shown.problems) printWarning(`skipped ${problem.dir}: ${problem.message}`);
      for (const e of notLoaded) print(`${e.name} (${e.dir}) is not loaded by the running loom serve: loom extension reload loads it.\n`);
      for (const e of removed) print(`${e.name} is loaded but its folder ${e.dir} is gone: loom extension reload unloads it.\n`);
      if (!shown.workspaceTrusted && [...shown.extensions, ...notLoaded].some((e) => e.scope === 'workspace'))
        print(`The workspace ${shown.workspace} is not trusted: its extensions do not run (loom extension trust).\n`);
    }),
  );
}

/** An extension as `list` shows it: the server's state, or `not running` when no server runs. */
type Listed = Omit<ExtensionList, 'extensions'> & { extensions: (Omit<ExtensionList['extensions'][number], 'state'> & { state: string })[] };

/** The extensions the folders hold now, as the server would list them before starting any. */
function folderList(roots: { user: string; workspace: string }, workspace: string, trusted: boolean): Listed {
  const user = discoverExtensions(roots.user, 'user');
  const inWorkspace = discoverExtensions(roots.workspace, 'workspace');
  return {
    workspace,
    workspaceTrusted: trusted,
    extensions: [...user.manifests, ...inWorkspace.manifests].map((m) => ({
      name: m.name,
      version: m.version,
      title: m.title,
      scope: m.scope,
      dir: m.dir,
      state: m.scope === 'workspace' && !trusted ? 'untrusted' : 'not running',
      commands: m.commands.map((c) => c.command),
    })),
    problems: [...user.problems, ...inWorkspace.problems],
  };
}

function trustCommand(verb: 'trust' | 'untrust'): Command {
  const command = new Command(verb)
    .description(
      verb === 'trust'
        ? 'trust a workspace (the current one by default) to run its extensions (.loom/extensions): only do so if you trust its code'
        : 'stop trusting a workspace: its extensions stop and no longer run',
    )
    .argument('[path]', 'the workspace folder')
    .option('--json', 'print {workspace, trusted, runningServerTold}');
  return withServer(command, ['workspace']).action(
    cliAction(async (target: string | undefined, options: { json?: boolean }, self: Command) => {
      const { local } = configFromOptions(self);
      const trust = new WorkspaceTrust(local.configDir, printWarning);
      const folder = trust[verb](target ?? local.workspace);
      if (!options.json) print(`${verb === 'trust' ? 'Trusted' : 'No longer trusted'}: ${folder}\n`);
      // A running server on that workspace starts (or stops) its extensions now.
      const list = await running(self, (client) => client.call('listExtensions'));
      const told = Boolean(list && path.resolve(list.workspace) === folder);
      if (told) {
        await call(async () => (await clientFor(self)).call('trustWorkspace', { body: { trusted: verb === 'trust' } }));
        if (!options.json) print(`The running loom serve ${verb === 'trust' ? 'started' : 'stopped'} its extensions.\n`);
      }
      if (options.json) printJson({ workspace: folder, trusted: verb === 'trust', runningServerTold: told });
    }),
  );
}

function restartCommand(): Command {
  const command = new Command('restart')
    .description('deactivate an extension and start it again (after a crash, an endless loop, or an edit)')
    .argument('<name>')
    .option('--json', 'print its state as JSON');
  return withServer(command).action(
    cliAction(async (name: string, options: { json?: boolean }, self: Command) => {
      const info = await call(async () => (await clientFor(self)).call('restartExtension', { params: { name } }));
      if (options.json) return printJson(info);
      print(`${info.name}: ${info.state}${info.failure ? ` (${info.failure})` : ''}\n`);
      if (info.state === 'failed') process.exitCode = 1;
    }),
  );
}

function reloadCommand(): Command {
  const command = new Command('reload').description('deactivate every extension and read the extension folders again').option('--json', 'print them as JSON');
  return withServer(command).action(
    cliAction(async (options: { json?: boolean }, self: Command) => {
      const list = await call(async () => (await clientFor(self)).call('reloadExtensions'));
      if (options.json) return printJson(list);
      print(`${reloadSummary(list)}\n`);
      for (const problem of list.problems) printWarning(`skipped ${problem.dir}: ${problem.message}`);
    }),
  );
}

/**
 * What a reload left, in one line: the extensions that may run, those that do not (an untrusted
 * workspace's, never started; those that failed) and the folders skipped.
 *
 * @example reloadSummary(list) // "1 extension(s) loaded, 1 not run: the workspace /w is not trusted (loom extension trust /w)."
 */
export function reloadSummary(list: ExtensionList): string {
  const count = (state: string) => list.extensions.filter((e) => e.state === state).length;
  const untrusted = count('untrusted');
  const failed = count('failed');
  const parts = [`${list.extensions.length - untrusted - failed} extension(s) loaded`];
  if (untrusted) parts.push(`${untrusted} not run: the workspace ${list.workspace} is not trusted (loom extension trust ${list.workspace})`);
  if (failed) parts.push(`${failed} failed (loom extension list says why)`);
  if (list.problems.length) parts.push(`${list.problems.length} skipped`);
  return `${parts.join(', ')}.`;
}

/** The settings that find the server: its port and the config folder holding its token (and the workspace, for some). */
function withServer(command: Command, more: ['workspace'] | [] = []): Command {
  return addSettingOptions(command, ['local.port', 'configDir', ...more]);
}

/** A client of the running loom serve; the client's module (the route table and its schemas) loads here, not at start. */
async function clientFor(command: Command): Promise<LocalClient> {
  return (await localServerFor(command)).client;
}

/** A call to the server when one runs; undefined when none does. */
async function running<T>(command: Command, request: (client: LocalClient) => Promise<T>): Promise<T | undefined> {
  try {
    return await request(await clientFor(command));
  } catch (error) {
    const { LocalApiError } = await import('../../client/local.ts');
    if (error instanceof LocalApiError && error.code === 'UNREACHABLE') return undefined;
    return call(() => Promise.reject(error));
  }
}

function jsonOrString(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function asCliError<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}
