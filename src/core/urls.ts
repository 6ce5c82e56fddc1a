/**
 * The public addresses of the hosted service. Read on every use: with port 0 they are known
 * only once the server listens.
 */
export interface ServiceUrls {
  /** Base URL used in links and provider callbacks. */
  readonly publicUrl: string;
  /** The authorization server: `iss` of tokens, home of /auth/authorize and /auth/token. */
  readonly issuer: string;
  /** The protected resource: `aud` of access tokens and API keys. */
  readonly audience: string;
}

export class MutableServiceUrls implements ServiceUrls {
  constructor(
    public publicUrl: string,
    private readonly authUrl?: string,
  ) {}

  get issuer(): string {
    return this.authUrl ?? this.publicUrl;
  }

  get audience(): string {
    return this.publicUrl;
  }
}
