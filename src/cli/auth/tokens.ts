// A usable access token for a server: the stored one while it has more than a minute left,
// else a new one from the refresh token (rotated: the new refresh token replaces the old).
import { CliError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import type { CredentialsFile, CredentialStore, ServerCredentials } from './credentials.ts';
import { credentialsFrom, OAuthError, tokenRequest } from './oauth.ts';

/** An access token this close to its expiry is refreshed before use. */
export const EXPIRY_MARGIN_MS = 60_000;

export interface FreshOptions {
  now?: () => number;
  /**
   * Refresh even if the stored token looks valid: the server refused this access token. If
   * another process has replaced it meanwhile, its replacement is used instead.
   */
  rejected?: string;
}

export interface FreshCredentials {
  credentials: ServerCredentials;
  refreshed: boolean;
}

export function loginHint(server: string): string {
  return `run loom login --server ${server}`;
}

export async function freshCredentials(store: CredentialStore, server: string, options: FreshOptions = {}): Promise<FreshCredentials> {
  const now = options.now ?? Date.now;
  const current = store.get(server);
  if (!current) throw await unlessUnreachable(server, notSignedIn(store, server));
  if (!options.rejected && !expiresSoon(current, now())) return { credentials: current, refreshed: false };

  // Under the lock, read again: another loom process may have refreshed already.
  return store.locked(async () => {
    const stored = store.get(server);
    if (!stored) throw notSignedIn(store, server);
    const stillCurrent = options.rejected ? stored.access_token === options.rejected : expiresSoon(stored, now());
    if (!stillCurrent) return { credentials: stored, refreshed: false };
    if (!stored.refresh_token) {
      await forget(store, server);
      throw new CliError(`your sign-in to ${server} has expired; ${loginHint(server)}`, EXIT.signInNeeded);
    }
    let next: ServerCredentials;
    try {
      const tokens = await tokenRequest(stored.token_endpoint, { grant_type: 'refresh_token', refresh_token: stored.refresh_token });
      next = credentialsFrom(tokens, stored, stored, now());
    } catch (error) {
      if (error instanceof OAuthError && (error.code === 'invalid_grant' || error.code === 'invalid_client' || error.code === 'unauthorized_client')) {
        await forget(store, server);
        throw new CliError(`your sign-in to ${server} has expired or was revoked (${error.message}); ${loginHint(server)}`, EXIT.signInNeeded);
      }
      if (error instanceof OAuthError) throw new CliError(`cannot refresh the sign-in to ${server}: ${error.message}`);
      throw error;
    }
    await write(store, (file) => (file.servers[server] = next));
    return { credentials: next, refreshed: true };
  });
}

export function expiresSoon(credentials: ServerCredentials, now: number): boolean {
  const expiresAt = Date.parse(credentials.expires_at);
  return !Number.isFinite(expiresAt) || expiresAt - EXPIRY_MARGIN_MS <= now;
}

/**
 * `refusal` (a sign-in is needed), unless nothing answers at `server`: then the failure to
 * reach it (exit 3), since signing in would not help. Asked only once a sign-in is missing,
 * so a server that is up costs one health check on a path that fails anyway.
 *
 * @example if (!store.get(server)) throw await unlessUnreachable(server, notSignedIn(store, server));
 */
export async function unlessUnreachable(server: string, refusal: CliError): Promise<CliError> {
  // Loaded here: the client's module brings the operation table and its schemas.
  const { HostedApiError, HostedClient } = await import('../../client/hosted.ts');
  try {
    await new HostedClient({ url: server, timeoutMs: 10_000 }).call('getHealth');
  } catch (error) {
    if (error instanceof HostedApiError && error.status === 0) return new CliError(`${error.message}${error.hint ? ` ${error.hint}` : ''}`, EXIT.unreachable);
  }
  return refusal;
}

/** Not signed in to this server; names the ones signed in to, if any. */
export function notSignedIn(store: CredentialStore, server: string): CliError {
  const others = Object.keys(store.read().servers);
  const elsewhere = others.length ? ` (signed in to ${others.join(', ')}; pick one with --server)` : '';
  return new CliError(`not signed in to ${server}${elsewhere}; ${loginHint(server)}`, EXIT.signInNeeded);
}

// Inside store.locked(): read-modify-write without taking the lock again.
async function write(store: CredentialStore, change: (file: CredentialsFile) => void): Promise<void> {
  const file = store.read();
  change(file);
  store.writeHeld(file);
}

async function forget(store: CredentialStore, server: string): Promise<void> {
  await write(store, (file) => delete file.servers[server]);
}
