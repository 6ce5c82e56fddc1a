// `loom admin keys create|list|revoke`: API keys of the hosted API made by the operator, for any
// user (a local one from `loom admin users add`, or one who signed in). The same keys as the
// dashboard's: signed with the server's keys from the store, only their id kept, revoked at once.
import { Command } from 'commander';
import { publicUrlFor } from '../../config/load.ts';
import { systemClock } from '../../core/clock.ts';
import { API_KEY_SCOPES, DEFAULT_KEY_DAYS, MAX_KEY_DAYS } from '../../core/identity/api-keys.ts';
import { LocalUsers } from '../../core/identity/local-users.ts';
import type { ApiKeyRecord, UserRecord } from '../../core/identity/records.ts';
import { MutableServiceUrls } from '../../core/urls.ts';
import type { KeyStatus, KeyView } from '../../hosted/web/dashboard.ts';
import type { Store } from '../../store/index.ts';
import { CliError, cliAction } from '../errors.ts';
import { addSettingOptions, listOption } from '../options.ts';
import { formatTable, oneLine, print, printErr, printJson } from '../output.ts';
import { withStore } from './admin-store.ts';

export const DEFAULT_KEY_NAME = 'admin';

/** A key as `list --json` shows it: never the key itself. */
export interface KeyListView {
  id: string;
  userId: string;
  user: string;
  name: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  status: KeyStatus;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HOURS_OR_DAYS = /^(\d{1,6})([hd])$/;
/** `2026-12-31`, or a date and time to the minute or finer, with or without an offset. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const LONGEST = `${MAX_KEY_DAYS}d`;
const EXPIRES_FORMS = `12h, 30d, an ISO date (2026-12-31) or date and time (2026-12-31T18:00Z)`;

/**
 * The lifetime in seconds that `--expires` asks for, counted from `now` (ms): `12h`, `30d`, an
 * ISO 8601 date (midnight UTC) or date and time (UTC unless it has an offset). From 1 hour to
 * 365 days; keys always expire, so `never` is refused with the reason.
 *
 * @example parseExpires('30d', Date.now()) // 2592000
 */
export function parseExpires(text: string, now: number): number {
  if (text === 'never') {
    throw new CliError(`API keys always expire, at the latest after ${LONGEST}: a key that leaks stops working on its own. Make a new one before it does.`);
  }
  const relative = HOURS_OR_DAYS.exec(text);
  let seconds: number;
  if (relative) {
    seconds = Number(relative[1]) * (relative[2] === 'h' ? 3600 : 86_400);
  } else if (ISO_DATE.test(text)) {
    // Without an offset, JavaScript would read a date and time as local time: UTC, as documented.
    const at = Date.parse(text.includes('T') && !/(Z|[+-]\d{2}:\d{2})$/.test(text) ? `${text}Z` : text);
    if (Number.isNaN(at) || !isCalendarDay(text.slice(0, 10))) throw new CliError(`--expires ${text} is not a real date`);
    if (at <= now) throw new CliError(`--expires ${text} is in the past`);
    seconds = Math.floor((at - now) / 1000);
  } else {
    throw new CliError(`--expires takes ${EXPIRES_FORMS}; not ${JSON.stringify(text.slice(0, 60))}`);
  }
  if (seconds < 3600 || seconds > MAX_KEY_DAYS * 86_400) throw new CliError(`--expires ${text} is out of range: from 1h to ${LONGEST} from now`);
  return seconds;
}

/** `2026-02-31` parses (as 3 March): only days the calendar has are taken. */
function isCalendarDay(day: string): boolean {
  const [year = 0, month = 0, date = 0] = day.split('-').map(Number);
  const parsed = new Date(Date.UTC(year, month - 1, date));
  return parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === date;
}

export function keysCommand(): Command {
  const keys = new Command('keys').description("API keys of the hosted API: bearer tokens that act for a user, like the dashboard's");

  const create = new Command('create')
    .description('make an API key for a user; prints the key alone on stdout (shown only now), what it is on stderr')
    .requiredOption('--user <user>', "a local user's name (loom admin users add), or any user's id (loom admin users list)")
    .option('--scope <scopes>', `scopes, repeatable or space- or comma-separated, from: ${API_KEY_SCOPES.join(' ')} (default: all of them)`, listOption)
    .option('--expires <when>', `when it stops working: ${EXPIRES_FORMS}; 1h to ${LONGEST}`, `${DEFAULT_KEY_DAYS}d`)
    .option('--name <name>', 'a name for people, 1 to 100 characters', DEFAULT_KEY_NAME)
    .option('--json', 'print JSON, the key included');
  addSettingOptions(create, ['dataDir', 'publicUrl']).action(
    cliAction(async (options: { user: string; scope?: string[]; expires: string; name: string; json?: boolean }, command: Command) => {
      const expiresInSeconds = parseExpires(options.expires, systemClock.now());
      await withStore(command, async (store, config) => {
        // A key names the server it is for (iss, aud): the one the server derives from the same settings.
        if (!config.publicUrl && config.hosted.port === 0) {
          throw new CliError(
            "With port 0 the server's address is known only once it listens: give the URL its clients use with --public-url (LOOM_PUBLIC_URL).",
            2,
          );
        }
        const urls = new MutableServiceUrls(publicUrlFor(config), config.authUrl);
        const user = await findUser(store, options.user);
        // The identity modules (JWT signing) load only for this action.
        const [{ createIdentity }, { parseScope }, { formatDate }] = await Promise.all([
          import('../../core/identity/index.ts'),
          import('../../core/identity/tokens.ts'),
          import('../../hosted/web/dashboard.ts'),
        ]);
        const identity = await createIdentity(store, { urls, providers: [], clock: systemClock });
        const { key, record } = await identity.apiKeys.create(user.id, {
          name: options.name,
          scopes: options.scope?.length ? options.scope : undefined,
          expiresInSeconds,
        });
        const scopes = parseScope(record.scope);
        if (options.json) {
          printJson({
            id: record.id,
            key,
            userId: user.id,
            user: user.login,
            name: record.name,
            scopes,
            createdAt: record.createdAt,
            expiresAt: record.expiresAt,
            server: urls.audience,
          });
          return;
        }
        print(`${key}\n`);
        printErr(
          [
            `Created API key ${record.id} "${oneLine(record.name)}" for user ${oneLine(user.login)} on ${oneLine(urls.audience)}; it expires ${formatDate(record.expiresAt)}.`,
            `  scopes  ${scopes.join(' ')}`,
            'The key (on stdout) is shown only now: Loom keeps its id, not the key. Send it as "Authorization: Bearer <key>".',
          ].join('\n') + '\n',
        );
      });
    }),
  );

  const list = new Command('list')
    .description('list API keys, newest first (never the keys themselves)')
    .option('--user <user>', "only this user's: a local user's name or any user's id")
    .option('--json', 'print JSON (one array)');
  addSettingOptions(list, ['dataDir']).action(
    cliAction(async (options: { user?: string; json?: boolean }, command: Command) => {
      await withStore(command, async (store) => {
        const only = options.user === undefined ? undefined : await findUser(store, options.user);
        const records = only ? await store.apiKeys.listForUser(only.id) : await store.apiKeys.list();
        const logins = new Map((await store.users.list()).map((u) => [u.id, u.login]));
        const now = systemClock.now();
        const [{ parseScope }, { formatDate, keyView }] = await Promise.all([import('../../core/identity/tokens.ts'), import('../../hosted/web/dashboard.ts')]);
        const views = records.map((record) => listView(keyView(record, now), record, logins.get(record.userId) ?? '?', parseScope));
        if (options.json) {
          printJson(views);
          return;
        }
        if (views.length === 0) {
          print(only ? `${oneLine(only.login)} has no API keys.\n` : 'No API keys yet. Make one: loom admin keys create --user NAME\n');
          return;
        }
        // The key's name comes last: anyone with a dashboard session chose it.
        const rows = views.map((v) => [v.id, v.user, v.status, formatDate(v.expiresAt), v.name]);
        print(formatTable([['ID', 'USER', 'STATUS', 'EXPIRES', 'NAME'], ...rows]) + '\n');
      });
    }),
  );

  const revoke = new Command('revoke')
    .description('revoke an API key: it stops working at once')
    .argument('<id>', "the key's id (loom admin keys list)")
    .option('--json', 'print {id, revoked}');
  addSettingOptions(revoke, ['dataDir']).action(
    cliAction(async (id: string, options: { json?: boolean }, command: Command) => {
      await withStore(command, async (store) => {
        const key = await store.apiKeys.get(id);
        if (!key) throw new CliError(`no API key ${JSON.stringify(id.slice(0, 60))}; loom admin keys list shows them`);
        // Revoking twice is refused (as `clients remove` is): the first revocation's time stays.
        const revoked = !key.revokedAt && (await store.apiKeys.revoke(id, key.userId, new Date(systemClock.now()).toISOString()));
        if (!revoked) throw new CliError(`API key ${id} is revoked already`);
        if (options.json) printJson({ id, revoked: true });
        else print(`Revoked API key ${id} "${oneLine(key.name)}": it stops working at once.\n`);
      });
    }),
  );

  return keys.addCommand(create).addCommand(list).addCommand(revoke);
}

/** `--user`: a local user's name (any letter case), else a user id. */
async function findUser(store: Store, nameOrId: string): Promise<UserRecord> {
  const user = (await new LocalUsers(store.users).find(nameOrId)) ?? (UUID.test(nameOrId) ? await store.users.get(nameOrId.toLowerCase()) : undefined);
  if (!user)
    throw new CliError(`no user ${JSON.stringify(nameOrId.slice(0, 60))}; loom admin users add makes a local one, loom admin users list shows them all`);
  return user;
}

function listView(view: KeyView, record: ApiKeyRecord, login: string, parseScope: (scope: string) => string[]): KeyListView {
  const { id, name, createdAt, expiresAt, revokedAt, status } = view;
  return { id, userId: record.userId, user: login, name, scopes: parseScope(record.scope), createdAt, expiresAt, revokedAt, status };
}
