import { Command, InvalidArgumentError } from 'commander';
import { forTerminal, oneLine, print, printJson } from '../output.ts';
import { addSettingOptions } from '../options.ts';
import { clientsCommand } from './admin-clients.ts';
import { keysCommand } from './admin-keys.ts';
import { withStore } from './admin-store.ts';
import { usersCommand } from './admin-users.ts';
import { workspacesCommand } from './admin-workspaces.ts';

export function adminCommand(): Command {
  const admin = new Command('admin').description('operator tasks on the hosted API store');
  const feedback = new Command('feedback').description('product feedback sent to POST /api/v1/feedback');

  const list = new Command('list')
    .description('list stored feedback, newest first')
    .option('--json', 'print JSON (one array) instead of a table')
    .option('--limit <n>', 'how many to show', positiveInteger, 50)
    .option('--before <id>', 'only feedback older than this id (paging)');
  addSettingOptions(list, ['dataDir']).action((options, command: Command) =>
    withStore(command, async (store) => {
      const records = await store.feedback.list({ limit: options.limit, before: options.before });
      if (options.json) {
        printJson(records);
        return;
      }
      if (records.length === 0) {
        print('No feedback stored.\n');
        return;
      }
      for (const r of records) {
        // Anyone can send feedback: no field can start a line of its own, each message line stays indented.
        const message = r.message.split(/\r?\n/).map(forTerminal).join('\n  ');
        print(`${oneLine(r.createdAt)}  ${oneLine(r.id)}  ${oneLine(r.name)} <${oneLine(r.email)}>\n  ${oneLine(r.subject)}\n  ${message}\n\n`);
      }
    }),
  );

  return admin
    .addCommand(feedback.addCommand(list))
    .addCommand(clientsCommand())
    .addCommand(usersCommand())
    .addCommand(keysCommand())
    .addCommand(workspacesCommand());
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new InvalidArgumentError('a whole number from 1 to 10000');
  return n;
}
