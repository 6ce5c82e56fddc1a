// `loom agent run|say|status|list|steps|cancel|revert`: agent tasks on a running `loom serve` (or
// `loom up`), through the typed client of the local API. The server is found as `loom serve`
// would listen (`--port`, LOOM_LOCAL_PORT, the config file) and the token read from settings.json
// in the config folder, as `loom token` prints it. The token cannot approve a command a task asks
// to run: that is the window's, and these commands say where to answer.
import { Command, InvalidArgumentError } from 'commander';
import { cliAction, localCall as call } from '../errors.ts';
import { localServerFor, withLocalServerOptions, type LocalServer } from '../local-server.ts';
import { formatTable, oneLine, print, printJson } from '../output.ts';

/** `loom agent …`. */
export function agentCommand(): Command {
  return new Command('agent')
    .description('autonomous coding tasks on the workspace of a running `loom serve`')
    .addCommand(runCommand())
    .addCommand(sayCommand())
    .addCommand(statusCommand())
    .addCommand(listCommand())
    .addCommand(stepsCommand())
    .addCommand(taskCommand('cancel', 'stop a running task (it keeps the changes it applied)', 'cancelAgentTask'))
    .addCommand(taskCommand('revert', 'undo every change of a task, while the files are as it left them', 'revertAgentTask'));
}

/** Globs are taken whole (a glob may hold commas: `src/**\/*.{ts,tsx}`), repeatable. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function runCommand(): Command {
  const command = new Command('run')
    .description('start a task; with --watch, follow it to its end (exit 1 unless it completes)')
    .argument('<task>', 'what the agent should do, in your words')
    .requiredOption('--files <glob>', 'files the task may change, relative to the workspace (repeatable), e.g. "src/**/*.ts"', collect)
    .option('--model <name>', 'a model that can chat, by name or kind (openai, gguf)')
    .option('--watch', 'print its steps and edits (as diffs) as they happen, then its status')
    .option('--json', 'print JSON: the start answer; with --watch, one event per line (NDJSON) and the status last');
  return withServer(command).action(
    cliAction(async (task: string, options: { files: string[]; model?: string; watch?: boolean; json?: boolean }, self: Command) => {
      const { client, url } = await serverFor(self);
      const body = { task, files: options.files, ...(options.model !== undefined ? { model: options.model } : {}) };
      if (options.watch) {
        const { watchTask } = await import('./agent-watch.ts');
        const status = await watchTask(client, url, () => client.call('runAgent', { body }), { json: options.json === true });
        if (status.status !== 'completed') process.exitCode = 1;
        return;
      }
      const started = await call(() => client.call('runAgent', { body }));
      if (options.json) printJson(started);
      else print(`${started.taskId} running (estimated ${started.estimatedTime} s); follow it with: loom agent status ${started.taskId}\n`);
    }),
  );
}

function sayCommand(): Command {
  const command = new Command('say')
    .description(
      'continue a task that has ended with your message (its changes and conversation kept, new budgets), and follow it to its end (exit 1 unless it completes)',
    )
    .argument('<taskId>')
    .argument('<message>', 'what the agent should do next, in your words')
    .option('--no-watch', 'only send the message: print that the task runs again, and return')
    .option('--json', 'print JSON: the answer; watching, one event per line (NDJSON) and the status last');
  return withServer(command).action(
    cliAction(async (taskId: string, message: string, options: { watch: boolean; json?: boolean }, self: Command) => {
      const { client, url } = await serverFor(self);
      const send = () => client.call('sendAgentMessage', { params: { taskId }, body: { message } });
      if (options.watch) {
        const { watchTask } = await import('./agent-watch.ts');
        const status = await watchTask(client, url, send, { json: options.json === true });
        if (status.status !== 'completed') process.exitCode = 1;
        return;
      }
      const started = await call(send);
      if (options.json) printJson(started);
      else print(`${started.taskId} running again (estimated ${started.estimatedTime} s); follow it with: loom agent status ${started.taskId}\n`);
    }),
  );
}

function statusCommand(): Command {
  const command = new Command('status')
    .description("a task's status and its changes, as diffs")
    .argument('<taskId>')
    .option('--json', 'print the status as JSON');
  return withServer(command).action(
    cliAction(async (taskId: string, options: { json?: boolean }, self: Command) => {
      const { client, url } = await serverFor(self);
      const status = await call(() => client.call('getAgentStatus', { params: { taskId } }));
      if (options.json) printJson(status);
      else print((await import('./agent-watch.ts')).describeTask(status, { diffs: true, windowUrl: `${url}/` }));
    }),
  );
}

function listCommand(): Command {
  const command = new Command('list')
    .description('tasks, newest first')
    .option('--limit <n>', 'at most this many (1 to 200; default 50)', (value) => positiveInteger(value))
    .option('--json', 'print the list as JSON');
  return withServer(command).action(
    cliAction(async (options: { limit?: number; json?: boolean }, self: Command) => {
      const { client } = await serverFor(self);
      const { tasks } = await call(() => client.call('listAgentTasks', { query: options.limit !== undefined ? { limit: options.limit } : {} }));
      if (options.json) return printJson(tasks);
      if (tasks.length === 0) return print('No agent tasks.\n');
      const rows = tasks.map((task) => [
        task.taskId,
        task.status + (task.reason && task.reason !== 'done' ? ` (${task.reason})` : task.approval ? ' (waiting for approval)' : ''),
        String(task.steps),
        String(task.changes.length),
        task.createdAt,
        task.task.split('\n')[0]!,
      ]);
      print(`${formatTable([['ID', 'STATUS', 'STEPS', 'CHANGES', 'STARTED', 'TASK'], ...rows])}\n`);
    }),
  );
}

function stepsCommand(): Command {
  const command = new Command('steps')
    .description("a task's step log: model turns, tool calls and results, notes to the model")
    .argument('<taskId>')
    .option('--after <n>', 'only entries after this index', (value) => positiveInteger(value, 0))
    .option('--json', 'print the steps as JSON');
  return withServer(command).action(
    cliAction(async (taskId: string, options: { after?: number; json?: boolean }, self: Command) => {
      const { client } = await serverFor(self);
      const { steps } = await call(() =>
        client.call('getAgentSteps', {
          params: { taskId },
          query: options.after !== undefined ? { after: options.after, limit: 500 } : { limit: 500 },
        }),
      );
      if (options.json) return printJson(steps);
      for (const step of steps)
        print(
          `#${step.index} turn ${step.turn} ${step.kind}${step.tool ? ` ${oneLine(step.tool)}${step.ok === false ? ' (refused)' : ''}` : ''}\n${indent(step.text)}${step.diff ? indent(step.diff) : ''}`,
        );
    }),
  );
}

function taskCommand(name: 'cancel' | 'revert', description: string, route: 'cancelAgentTask' | 'revertAgentTask'): Command {
  const command = new Command(name).description(description).argument('<taskId>').option('--json', "print the task's status as JSON");
  return withServer(command).action(
    cliAction(async (taskId: string, options: { json?: boolean }, self: Command) => {
      const { client } = await serverFor(self);
      const status = await call(() => client.call(route, { params: { taskId } }));
      if (options.json) printJson(status);
      else print((await import('./agent-watch.ts')).describeTask(status, { diffs: false }));
    }),
  );
}

function withServer(command: Command): Command {
  return withLocalServerOptions(command);
}

function serverFor(command: Command): Promise<LocalServer> {
  return localServerFor(command);
}

function positiveInteger(value: string, minimum = 1): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < minimum) throw new InvalidArgumentError(`a whole number of at least ${minimum}.`);
  return number;
}

function indent(text: string): string {
  return text === '' ? '' : `${text.replace(/\n$/, '').replace(/^/gm, '    ')}\n`;
}
