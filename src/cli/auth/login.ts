// `loom login`: OAuth 2.0 for native apps (RFC 8252) through one of the hosted server's
// sign-in providers (providers.ts picks it). A one-shot HTTP server on 127.0.0.1 receives the
// code; PKCE (S256) binds it to this process, `state` to this attempt, and `iss` (RFC 9207) to
// this server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { constantTimeEqual, pkceChallenge, randomToken } from '../../core/identity/secrets.ts';
import { CliError } from '../errors.ts';
import type { CredentialStore, ServerCredentials } from './credentials.ts';
import { credentialsFrom, discover, OAuthError, tokenRequest, type ServerMetadata } from './oauth.ts';
import { chooseProvider, type ProviderPicker, type SignInProviderId } from './providers.ts';

export const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;

export interface LoginOptions {
  server: string;
  /** Space-delimited scopes; the server's default for the CLI (all it may have) when absent. */
  scope?: string;
  /** The sign-in provider (`--provider`); by default the server's only one, or `pick`'s choice. */
  provider?: SignInProviderId;
  /** Asks the user when the server has several providers and none was given; without it, that is an error. */
  pick?: ProviderPicker;
  /** Loopback port; 0 picks a free one. */
  port: number;
  timeoutMs: number;
  store: CredentialStore;
  /** Opens the sign-in URL (a browser), or undefined to only print it. */
  open?: (url: string) => void;
  /** Progress for the user (stderr). */
  log: (line: string) => void;
  now?: () => number;
}

export async function login(options: LoginOptions): Promise<ServerCredentials> {
  const { server, store, log } = options;
  const metadata = await discover(server);
  const provider = await chooseProvider(server, metadata.signInProviders, options.provider, options.pick);
  const verifier = randomToken(32);
  const state = randomToken(16);

  const loopback = http.createServer();
  const port = await listen(loopback, options.port);
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  const query = new URLSearchParams({ source: 'cli', callbackPort: String(port), code_challenge: pkceChallenge(verifier), state });
  if (options.scope) query.set('scope', options.scope);
  const signInUrl = `${server}/api/v1/auth/${provider}?${query}`;

  try {
    const signedIn = new Promise<ServerCredentials>((resolve, reject) => {
      let finished = false;
      const timer = setTimeout(() => {
        finished = true;
        reject(new CliError(`no sign-in arrived within ${duration(options.timeoutMs)}; run loom login again`));
      }, options.timeoutMs);

      loopback.on('request', (request, response) => {
        const url = new URL(request.url ?? '/', 'http://127.0.0.1');
        if (request.method !== 'GET' || url.pathname !== '/callback') {
          response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('Not found\n');
          return;
        }
        if (finished) {
          page(response, 400, 'Sign-in already finished', 'This sign-in has already finished. Close this tab.');
          return;
        }
        const answeredState = url.searchParams.get('state');
        if (answeredState === null || !constantTimeEqual(answeredState, state)) {
          // Not ours (a stale tab, another attempt, a forged link): refuse it and keep waiting,
          // so a stray request can neither sign us in nor cancel the real sign-in.
          log('Refused a callback whose state does not match this sign-in; still waiting.');
          page(
            response,
            400,
            'Sign-in refused',
            'This answer does not belong to the sign-in that loom login is waiting for (state mismatch). Start again from the terminal.',
          );
          return;
        }
        finished = true;
        clearTimeout(timer);
        const fail = (message: string) => page(response, 400, 'Sign-in failed', `${message} See the terminal.`, () => reject(new CliError(message)));
        const problem = checkAnswer(url.searchParams, metadata);
        if (problem) return fail(problem);
        void (async () => {
          let credentials: ServerCredentials;
          try {
            const tokens = await tokenRequest(metadata.token_endpoint, {
              grant_type: 'authorization_code',
              code: url.searchParams.get('code')!,
              redirect_uri: redirectUri,
              code_verifier: verifier,
            });
            credentials = credentialsFrom(tokens, metadata, undefined, (options.now ?? Date.now)());
            await store.update((file) => (file.servers[server] = credentials));
          } catch (error) {
            if (error instanceof OAuthError || error instanceof CliError) return fail(`the token exchange failed: ${error.message}`);
            page(response, 500, 'Sign-in failed', 'Something went wrong. See the terminal.', () => reject(error));
            return;
          }
          page(response, 200, 'Signed in', 'Signed in to Loom. You can close this tab and go back to the terminal.', () => resolve(credentials));
        })();
      });
    });

    log(`Open this URL to sign in: ${signInUrl}`);
    options.open?.(signInUrl);
    return await signedIn;
  } finally {
    loopback.closeAllConnections();
    loopback.close();
  }
}

/** What is wrong with an answer whose state matched, if anything. */
function checkAnswer(params: URLSearchParams, metadata: ServerMetadata): string | undefined {
  const iss = params.get('iss');
  if (iss !== null && iss !== metadata.issuer) {
    return `the sign-in answer comes from issuer ${iss}, not ${metadata.issuer}; it was refused`;
  }
  if (iss === null && metadata.issParameter) return `the sign-in answer has no iss although ${metadata.issuer} always sends one; it was refused`;
  const error = params.get('error');
  if (error) {
    const description = params.get('error_description');
    return `the server did not sign you in: ${error}${description ? `: ${description}` : ''}`;
  }
  if (!params.get('code')) return 'the sign-in answer has no code';
  return undefined;
}

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE' || error.code === 'EACCES'
          ? new CliError(`cannot listen on 127.0.0.1:${port} (${error.code}); pick another --port or leave it out`)
          : error,
      );
    });
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function page(response: http.ServerResponse, status: number, title: string, message: string, then?: () => void): void {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Loom</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}</style></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>
`;
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // The callback URL holds the code: never send it on as a Referer.
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    connection: 'close',
  });
  response.end(html, then);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function duration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  if (ms >= 1000) return `${Math.round(ms / 100) / 10} s`;
  return `${ms} ms`;
}
