// What identity keeps, and the repositories (implemented in store/) that keep it.
import type { GrantType, Scope } from '../../contracts/auth.ts';
import type { ResourceId } from './resources.ts';

export interface SigningKeyRecord {
  kid: string;
  /** JWK of the private key (ES256). */
  privateJwk: Record<string, unknown>;
  publicJwk: Record<string, unknown>;
  createdAt: string;
}

export interface SigningKeyRepository {
  /** All keys, newest first. */
  list(): Promise<SigningKeyRecord[]>;
  add(key: SigningKeyRecord): Promise<void>;
}

export interface ClientRecord {
  clientId: string;
  name: string;
  type: 'public' | 'confidential';
  /** Hash of the client secret (confidential clients only). */
  secretHash: string | null;
  redirectUris: string[];
  grantTypes: GrantType[];
  /** Scopes this client may be granted. */
  scopes: Scope[];
  /**
   * Who registered it: the operator (`loom admin clients`), or the client itself (RFC 7591,
   * how MCP clients sign in). A user is asked to consent to a client that registered itself.
   */
  registration: 'operator' | 'dynamic';
  createdAt: string;
}

export interface ClientRepository {
  add(client: ClientRecord): Promise<void>;
  get(clientId: string): Promise<ClientRecord | undefined>;
  list(): Promise<ClientRecord[]>;
  remove(clientId: string): Promise<boolean>;
}

export interface UserRecord {
  id: string;
  login: string;
  name: string | null;
  email: string | null;
  createdAt: string;
}

/** A sign-in identity at a provider: the code host, or an OpenID Connect issuer. */
export interface ExternalIdentity {
  provider: string;
  subject: string;
  login: string;
  name: string | null;
  email: string | null;
  /** Only verified emails link a new identity to an existing user. */
  emailVerified: boolean;
}

/** A user and the providers it is known to (`local`: made by `loom admin users add`). */
export interface UserListing extends UserRecord {
  providers: string[];
}

export interface UserRepository {
  get(id: string): Promise<UserRecord | undefined>;
  /** Every user, oldest first. */
  list(): Promise<UserListing[]>;
  findByIdentity(provider: string, subject: string): Promise<UserRecord | undefined>;
  findByEmail(email: string): Promise<UserRecord | undefined>;
  create(user: UserRecord): Promise<void>;
  update(user: UserRecord): Promise<void>;
  linkIdentity(userId: string, provider: string, subject: string): Promise<void>;
  /** Creates the user with its identity in one transaction; false (nothing written) when the identity is taken. */
  createWithIdentity(user: UserRecord, provider: string, subject: string): Promise<boolean>;
}

/** Everything issued from one authorization: its refresh tokens and access tokens (by `gid`). */
export interface GrantRecord {
  id: string;
  clientId: string;
  userId: string | null;
  scope: string;
  /** The resource its access tokens are for (`aud`). */
  resource: ResourceId;
  createdAt: string;
  revokedAt: string | null;
}

export interface AuthorizationCodeRecord {
  codeHash: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string | null;
  scope: string;
  /** The resource the authorization request named (RFC 8707). */
  resource: ResourceId;
  nonce: string | null;
  expiresAt: string;
  usedAt: string | null;
  /** The grant the first redemption created, so that a second one can revoke it. */
  grantId: string | null;
}

export interface RefreshTokenRecord {
  tokenHash: string;
  grantId: string;
  expiresAt: string;
  usedAt: string | null;
}

/** A one-time claim: the record as stored, and whether this call was the first to claim it. */
export interface Claim<T> {
  record: T;
  firstUse: boolean;
}

export interface GrantRepository {
  createGrant(grant: GrantRecord): Promise<void>;
  getGrant(id: string): Promise<GrantRecord | undefined>;
  revokeGrant(id: string, at: string): Promise<void>;
  revokeGrantsOfClient(clientId: string, at: string): Promise<void>;
  saveCode(code: AuthorizationCodeRecord): Promise<void>;
  /** Marks the code used (atomically: one caller wins) and returns it. */
  claimCode(codeHash: string, at: string): Promise<Claim<AuthorizationCodeRecord> | undefined>;
  /**
   * Attaches a grant to a used code unless one is attached already (atomically: one caller
   * wins) and returns the grant id attached now.
   */
  attachGrantToCode(codeHash: string, grantId: string): Promise<string | null>;
  saveRefreshToken(token: RefreshTokenRecord): Promise<void>;
  /** Marks the refresh token used (atomically) and returns it. */
  claimRefreshToken(tokenHash: string, at: string): Promise<Claim<RefreshTokenRecord> | undefined>;
}

export interface ApiKeyRecord {
  /** The `jti` of the key's JWT; the key itself is never stored. */
  id: string;
  userId: string;
  name: string;
  scope: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

export interface ApiKeyRepository {
  add(key: ApiKeyRecord): Promise<void>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  listForUser(userId: string): Promise<ApiKeyRecord[]>;
  /** Every user's keys, newest first. */
  list(): Promise<ApiKeyRecord[]>;
  revoke(id: string, userId: string, at: string): Promise<boolean>;
}

export interface SessionRecord {
  idHash: string;
  userId: string;
  csrfToken: string;
  createdAt: string;
  expiresAt: string;
}

export interface SessionRepository {
  add(session: SessionRecord): Promise<void>;
  get(idHash: string): Promise<SessionRecord | undefined>;
  remove(idHash: string): Promise<void>;
}

/** A pending sign-in at a provider: what to do when it calls back. Single use. */
export interface LoginStateRecord {
  stateHash: string;
  provider: string;
  source: 'web' | 'cli' | 'desktop';
  callbackPort: string | null;
  scope: string;
  codeChallenge: string | null;
  clientState: string | null;
  returnTo: string | null;
  /** PKCE verifier we use toward the provider, where it supports PKCE. */
  providerVerifier: string;
  nonce: string;
  expiresAt: string;
}

export interface LoginStateRepository {
  add(state: LoginStateRecord): Promise<void>;
  /** Removes and returns the state (single use). */
  take(stateHash: string): Promise<LoginStateRecord | undefined>;
}
