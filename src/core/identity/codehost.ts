// Sign-in through a code host speaking GitHub's OAuth app protocol: GitHub, GitHub Enterprise
// Server, Gitea and Forgejo differ only in their base URLs.
import { LoomError } from '../errors.ts';
import type { ExternalIdentity } from './records.ts';

export interface CodeHostOptions {
  clientId: string;
  clientSecret: string;
  /** Web base, e.g. https://github.com (authorize and token URLs live under /login/oauth/). */
  webUrl: string;
  /** API base, e.g. https://api.github.com, https://ghe.example.com/api/v3, https://gitea.example.com/api/v1. */
  apiUrl: string;
  timeoutMs?: number;
}

/** What a sign-in provider must do; the code host and OpenID Connect both implement it. */
export interface SignInProvider {
  readonly id: string;
  authorizeUrl(params: { state: string; redirectUri: string; codeVerifier: string; nonce: string }): Promise<string>;
  identify(params: { code: string; redirectUri: string; codeVerifier: string; nonce: string }): Promise<ExternalIdentity>;
}

interface CodeHostUser {
  id: number | string;
  login: string;
  name?: string | null;
  full_name?: string | null;
  email?: string | null;
}

interface CodeHostEmail {
  email: string;
  primary?: boolean;
  verified?: boolean;
}

export class CodeHostProvider implements SignInProvider {
  readonly id = 'codehost';

  constructor(private readonly options: CodeHostOptions) {}

  async authorizeUrl(params: { state: string; redirectUri: string }): Promise<string> {
    const url = new URL(`${trim(this.options.webUrl)}/login/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: this.options.clientId,
      redirect_uri: params.redirectUri,
      scope: 'read:user user:email',
      state: params.state,
      allow_signup: 'true',
    }).toString();
    return url.toString();
  }

  async identify(params: { code: string; redirectUri: string }): Promise<ExternalIdentity> {
    const token = await this.exchange(params.code, params.redirectUri);
    const user = await this.api<CodeHostUser>('/user', token);
    if (user.id === undefined || typeof user.login !== 'string') throw unavailable('The code host returned no user.');
    const emails = await this.api<CodeHostEmail[]>('/user/emails', token).catch(() => [] as CodeHostEmail[]);
    const primary = Array.isArray(emails) ? (emails.find((e) => e.primary && e.verified) ?? emails.find((e) => e.verified)) : undefined;
    return {
      provider: this.id,
      subject: String(user.id),
      login: user.login,
      name: user.name ?? user.full_name ?? null,
      email: primary?.email ?? user.email ?? null,
      emailVerified: Boolean(primary),
    };
  }

  private async exchange(code: string, redirectUri: string): Promise<string> {
    const response = await this.request(`${trim(this.options.webUrl)}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: this.options.clientId,
        client_secret: this.options.clientSecret,
        code,
        redirect_uri: redirectUri,
        grant_type: 'authorization_code',
      }).toString(),
    });
    const body = (await response.json().catch(() => ({}))) as { access_token?: string; error?: string; error_description?: string };
    if (!response.ok || !body.access_token) {
      throw new LoomError('invalid_grant', `The code host refused the sign-in: ${body.error_description ?? body.error ?? response.status}.`);
    }
    return body.access_token;
  }

  private async api<T>(path: string, token: string): Promise<T> {
    const response = await this.request(`${trim(this.options.apiUrl)}${path}`, {
      headers: { accept: 'application/json', authorization: `Bearer ${token}` },
    });
    if (!response.ok) throw unavailable(`The code host answered ${response.status} for ${path}.`);
    return (await response.json()) as T;
  }

  private request(url: string, init: RequestInit): Promise<Response> {
    return fetchProvider(url, init, this.options.timeoutMs ?? 10_000, 'code host');
  }
}

function unavailable(message: string): LoomError {
  return new LoomError('upstream_unavailable', message, 'Try signing in again shortly.');
}

/** A request to a sign-in provider, bounded in time; a network failure is upstream_unavailable. */
export async function fetchProvider(url: string, init: RequestInit, timeoutMs: number, provider: string): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch {
    throw unavailable(`The ${provider} could not be reached.`);
  }
}

function trim(url: string): string {
  return url.replace(/\/+$/, '');
}
