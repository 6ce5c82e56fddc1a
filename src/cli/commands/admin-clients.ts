// `loom admin clients add|list|remove`: the OAuth clients of the hosted server, registered
// straight in the store it uses (same --data-dir / DATABASE_URL resolution as the server).
import { Command } from 'commander';
import { GRANT_TYPES, type GrantType, type Scope } from '../../contracts/scopes.ts';
import type { ClientRegistry } from '../../core/identity/clients.ts';
import type { ClientRecord } from '../../core/identity/records.ts';
import { CliError, cliAction } from '../errors.ts';
import { addSettingOptions, listOption } from '../options.ts';
import { formatTable, oneLine, print, printJson } from '../output.ts';
import { withStore } from './admin-store.ts';

/** How a client is shown: never its secret hash. */
export interface ClientView {
  client_id: string;
  client_secret?: string;
  name: string;
  type: 'public' | 'confidential';
  grant_types: GrantType[];
  redirect_uris: string[];
  scopes: Scope[];
  created_at?: string;
}

export function clientsCommand(): Command {
  const clients = new Command('clients').description('OAuth clients of the hosted API (the built-in loom-cli is always there)');

  const add = new Command('add')
    .description('register a client; a confidential one gets a secret, shown once')
    .requiredOption('--name <name>', 'a name for people (1 to 100 characters)')
    .option(
      '--grant <grants>',
      `grant types, repeatable or comma-separated: ${GRANT_TYPES.join(', ')} (default: authorization_code,refresh_token with --redirect-uri or --public, else client_credentials)`,
      listOption,
    )
    .option('--redirect-uri <uri>', 'an allowed redirect URI (repeatable): https, loopback http, or a private-use scheme', repeat)
    .option('--scope <scopes>', 'scopes the client may be granted, space- or comma-separated (default: every scope its grants allow)', listOption)
    .option('--public', 'a public client (no secret; PKCE): native and browser apps. Default: confidential')
    .option('--json', 'print JSON');
  addSettingOptions(add, ['dataDir']).action(
    cliAction(
      async (options: { name: string; grant?: string[]; redirectUri?: string[]; scope?: string[]; public?: boolean; json?: boolean }, command: Command) => {
        const type = options.public ? 'public' : 'confidential';
        const redirectUris = options.redirectUri ?? [];
        const grants = options.grant?.length
          ? options.grant
          : redirectUris.length || options.public
            ? ['authorization_code', 'refresh_token']
            : ['client_credentials'];
        await withRegistry(command, async (registry) => {
          const { client, clientSecret } = await registry.register({
            name: options.name,
            type,
            grantTypes: grants as GrantType[],
            redirectUris,
            scopes: options.scope?.length ? (options.scope as Scope[]) : undefined,
          });
          const view = { ...viewOf(client, false), ...(clientSecret ? { client_secret: clientSecret } : {}) };
          if (options.json) {
            const { client_id, client_secret, name, type, grant_types, redirect_uris, scopes } = view;
            printJson({ client_id, ...(client_secret ? { client_secret } : {}), name, type, grant_types, redirect_uris, scopes });
            return;
          }
          const lines = [`Registered ${client.type} client "${oneLine(client.name)}".`, `  client_id      ${client.clientId}`];
          if (clientSecret) lines.push(`  client_secret  ${clientSecret}`);
          lines.push(
            `  grants         ${client.grantTypes.join(' ')}`,
            `  scopes         ${client.scopes.join(' ')}`,
            `  redirect URIs  ${client.redirectUris.map(oneLine).join(' ') || '(none)'}`,
          );
          if (clientSecret) lines.push('', 'The secret is shown only now and stored hashed: keep it somewhere safe.');
          print(lines.join('\n') + '\n');
        });
      },
    ),
  );

  const ls = new Command('list').description('list the clients, the built-in loom-cli first').option('--json', 'print JSON (one array)');
  addSettingOptions(ls, ['dataDir']).action(
    cliAction(async (options: { json?: boolean }, command: Command) => {
      await withRegistry(command, async (registry) => {
        const views = (await registry.list()).map((client) => viewOf(client, true));
        if (options.json) {
          printJson(views);
          return;
        }
        print(formatTable([['CLIENT ID', 'TYPE', 'GRANTS', 'NAME'], ...views.map((v) => [v.client_id, v.type, v.grant_types.join(','), v.name])]) + '\n');
      });
    }),
  );

  const remove = new Command('remove')
    .description('remove a client: it can no longer get tokens')
    .argument('<client-id>', 'the client to remove')
    .option('--json', 'print {client_id, removed}');
  addSettingOptions(remove, ['dataDir']).action(
    cliAction(async (clientId: string, options: { json?: boolean }, command: Command) => {
      const { CLI_CLIENT_ID } = await import('../../core/identity/clients.ts');
      if (clientId === CLI_CLIENT_ID) throw new CliError(`${CLI_CLIENT_ID} is built in and cannot be removed`);
      await withRegistry(command, async (registry) => {
        if (!(await registry.remove(clientId))) throw new CliError(`no client ${clientId}; loom admin clients list shows them`);
        if (options.json) printJson({ client_id: clientId, removed: true });
        else print(`Removed client ${oneLine(clientId)}.\n`);
      });
    }),
  );

  return clients.addCommand(add).addCommand(ls).addCommand(remove);
}

function withRegistry(command: Command, work: (registry: ClientRegistry) => Promise<void>): Promise<void> {
  return withStore(command, async (store) => {
    const { ClientRegistry } = await import('../../core/identity/clients.ts');
    return work(new ClientRegistry(store.clients, store.grants));
  });
}

function viewOf(client: ClientRecord, withCreatedAt: boolean): ClientView {
  return {
    client_id: client.clientId,
    name: client.name,
    type: client.type,
    grant_types: client.grantTypes,
    redirect_uris: client.redirectUris,
    scopes: client.scopes,
    ...(withCreatedAt ? { created_at: client.createdAt } : {}),
  };
}

function repeat(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
