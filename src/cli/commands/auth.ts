// `loom login`, `loom whoami`, `loom logout`: the CLI's sign-in to a hosted server.
import { Command, InvalidArgumentError, Option } from 'commander';
import { openBrowser } from '../auth/browser.ts';
import { CredentialStore, type ServerCredentials } from '../auth/credentials.ts';
import { DEFAULT_LOGIN_TIMEOUT_MS, login } from '../auth/login.ts';
import { jwtClaims, normalizeServerUrl, resolveServer, send } from '../auth/oauth.ts';
import { askProvider, SIGN_IN_PROVIDERS, type SignInProviderId } from '../auth/providers.ts';
import { freshCredentials } from '../auth/tokens.ts';
import { CliError, cliAction } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { oneLine, print, printErr, printJson, printProblem } from '../output.ts';

const SERVER_OPTION = ['--server <url>', 'the hosted server (env LOOM_SERVER; default the configured hosted API, http://127.0.0.1:8080)'] as const;

export function loginCommand(): Command {
  return new Command('login')
    .description('sign in to a hosted server through the browser (OAuth with PKCE); tokens go to <config dir>/credentials.json')
    .option(...SERVER_OPTION, serverUrl)
    .addOption(
      new Option('--provider <provider>', "the server's sign-in provider to use (default: its only one; asked on a terminal when it has several)").choices(
        SIGN_IN_PROVIDERS,
      ),
    )
    .option('--scope <scopes>', 'scopes to ask for, space- or comma-separated (default: all the CLI may have)', scopeList)
    .option('--no-browser', 'only print the sign-in URL, do not open a browser')
    .option('--port <n>', 'loopback port for the callback, 1024 to 65535 (default: a free one)', loopbackPort)
    .option('--json', 'print {server, issuer, sub, login, name, email, scopes, expires_at, verified} once signed in, as whoami --json does')
    .action(
      cliAction(async (options: { server?: string; provider?: SignInProviderId; scope?: string; browser: boolean; port?: number; json?: boolean }) => {
        const server = resolveServer(options.server);
        const store = CredentialStore.fromEnv();
        const credentials = await login({
          server,
          provider: options.provider,
          pick: process.stdin.isTTY && process.stderr.isTTY ? askProvider(process.stdin, process.stderr) : undefined,
          scope: options.scope,
          port: options.port ?? 0,
          timeoutMs: loginTimeout(),
          store,
          open: options.browser ? openBrowser : undefined,
          log: (line) => printErr(`${oneLine(line)}\n`),
        });
        const who = identityOf(credentials);
        // The shape of whoami --json; verified, since the server has just issued the token.
        if (options.json)
          printJson({
            server,
            issuer: credentials.issuer,
            ...who,
            scopes: credentials.scope.split(' ').filter(Boolean),
            expires_at: credentials.expires_at,
            verified: true,
          });
        else print(`Signed in to ${server} as ${describeUser(who)}.\n`);
      }),
    );
}

export function whoamiCommand(): Command {
  return new Command('whoami')
    .description('show who you are signed in as on a hosted server (refreshes the token when needed)')
    .option(...SERVER_OPTION, serverUrl)
    .option('--json', 'print JSON')
    .action(
      cliAction(async (options: { server?: string; json?: boolean }) => {
        const server = resolveServer(options.server);
        const store = CredentialStore.fromEnv();
        let { credentials } = await freshCredentials(store, server);
        // Prove the token with a cheap protected call: 401 means the server no longer takes it
        // (expired by its clock, revoked), so refresh once and try again.
        let verified = await check(server, credentials.access_token);
        if (verified === 'rejected') {
          ({ credentials } = await freshCredentials(store, server, { rejected: credentials.access_token }));
          verified = await check(server, credentials.access_token);
          if (verified === 'rejected') throw new CliError(`${server} does not accept the stored token; run loom login --server ${server}`, EXIT.signInNeeded);
        }
        const who = identityOf(credentials);
        const scopes = credentials.scope.split(' ').filter(Boolean);
        if (options.json) {
          const out = { server, issuer: credentials.issuer, ...who, scopes, expires_at: credentials.expires_at, verified: verified === 'accepted' };
          printJson(out);
          return;
        }
        if (verified === 'unchecked') printProblem(`could not check the token with ${server}; showing what is stored`);
        const lines = [
          `Signed in to ${server} as ${describeUser(who)}`,
          `  subject  ${oneLine(who.sub ?? '(unknown)')}`,
          `  scopes   ${oneLine(scopes.join(' ')) || '(none)'}`,
          `  expires  ${oneLine(credentials.expires_at)}${credentials.refresh_token ? ' (renewed automatically)' : ''}`,
        ];
        print(lines.join('\n') + '\n');
      }),
    );
}

export function logoutCommand(): Command {
  return new Command('logout')
    .description('forget the stored sign-in for a hosted server')
    .option(...SERVER_OPTION, serverUrl)
    .option('--json', 'print {server, signedOut}: signedOut is false when there was no sign-in')
    .action(
      cliAction(async (options: { server?: string; json?: boolean }) => {
        const server = resolveServer(options.server);
        const store = CredentialStore.fromEnv();
        const was = await store.update((file) => {
          const found = Object.hasOwn(file.servers, server);
          delete file.servers[server];
          return found;
        });
        if (options.json) printJson({ server, signedOut: was });
        else print(was ? `Signed out of ${server}.\n` : `Not signed in to ${server}.\n`);
      }),
    );
}

export interface SignedInUser {
  sub: string | null;
  login: string | null;
  name: string | null;
  email: string | null;
}

/** Who the tokens stand for: the ID token's claims, else the access token's subject. */
export function identityOf(credentials: ServerCredentials): SignedInUser {
  const id = jwtClaims(credentials.id_token) ?? {};
  const access = jwtClaims(credentials.access_token) ?? {};
  const text = (value: unknown) => (typeof value === 'string' && value ? value : null);
  return {
    sub: text(id.sub) ?? text(access.sub),
    login: text(id.preferred_username),
    name: text(id.name),
    email: text(id.email),
  };
}

/** Who, in one line: the names come from the code host or identity provider, so each is escaped. */
function describeUser(who: SignedInUser): string {
  const label = oneLine(who.login ?? who.sub ?? 'an unknown user');
  const details = [who.name && oneLine(who.name), who.email && `<${oneLine(who.email)}>`].filter(Boolean).join(' ');
  return details ? `${label} (${details})` : label;
}

async function check(server: string, accessToken: string): Promise<'accepted' | 'rejected' | 'unchecked'> {
  let response: Response;
  try {
    response = await send(`${server}/api/v1/download`, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } });
  } catch (error) {
    if (error instanceof CliError) return 'unchecked';
    throw error;
  }
  await response.body?.cancel();
  if (response.status === 401) return 'rejected';
  // 403 is a valid token without read:downloads: still proof that the server takes it.
  return response.ok || response.status === 403 ? 'accepted' : 'unchecked';
}

function loginTimeout(env = process.env): number {
  const raw = env.LOOM_LOGIN_TIMEOUT_MS;
  if (raw === undefined || raw === '') return DEFAULT_LOGIN_TIMEOUT_MS;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < 1 || n > 24 * 3_600_000)
    throw new CliError(`LOOM_LOGIN_TIMEOUT_MS: "${raw}" is not a number of milliseconds (1 to 86400000)`, 2);
  return n;
}

function serverUrl(value: string): string {
  const server = normalizeServerUrl(value);
  if (!server) throw new InvalidArgumentError('an http or https URL, like https://loom.example.com');
  return server;
}

function scopeList(value: string, previous?: string): string {
  const scopes = [...(previous ? previous.split(' ') : []), ...value.split(/[\s,]+/).filter(Boolean)];
  if (scopes.length === 0) throw new InvalidArgumentError('at least one scope');
  return [...new Set(scopes)].join(' ');
}

function loopbackPort(value: string): number {
  const n = Number(value);
  // The server takes callback ports from 1024 to 65535 (docs/auth.md, "Signing in from the CLI or the desktop app").
  if (!/^\d+$/.test(value) || n < 1024 || n > 65535) throw new InvalidArgumentError('a port from 1024 to 65535');
  return n;
}
