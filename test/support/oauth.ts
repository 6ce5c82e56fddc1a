// Helpers for the authorization server's tests (test/hosted/auth): registering clients,
// signing a user into the dashboard, walking /auth/authorize, the token endpoint, and checking
// the two ways a failure may leave (an Error body, or an HTML error page that redirects nowhere).
import assert from 'node:assert/strict';
import type { GrantType, Scope } from '../../src/contracts/auth.ts';
import { OAUTH_ERROR_CODES, type ErrorCode } from '../../src/contracts/errors.ts';
import type { ClientRecord, UserRecord } from '../../src/core/identity/records.ts';
import { pkceChallenge, randomToken } from '../../src/core/identity/secrets.ts';
import type { TestHosted } from './hosted.ts';

export const FORM = 'application/x-www-form-urlencoded';

/** The nine scopes of docs/auth.md's "Scopes", written out by hand. */
export const INTERFACE_SCOPES = ['openid', 'profile', 'email', 'read:downloads', 'read:models', 'read:health', 'write:feedback', 'write:composer', 'read:tab'];
export const CLIENT_CREDENTIALS_ONLY = ['read:downloads', 'read:models', 'read:health', 'write:feedback'];

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomToken(32);
  return { verifier, challenge: pkceChallenge(verifier) };
}

export async function registerClient(
  hosted: TestHosted,
  input: { type?: 'public' | 'confidential'; redirectUris?: string[]; grantTypes?: GrantType[]; scopes?: Scope[]; name?: string } = {},
): Promise<{ client: ClientRecord; clientSecret?: string }> {
  return hosted.identity.clients.register({
    name: input.name ?? 'Test app',
    type: input.type ?? 'public',
    redirectUris: input.redirectUris ?? ['https://app.example.com/cb'],
    grantTypes: input.grantTypes ?? ['authorization_code', 'refresh_token'],
    scopes: input.scopes,
  });
}

let users = 0;

/** A user and a dashboard session for them, as the `Cookie` header a browser would send. */
export async function signedInUser(hosted: TestHosted, email: string | null = 'grace@example.com'): Promise<{ user: UserRecord; cookie: string }> {
  users += 1;
  const user = await hosted.identity.users.signIn({
    provider: 'test',
    subject: `user-${users}-${randomToken(6)}`,
    login: `user${users}`,
    name: `User ${users}`,
    email: email ? email.replace('@', `+${users}@`) : null,
    emailVerified: true,
  });
  const session = await hosted.identity.sessions.create(user.id);
  return { user, cookie: `loom_session=${session.id}` };
}

/** GET /auth/authorize without following the redirect. */
export function authorize(hosted: TestHosted, params: Record<string, string | undefined>, cookie?: string): Promise<Response> {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, value);
  return fetch(`${hosted.url}/auth/authorize?${query}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
}

/** A complete, valid authorization request for `client`, with overrides. */
export function authorizeParams(client: ClientRecord, challenge: string, overrides: Record<string, string | undefined> = {}) {
  return {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUris[0],
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-' + randomToken(6),
    ...overrides,
  };
}

/** Walks /auth/authorize as the signed-in user and returns the code the client receives. */
export async function getCode(
  hosted: TestHosted,
  client: ClientRecord,
  cookie: string,
  overrides: Record<string, string | undefined> = {},
): Promise<{ code: string; verifier: string; challenge: string; redirectUri: string; location: URL }> {
  const { verifier, challenge } = pkce();
  const params = authorizeParams(client, challenge, overrides);
  const res = await authorize(hosted, params, cookie);
  assert.equal(res.status, 302, await res.text());
  const location = new URL(res.headers.get('location')!);
  const code = location.searchParams.get('code');
  assert.ok(code, `no code in ${location}`);
  return { code, verifier, challenge, redirectUri: params.redirect_uri!, location };
}

/** POST /auth/token with a form body (and optional HTTP Basic client credentials). */
export function tokenRequest(
  hosted: TestHosted,
  params: Record<string, string | undefined>,
  basic?: { clientId: string; secret: string },
  path = '/auth/token',
): Promise<Response> {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) form.set(key, value);
  const headers: Record<string, string> = { 'content-type': FORM };
  if (basic) headers.authorization = basicAuth(basic.clientId, basic.secret);
  return fetch(`${hosted.url}${path}`, { method: 'POST', headers, body: form.toString() });
}

/** RFC 6749 §2.3.1: form-urlencode id and secret, then base64 "id:secret". */
export function basicAuth(clientId: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(secret)}`).toString('base64')}`;
}

export interface Tokens {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  scope?: string;
  id_token?: string;
}

/** The authorization_code token request for a code, with any further parameters; the answer as it comes. */
export function exchangeCode(
  hosted: TestHosted,
  client: ClientRecord,
  grant: { code: string; verifier: string; redirectUri: string },
  extra: Record<string, string | undefined> = {},
): Promise<Response> {
  return tokenRequest(hosted, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
    client_id: client.clientId,
    ...extra,
  });
}

/** Redeems a code and expects tokens. */
export async function redeem(
  hosted: TestHosted,
  client: ClientRecord,
  grant: { code: string; verifier: string; redirectUri: string },
  clientSecret?: string,
): Promise<Tokens> {
  const res = await exchangeCode(hosted, client, grant, { client_secret: clientSecret });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as Tokens;
}

/** The whole authorization code flow for a fresh signed-in user. */
export async function signInWithCode(hosted: TestHosted, client: ClientRecord, scope: string, cookie?: string, clientSecret?: string) {
  const session = cookie ? { cookie, user: undefined } : await signedInUser(hosted);
  const grant = await getCode(hosted, client, session.cookie, { scope });
  return { ...(await redeem(hosted, client, grant, clientSecret)), user: session.user };
}

export function refresh(hosted: TestHosted, client: ClientRecord, refreshToken: string, extra: Record<string, string> = {}) {
  return tokenRequest(hosted, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId, ...extra });
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** GET with an optional bearer token. */
export function getWith(hosted: TestHosted, path: string, token?: string): Promise<Response> {
  return fetch(`${hosted.url}${path}`, { headers: token ? bearer(token) : {}, redirect: 'manual' });
}

/** A JSON Error body ({error, message}, and error_description for OAuth codes) with this status and code. */
export async function assertError(res: Response, status: number, code: string | string[]): Promise<Record<string, unknown>> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  const codes = Array.isArray(code) ? code : [code];
  assert.ok(codes.includes(body.error as string), `error ${String(body.error)} is not ${codes.join(' or ')}`);
  assert.equal(typeof body.message, 'string');
  assert.ok((body.message as string).length > 0);
  if (OAUTH_ERROR_CODES.has(body.error as ErrorCode)) assert.equal(body.error_description, body.message, 'OAuth errors carry error_description');
  assert.equal(res.headers.get('location'), null);
  return body;
}

/** An HTML error page: shown to the user, never a redirect. */
export async function assertErrorPage(res: Response, status = 400): Promise<string> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.equal(res.headers.get('location'), null, 'an error page never redirects');
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(text, /<!doctype html>/i);
  return text;
}

/** The parameters of a `WWW-Authenticate: Bearer k="v", …` challenge. */
export function bearerChallenge(res: Response): Record<string, string> {
  const header = res.headers.get('www-authenticate');
  assert.ok(header, 'WWW-Authenticate is present');
  assert.match(header, /^Bearer /);
  const params: Record<string, string> = {};
  for (const match of header.slice('Bearer '.length).matchAll(/([a-z_]+)="([^"]*)"/g)) params[match[1]!] = match[2]!;
  return params;
}

/**
 * A whole CLI sign-in through a provider, as a browser and `loom login` would do it: start,
 * the provider's authorize page, our callback, the token exchange. Returns the callback's
 * response when it is not the redirect to the loopback port, else the tokens and the claims
 * of Loom's ID token.
 */
export async function cliSignIn(
  hosted: TestHosted,
  provider: 'codehost' | 'oidc',
  scope?: string,
): Promise<{ callback: Response; tokens?: Tokens; claims?: Record<string, unknown> }> {
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({ source: 'cli', callbackPort: '40123', code_challenge: challenge });
  if (scope) query.set('scope', scope);
  const start = await fetch(`${hosted.url}/api/v1/auth/${provider}?${query}`, { redirect: 'manual' });
  assert.equal(start.status, 302, await start.clone().text());
  const atProvider = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  assert.equal(atProvider.status, 302, await atProvider.clone().text());
  const callback = await fetch(atProvider.headers.get('location')!, { redirect: 'manual' });
  const location = callback.headers.get('location');
  if (callback.status !== 302 || !location?.startsWith('http://127.0.0.1:40123/callback?')) return { callback };
  const res = await tokenRequest(hosted, {
    grant_type: 'authorization_code',
    code: new URL(location).searchParams.get('code')!,
    redirect_uri: 'http://127.0.0.1:40123/callback',
    client_id: 'loom-cli',
    code_verifier: verifier,
  });
  assert.equal(res.status, 200, await res.clone().text());
  const tokens = (await res.json()) as Tokens;
  const claims = tokens.id_token ? (JSON.parse(Buffer.from(tokens.id_token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>) : undefined;
  return { callback, tokens, claims };
}

/**
 * One browser's cookies for one origin (Loom's), enough to follow its sign-in redirects: keeps
 * what Set-Cookie gives (dropping what Max-Age=0 clears) and sends it back to that origin only.
 * Redirects are never followed: each hop is the caller's.
 */
export class Browser {
  private readonly jar = new Map<string, string>();

  constructor(private readonly origin: string) {}

  async get(url: string | URL, headers: Record<string, string> = {}): Promise<Response> {
    const target = new URL(url, this.origin);
    const ours = target.origin === this.origin;
    const cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(target, { redirect: 'manual', headers: { ...(ours && cookie ? { cookie } : {}), ...headers } });
    if (ours) {
      for (const line of res.headers.getSetCookie()) {
        const [pair, ...attributes] = line.split(';');
        const eq = pair!.indexOf('=');
        const name = pair!.slice(0, eq).trim();
        if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.jar.delete(name);
        else this.jar.set(name, pair!.slice(eq + 1).trim());
      }
    }
    return res;
  }

  /** Follows a response's Location, rewritten onto `origin` when it names Loom's public URL. */
  follow(res: Response, publicUrl?: string): Promise<Response> {
    const location = res.headers.get('location');
    assert.ok(location, `no Location (status ${res.status})`);
    const url = new URL(location, this.origin);
    if (publicUrl && url.origin === new URL(publicUrl).origin) return this.get(`${this.origin}${url.pathname}${url.search}`);
    return this.get(url);
  }

  cookie(name: string): string | undefined {
    return this.jar.get(name);
  }

  cookies(): string[] {
    return [...this.jar.keys()];
  }
}
