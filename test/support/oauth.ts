// Helpers for the authorization server's tests (test/hosted/auth): registering clients,
// signing a user into the dashboard, walking /auth/authorize, the token endpoint, and checking
// the two ways a failure may leave (an Error body, or an HTML error page that redirects nowhere).
import assert from 'node:assert/strict';
import type { GrantType, Scope } from '../../src/contracts/auth.ts';
import type { ClientRecord, UserRecord } from '../../src/core/identity/records.ts';
import { pkceChallenge, randomToken } from '../../src/core/identity/secrets.ts';
import type { TestHosted } from './hosted.ts';

export const FORM = 'application/x-www-form-urlencoded';

/** The nine scopes of interface.md's "Authentication" section, written out by hand. */
export const INTERFACE_SCOPES = [
  'openid',
  'profile',
  'email',
  'read:downloads',
  'read:models',
  'read:health',
  'write:feedback',
  'write:composer',
  'read:tab',
];
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

/** Redeems a code and expects tokens. */
export async function redeem(
  hosted: TestHosted,
  client: ClientRecord,
  grant: { code: string; verifier: string; redirectUri: string },
  clientSecret?: string,
): Promise<Tokens> {
  const res = await tokenRequest(hosted, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
    client_id: client.clientId,
    client_secret: clientSecret,
  });
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
  const oauth = ['invalid_request', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'invalid_client'];
  if (oauth.includes(body.error as string)) assert.equal(body.error_description, body.message, 'OAuth errors carry error_description');
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
