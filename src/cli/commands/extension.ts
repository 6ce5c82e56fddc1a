// `loom extension new|list|trust|untrust|restart|reload`, `loom commands` and `loom run-command`:
// extensions and their commands. Scaffolding and trust work on the folders themselves (no server
// needed); the rest talk to a running `loom serve` through the typed client, found as
// `loom agent` finds it.
import path from 'node:path';
import { Command } from 'commander';
import type { LocalClient } from '../../client/local.ts';
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
    .description('the extensions found and their state (from a running loom serve, else from the folders)')
    .option('--json', 'print them as JSON');
  return withServer(command, ['workspace']).action(
    cliAction(async (options: { json?: boolean }, self: Command) => {
      const list = await running(self, (client) => client.call('listExtensions'));
      const { local } = configFromOptions(self);
      const trust = new WorkspaceTrust(local.configDir, printWarning);
      const roots = extensionRoots(local.configDir, local.workspace);
      const offline = () => {
        const user = discoverExtensions(roots.user, 'user');
        const workspace = discoverExtensions(roots.workspace, 'workspace');
        const trusted = trust.isTrusted(local.workspace);
        return {
          workspace: local.workspace,
          workspaceTrusted: trusted,
          extensions: [...user.manifests, ...workspace.manifests].map((m) => ({
            name: m.name,
            version: m.version,
            scope: m.scope,
            dir: m.dir,
            state: m.scope === 'workspace' && !trusted ? 'untrusted' : 'not running',
            commands: m.commands.map((c) => c.command),
          })),
          problems: [...user.problems, ...workspace.problems],
        };
      };
      const shown = list ?? offline();
      if (options.json) return printJson(shown);
      if (shown.extensions.length === 0) print(`No extensions in ${roots.user} or ${roots.workspace}.\n`);
      else
        print(
          `${formatTable([
            ['NAME', 'VERSION', 'SCOPE', 'STATE', 'COMMANDS'],
            ...shown.extensions.map((e) => [e.name, e.version, e.scope, e.state, e.commands.join(', ')]),
          ])}\n`,
        );
      for (const problem of shown.problems) printWarning(`skipped ${problem.dir}: ${problem.message}`);
      if (!shown.workspaceTrusted && shown.extensions.some((e) => e.scope === 'workspace'))
        print(`The workspace ${shown.workspace} is not trusted: its extensions do not run (loom extension trust).\n`);
    }),
  );
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
      print(`${list.extensions.length} extension(s) loaded${list.problems.length ? `, ${list.problems.length} skipped` : ''}.\n`);
      for (const problem of list.problems) printWarning(`skipped ${problem.dir}: ${problem.message}`);
    }),
  );
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
