// The hosted server that commands such as `loom downloads` and `loom feedback` call: `--server`,
// else LOOM_SERVER, else the configured hosted API (as `loom login` finds it), with the stored
// sign-in's token when there is one (refreshed when needed) and anonymously otherwise.
import type { Command } from 'commander';
import type { HostedClient } from '../client/hosted.ts';
import { CliError } from './errors.ts';
import { EXIT } from './exit-codes.ts';

/** The --server option, as login, whoami and logout take it. */
export function withHostedServerOption(command: Command): Command {
  return command.option('--server <url>', 'the hosted server (env LOOM_SERVER; default the configured hosted API, http://127.0.0.1:8080)');
}

/**
 * A client of the command's hosted server; `signIn: 'required'` fails (exit 4) without a stored sign-in.
 *
 * @example const { client } = await hostedClientFor(options.server); await hostedCall(() => client.call('listDownloads'));
 */
export async function hostedClientFor(
  serverFlag: string | undefined,
  signIn: 'optional' | 'required' = 'optional',
): Promise<{ client: HostedClient; server: string; signedIn: boolean }> {
  const [{ HostedClient }, { resolveServer }, { CredentialStore }, { freshCredentials }] = await Promise.all([
    import('../client/hosted.ts'),
    import('./auth/oauth.ts'),
    import('./auth/credentials.ts'),
    import('./auth/tokens.ts'),
  ]);
  const server = resolveServer(serverFlag);
  const store = CredentialStore.fromEnv();
  let token: string | undefined;
  if (signIn === 'required' || store.get(server)) token = (await freshCredentials(store, server)).credentials.access_token;
  return { client: new HostedClient({ url: server, token }), server, signedIn: token !== undefined };
}

/**
 * A call of the hosted API whose refusal becomes the CLI's one-line failure: the server's
 * message and hint; exit 3 when no server answered, 4 when it wants a sign-in, else 1.
 *
 * @example const { products } = await hostedCall(() => client.call('listDownloads'));
 */
export async function hostedCall<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    const { HostedApiError } = await import('../client/hosted.ts');
    if (!(error instanceof HostedApiError)) throw error;
    const exitCode = error.status === 0 ? EXIT.unreachable : error.status === 401 ? EXIT.signInNeeded : EXIT.failure;
    const hint = error.hint ?? (error.status === 401 ? 'Sign in with loom login.' : error.retryAfter ? `Try again in ${error.retryAfter} s.` : '');
    throw new CliError(`${error.message}${hint ? ` ${hint}` : ''}`, exitCode);
  }
}
