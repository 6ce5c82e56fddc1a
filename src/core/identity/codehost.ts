// Sign-in through a code host speaking GitHub's OAuth app protocol: GitHub, GitHub Enterprise
// Server, Gitea and Forgejo differ only in their base URLs. Every answer is read through
// provider-answers.ts (bounded, typed); the email comes from the host's list of the user's
// addresses, and only one the host marks verified can join an existing Loom user.
import { Type } from 'typebox';
import { LoomError } from '../errors.ts';
import { answerShape, DEFAULT_PROVIDER_TIMEOUT_MS, printable, readOptionalProviderJson, readProviderJson, type ProviderRequest } from './provider-answers.ts';
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

const Text = (maxLength: number) => Type.Union([Type.String({ maxLength }), Type.Null()]);

/** The token endpoint's answer: GitHub reports refusals with status 200 and `error`, Gitea with 400. */
const TokenAnswer = answerShape(
  Type.Object({
    access_token: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    error: Type.Optional(Type.String()),
    error_description: Type.Optional(Type.String()),
  }),
);

/** GET /user: GitHub's `name`, Gitea's and Forgejo's `full_name`. */
const UserAnswer = answerShape(
  Type.Object({
    id: Type.Union([Type.Integer({ minimum: 0 }), Type.String({ minLength: 1, maxLength: 255 })]),
    login: Type.String({ minLength: 1, maxLength: 255 }),
    name: Type.Optional(Text(255)),
    full_name: Type.Optional(Text(255)),
    email: Type.Optional(Text(320)),
  }),
);

/** GET /user/emails. */
const EmailsAnswer = answerShape(
  Type.Array(
    Type.Object({
      email: Type.String({ maxLength: 320 }),
      primary: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      verified: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    }),
    { maxItems: 1000 },
  ),
);

export class CodeHostProvider implements SignInProvider {
  readonly id = 'codehost';

  constructor(private readonly options: CodeHostOptions) {}

  async authorizeUrl(params: { state: string; redirectUri: string }): Promise<string> {
    const url = new URL(`${trim(this.options.webUrl)}/login/oauth/authorize`);
    const query = {
      client_id: this.options.clientId,
      redirect_uri: params.redirectUri,
      scope: 'read:user user:email',
      state: params.state,
      allow_signup: 'true',
    };
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url.toString();
  }

  async identify(params: { code: string; redirectUri: string }): Promise<ExternalIdentity> {
    const token = await this.exchange(params.code, params.redirectUri);
    const { body: user } = await readProviderJson(this.api('/user', token), UserAnswer);
    const verified = await this.verifiedEmail(token);
    return {
      provider: this.id,
      subject: String(user.id),
      login: user.login,
      name: user.name || user.full_name || null,
      // The profile's public address is kept for display, but only a verified one may join.
      email: verified ?? (user.email || null),
      emailVerified: verified !== undefined,
    };
  }

  /**
   * The code host's own client authentication: client_id and client_secret in the form body
   * (client_secret_post). GitHub documents exactly this, and Gitea and Forgejo accept it; the
   * protocol has no metadata that could announce another method.
   */
  private async exchange(code: string, redirectUri: string): Promise<string> {
    const { body } = await readProviderJson(
      {
        ...this.base('the token endpoint'),
        url: `${trim(this.options.webUrl)}/login/oauth/access_token`,
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: this.options.clientId,
          client_secret: this.options.clientSecret,
          code,
          redirect_uri: redirectUri,
          grant_type: 'authorization_code',
        }).toString(),
        answers: (status) => status === 200 || status === 400 || status === 401,
      },
      TokenAnswer,
    );
    if (body.error || !body.access_token) {
      const reason = body.error
        ? `${printable(body.error, 60)}${body.error_description ? `: ${printable(body.error_description, 200)}` : ''}`
        : 'no access token';
      throw new LoomError('invalid_grant', `The code host refused the sign-in (${reason}).`, 'Start the sign-in again.');
    }
    return body.access_token;
  }

  /**
   * The primary verified address, else any verified one. A host that does not let this app
   * read the list (403, 404) leaves the user without a verified email; any other failure
   * stops the sign-in, so that a passing fault never splits one person into two users.
   */
  private async verifiedEmail(token: string): Promise<string | undefined> {
    const emails = await readOptionalProviderJson(this.api('/user/emails', token), EmailsAnswer, [403, 404]);
    const verified = (emails ?? []).filter((e) => e.verified === true && e.email.includes('@'));
    return (verified.find((e) => e.primary === true) ?? verified[0])?.email;
  }

  private api(path: string, token: string): ProviderRequest {
    return {
      ...this.base(path),
      url: `${trim(this.options.apiUrl)}${path}`,
      headers: { accept: 'application/json', authorization: `Bearer ${token}` },
    };
  }

  private base(what: string): Omit<ProviderRequest, 'url'> {
    return { provider: 'code host', what, timeoutMs: this.options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS };
  }
}

function trim(url: string): string {
  return url.replace(/\/+$/, '');
}
