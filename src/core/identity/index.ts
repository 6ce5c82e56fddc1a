// Wires the identity services together over the repositories the store provides.
import type { Clock } from '../clock.ts';
import type { ServiceUrls } from '../urls.ts';
import { ApiKeyService } from './api-keys.ts';
import { ClientRegistry } from './clients.ts';
import type { SignInProvider } from './codehost.ts';
import { OAuthServer } from './oauth-server.ts';
import type {
  ApiKeyRepository,
  ClientRepository,
  GrantRepository,
  LoginStateRepository,
  SessionRepository,
  SigningKeyRepository,
  UserRepository,
} from './records.ts';
import { SessionService } from './sessions.ts';
import { SignInService } from './sign-in.ts';
import { SigningKeys } from './signing-keys.ts';
import { TokenService } from './tokens.ts';
import { UserDirectory } from './users.ts';

export interface IdentityRepositories {
  signingKeys: SigningKeyRepository;
  clients: ClientRepository;
  users: UserRepository;
  grants: GrantRepository;
  apiKeys: ApiKeyRepository;
  sessions: SessionRepository;
  loginStates: LoginStateRepository;
}

export interface IdentityOptions {
  urls: ServiceUrls;
  providers: SignInProvider[];
  accessTokenSeconds?: number;
  clock: Clock;
}

export interface Identity {
  keys: SigningKeys;
  tokens: TokenService;
  clients: ClientRegistry;
  oauth: OAuthServer;
  users: UserDirectory;
  signIn: SignInService;
  sessions: SessionService;
  apiKeys: ApiKeyService;
  urls: ServiceUrls;
}

/**
 * Everything about who is who, over the store's repositories: signing keys (made on first
 * start), tokens, OAuth clients and the authorization server, users and their sign-ins through
 * the configured providers, dashboard sessions and API keys.
 *
 * @example
 * const identity = await createIdentity(store, { urls, providers: [], clock: systemClock });
 * const principal = await identity.tokens.verify(bearerToken);
 */
export async function createIdentity(repositories: IdentityRepositories, options: IdentityOptions): Promise<Identity> {
  const { clock } = options;
  const keys = new SigningKeys(repositories.signingKeys, clock);
  await keys.init();
  const users = new UserDirectory(repositories.users, clock);
  const tokens = new TokenService({
    keys,
    grants: repositories.grants,
    apiKeys: repositories.apiKeys,
    users: repositories.users,
    urls: options.urls,
    accessTokenSeconds: options.accessTokenSeconds,
    clock,
  });
  const clients = new ClientRegistry(repositories.clients, repositories.grants, clock);
  const oauth = new OAuthServer(clients, repositories.grants, tokens, options.urls, clock);
  const signIn = new SignInService({
    providers: new Map(options.providers.map((p) => [p.id, p])),
    states: repositories.loginStates,
    users,
    oauth,
    urls: options.urls,
    clock,
  });
  return {
    keys,
    tokens,
    clients,
    oauth,
    users,
    signIn,
    sessions: new SessionService(repositories.sessions, users, clock),
    apiKeys: new ApiKeyService(repositories.apiKeys, tokens, clock),
    urls: options.urls,
  };
}
