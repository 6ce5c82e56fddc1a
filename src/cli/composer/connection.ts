// The hosted server and the token `loom composer` uses: the server as `loom whoami` finds it
// (--server, LOOM_SERVER, the configured hosted API), the token from --token, else LOOM_TOKEN
// (an API key from `loom admin keys create`, for scripts and CI), else the stored `loom login`
// sign-in (refreshed when needed, and once more when the server refuses it).
import { HostedApiError, HostedClient } from '../../client/hosted.ts';
import { CredentialStore } from '../auth/credentials.ts';
import { resolveServer } from '../auth/oauth.ts';
import { freshCredentials, unlessUnreachable } from '../auth/tokens.ts';
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';

export interface ConnectionOptions {
  server?: string;
  token?: string;
}

export interface ComposerConnection {
  server: string;
  /** The token of the latest call (a stored sign-in may have been refreshed since the start). */
  token(): string;
  /**
   * Runs a call of the hosted API; a refusal becomes the CLI's one-line failure (exit 3 when
   * no server answered, 4 when it wants a sign-in, else 1). A 401 to a stored sign-in refreshes
   * it and tries once more.
   */
  call<T>(request: (client: HostedClient) => Promise<T>): Promise<T>;
}

type Env = Record<string, string | undefined>;

/**
 * The connection of a composer command; throws exit 4 when there is no token at all (exit 3
 * when, besides, nothing answers at the server).
 *
 * @example const connection = await connect({ server: options.server, token: options.token }); await connection.call((c) => c.call('getComposerSession', { params: { sessionId } }));
 */
export async function connect(options: ConnectionOptions, env: Env = process.env): Promise<ComposerConnection> {
  const server = resolveServer(options.server, env);
  const given = options.token ?? (env.LOOM_TOKEN || undefined);
  const store = given === undefined ? CredentialStore.fromEnv(env) : undefined;
  let token = given ?? (await storedToken(store!, server));
  const clientFor = (value: string) => new HostedClient({ url: server, token: value });
  const call = async <T>(request: (client: HostedClient) => Promise<T>): Promise<T> => {
    try {
      return await request(clientFor(token));
    } catch (error) {
      if (!(error instanceof HostedApiError)) throw error;
      if (error.status !== 401 || !store) throw refusal(error, server, given !== undefined);
    }
    // The server no longer takes the stored access token (revoked, or expired by its clock): refresh once.
    token = await storedToken(store, server, token);
    try {
      return await request(clientFor(token));
    } catch (error) {
      if (error instanceof HostedApiError) throw refusal(error, server, false);
      throw error;
    }
  };
  return { server, token: () => token, call };
}

/** What the user should do when the server wants a sign-in. */
export function signInHint(server: string): string {
  return `Sign in with loom login --server ${server}, or pass an API key with --token or LOOM_TOKEN (loom admin keys create --user NAME).`;
}

/** A hosted API refusal as a CliError with the exit code scripts branch on. */
export function refusal(error: HostedApiError, server: string, tokenGiven: boolean): CliError {
  if (error.status === 0) return new CliError(`${error.message}${error.hint ? ` ${error.hint}` : ''}`, EXIT.unreachable);
  if (error.status === 401) {
    const which = tokenGiven ? 'the token given (--token or LOOM_TOKEN)' : 'the stored sign-in';
    return new CliError(`${server} does not accept ${which}: ${error.message} ${signInHint(server)}`, EXIT.signInNeeded);
  }
  const hint = error.hint ?? (error.retryAfter ? `Try again in ${error.retryAfter} s.` : '');
  return new CliError(`${error.message}${hint ? ` ${hint}` : ''}`, EXIT.failure);
}

async function storedToken(store: CredentialStore, server: string, rejected?: string): Promise<string> {
  if (!store.get(server)) throw await unlessUnreachable(server, new CliError(`not signed in to ${server}. ${signInHint(server)}`, EXIT.signInNeeded));
  try {
    return (await freshCredentials(store, server, rejected ? { rejected } : {})).credentials.access_token;
  } catch (error) {
    // An expired or revoked sign-in: what is needed is a new one.
    if (error instanceof CliError && /loom login/.test(error.message)) throw new CliError(error.message, EXIT.signInNeeded);
    throw error;
  }
}
