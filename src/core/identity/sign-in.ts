// Signing in through a provider (the code host, or OpenID Connect): remember what the caller
// asked for under a single-use state, send the user to the provider, and on its callback
// create or link the user and finish our own flow — a PKCE-bound code for the CLI or desktop
// app on its loopback port, or a dashboard session for the web.
//
// A web sign-in is bound to the browser that began it (login CSRF, RFC 6749 §10.12): start
// also returns a browser secret (the HTTP layer keeps it in a cookie), and the pending sign-in
// (with our PKCE verifier and nonce toward the provider) is stored under a hash of the state
// and that secret, so that a callback arriving in any other browser finds nothing. A CLI or
// desktop sign-in needs no such binding: the code it ends with is bound by PKCE to the process
// that started it, and is worthless to anyone else.
import type { CodeHostAuthQuery, SignInSource } from '../../contracts/auth.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { ServiceUrls } from '../urls.ts';
import { LoomError } from '../errors.ts';
import { CLI_CLIENT } from './clients.ts';
import type { SignInProvider } from './codehost.ts';
import type { OAuthServer } from './oauth-server.ts';
import type { LoginStateRecord, LoginStateRepository, UserRecord } from './records.ts';
import { hashToken, randomToken } from './secrets.ts';
import { parseScope } from './tokens.ts';
import type { UserDirectory } from './users.ts';

export const STATE_LIFETIME_SECONDS = 600;
export const DEFAULT_RETURN_PATH = '/dashboard';

export interface SignInStart {
  /** The provider's authorize URL. */
  location: string;
  /** Web sign-ins: the secret the browser must bring back to the callback (a cookie). */
  browserSecret: string | null;
}

export type SignInResult = { kind: 'loopback'; location: string; user: UserRecord } | { kind: 'web'; location: string; user: UserRecord };

/** Shown as an error page by the callback: never redirected anywhere. */
export class SignInError extends Error {}

export interface SignInDeps {
  providers: ReadonlyMap<string, SignInProvider>;
  states: LoginStateRepository;
  users: UserDirectory;
  oauth: OAuthServer;
  urls: ServiceUrls;
  clock?: Clock;
}

export class SignInService {
  private readonly clock: Clock;

  constructor(private readonly deps: SignInDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  hasProvider(providerId: string): boolean {
    return this.deps.providers.has(providerId);
  }

  /** The configured providers, the code host first. */
  providerIds(): string[] {
    return [...this.deps.providers.keys()];
  }

  /** Checks the request; returns the provider's authorize URL to redirect to and, for the web, the browser's secret. */
  async start(providerId: string, query: CodeHostAuthQuery): Promise<SignInStart> {
    const provider = this.provider(providerId);
    const source: SignInSource = query.source ?? 'web';
    const scope = this.checkScope(query.scope);
    const headless = source !== 'web';
    if (headless) {
      if (!query.callbackPort) throw invalid('callbackPort is required when source is cli or desktop.');
      const port = Number(query.callbackPort);
      if (port < 1024 || port > 65535) throw invalid('callbackPort must be between 1024 and 65535.');
      if (!query.code_challenge) throw invalid('code_challenge (PKCE, S256) is required when source is cli or desktop.');
    } else {
      if (query.callbackPort || query.code_challenge) throw invalid('callbackPort and code_challenge are for source=cli or desktop.');
      if (query.return_to !== undefined && !isLocalPath(query.return_to)) throw invalid('return_to must be a path on this server, like /dashboard.');
    }
    const state = randomToken(32);
    const browserSecret = headless ? null : randomToken(32);
    const record = {
      stateHash: stateKey(state, browserSecret),
      provider: providerId,
      source,
      callbackPort: headless ? query.callbackPort! : null,
      scope,
      codeChallenge: headless ? query.code_challenge! : null,
      clientState: query.state ?? null,
      returnTo: headless ? null : (query.return_to ?? DEFAULT_RETURN_PATH),
      providerVerifier: randomToken(48),
      nonce: randomToken(16),
      expiresAt: new Date(this.clock.now() + STATE_LIFETIME_SECONDS * 1000).toISOString(),
    };
    // The URL first: a provider that cannot be asked (OpenID discovery failed) leaves no state behind.
    const location = await provider.authorizeUrl({
      state,
      redirectUri: this.callbackUrl(providerId),
      codeVerifier: record.providerVerifier,
      nonce: record.nonce,
    });
    await this.deps.states.add(record);
    return { location, browserSecret };
  }

  /**
   * The provider's callback, with the secret of the browser it arrived in (if it has one).
   * Errors are SignInError (an error page), never a redirect.
   */
  async complete(providerId: string, params: { code?: string; state?: string; error?: string }, browserSecret?: string): Promise<SignInResult> {
    const provider = this.provider(providerId);
    if (!params.state) throw new SignInError('The sign-in response has no state.');
    const pending = await this.takePending(params.state, browserSecret);
    if (!pending || pending.provider !== providerId) {
      throw new SignInError(
        'This sign-in link is not valid here: it was already used, it expired, or it was started in another browser. Start again in this browser.',
      );
    }
    if (pending.expiresAt <= new Date(this.clock.now()).toISOString()) throw new SignInError('This sign-in took too long. Start again.');
    if (params.error || !params.code) throw new SignInError(`The provider did not sign you in${params.error ? ` (${params.error.slice(0, 100)})` : ''}.`);
    const identity = await provider.identify({
      code: params.code,
      redirectUri: this.callbackUrl(providerId),
      codeVerifier: pending.providerVerifier,
      nonce: pending.nonce,
    });
    const user = await this.deps.users.signIn(identity);
    if (pending.source === 'web') return { kind: 'web', location: pending.returnTo ?? DEFAULT_RETURN_PATH, user };

    const redirectUri = `http://127.0.0.1:${pending.callbackPort}/callback`;
    const code = await this.deps.oauth.issueCode({
      clientId: CLI_CLIENT.clientId,
      userId: user.id,
      redirectUri,
      codeChallenge: pending.codeChallenge!,
      scope: pending.scope,
      nonce: null,
    });
    const location = new URL(redirectUri);
    location.searchParams.set('code', code);
    if (pending.clientState) location.searchParams.set('state', pending.clientState);
    location.searchParams.set('iss', this.deps.urls.issuer);
    return { kind: 'loopback', location: location.toString(), user };
  }

  /**
   * The pending sign-in of this state: a web one only with the secret of the browser that began
   * it; a CLI or desktop one (stored under the state alone) in any browser. A miss takes nothing,
   * so another browser's attempt cannot spend the real one.
   */
  private async takePending(state: string, browserSecret: string | undefined): Promise<LoginStateRecord | undefined> {
    if (browserSecret) {
      const bound = await this.deps.states.take(stateKey(state, browserSecret));
      if (bound) return bound;
    }
    const unbound = await this.deps.states.take(stateKey(state, null));
    return unbound && unbound.source !== 'web' ? unbound : undefined;
  }

  /** Our callback URL, as registered at the provider. */
  callbackUrl(providerId: string): string {
    return `${this.deps.urls.publicUrl}/auth/${providerId}/callback`;
  }

  private provider(providerId: string): SignInProvider {
    const provider = this.deps.providers.get(providerId);
    if (!provider)
      throw new LoomError(
        'not_found',
        `Sign-in with ${providerId} is not configured on this server.`,
        providerId === 'oidc'
          ? 'The operator sets oidc.issuer, oidc.clientId and oidc.clientSecret: "oidc": {…} in the config file (config.json in the config folder, or LOOM_CONFIG), or LOOM_OIDC_ISSUER, LOOM_OIDC_CLIENT_ID and LOOM_OIDC_CLIENT_SECRET (docs/auth.md).'
          : 'The operator sets codehost.clientId and codehost.clientSecret: "codehost": {…} in the config file (config.json in the config folder, or LOOM_CONFIG), or LOOM_CODEHOST_CLIENT_ID and LOOM_CODEHOST_CLIENT_SECRET (docs/auth.md).',
      );
    return provider;
  }

  private checkScope(requested: string | undefined): string {
    const asked = parseScope(requested);
    if (asked.length === 0) return CLI_CLIENT.scopes.join(' ');
    const refused = asked.filter((s) => !(CLI_CLIENT.scopes as string[]).includes(s));
    if (refused.length) throw new LoomError('invalid_scope', `Unknown or unavailable scope: ${refused.join(' ')}.`);
    return [...new Set(asked)].join(' ');
  }
}

/** Where a pending sign-in is stored: a hash of its state, and of the browser's secret for the web. */
function stateKey(state: string, browserSecret: string | null): string {
  return hashToken(browserSecret === null ? state : `${state}.${browserSecret}`);
}

function invalid(message: string): LoomError {
  return new LoomError('validation_error', message);
}

/**
 * A path on this server: `/x`, never `//host` or `/\host` (which browsers treat as another host).
 * Printable ASCII only: it becomes a Location header, where control characters (and anything
 * beyond Latin-1) make Node throw, and where browsers drop tabs and newlines (`/\t/host`).
 */
export function isLocalPath(path: string): boolean {
  return /^\/(?![/\\])[\x21-\x7e]*$/.test(path) && !path.includes('\\');
}
