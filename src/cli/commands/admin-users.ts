// `loom admin users add|list`: the users of the hosted API. `add` makes a local user, one with no
// code host or OpenID Connect provider behind it, for `loom admin keys create` to give keys to:
// a fresh install has a working token before any sign-in provider is configured.
import { Command } from 'commander';
import { LOCAL_PROVIDER, LocalUsers } from '../../core/identity/local-users.ts';
import type { UserListing } from '../../core/identity/records.ts';
import { CliError, cliAction } from '../errors.ts';
import { addSettingOptions } from '../options.ts';
import { formatTable, oneLine, print, printJson } from '../output.ts';
import { withStore } from './admin-store.ts';

/** A user as `--json` shows it. */
export interface UserView {
  id: string;
  login: string;
  name: string | null;
  email: string | null;
  /** `local` for users made by `loom admin users add`; `codehost`, `oidc` for those who signed in. */
  providers: string[];
  createdAt: string;
}

export function usersCommand(): Command {
  const users = new Command('users').description('users of the hosted API: local ones added here, and those who signed in');

  const add = new Command('add')
    .description('add a local user (no code host): `loom admin keys create --user NAME` then makes it an API key')
    .argument('<name>', '1 to 39 letters, digits, ".", "_" or "-", a letter or digit first; unique in any letter case')
    .option('--json', 'print JSON');
  addSettingOptions(add, ['dataDir']).action(
    cliAction(async (name: string, options: { json?: boolean }, command: Command) => {
      await withStore(command, async (store) => {
        const user = await new LocalUsers(store.users).add(name);
        if (!user) throw new CliError(`a user named ${name} exists already; loom admin users list shows them`);
        if (options.json) {
          printJson(viewOf({ ...user, providers: [LOCAL_PROVIDER] }));
          return;
        }
        print(`Added local user ${oneLine(user.login)} (id ${user.id}).\nGive it an API key: loom admin keys create --user ${oneLine(user.login)}\n`);
      });
    }),
  );

  const list = new Command('list').description('list every user, oldest first').option('--json', 'print JSON (one array)');
  addSettingOptions(list, ['dataDir']).action(
    cliAction(async (options: { json?: boolean }, command: Command) => {
      await withStore(command, async (store) => {
        const views = (await store.users.list()).map(viewOf);
        if (options.json) {
          printJson(views);
          return;
        }
        if (views.length === 0) {
          print('No users yet. Add one: loom admin users add NAME\n');
          return;
        }
        // The login comes last: one from a code host may be long.
        const rows = views.map((v) => [v.id, v.providers.join(',') || '-', v.createdAt, v.login]);
        print(formatTable([['ID', 'PROVIDERS', 'CREATED', 'LOGIN'], ...rows]) + '\n');
      });
    }),
  );

  return users.addCommand(add).addCommand(list);
}

function viewOf(user: UserListing): UserView {
  return { id: user.id, login: user.login, name: user.name, email: user.email, providers: user.providers, createdAt: user.createdAt };
}
