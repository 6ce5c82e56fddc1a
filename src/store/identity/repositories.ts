// The identity repositories over Kysely (SQLite or PostgreSQL).
import type { Kysely, Selectable } from 'kysely';
import type {
  ApiKeyRecord,
  ApiKeyRepository,
  AuthorizationCodeRecord,
  Claim,
  ClientRecord,
  ClientRepository,
  GrantRecord,
  GrantRepository,
  LoginStateRecord,
  LoginStateRepository,
  RefreshTokenRecord,
  SessionRecord,
  SessionRepository,
  SigningKeyRecord,
  SigningKeyRepository,
  UserListing,
  UserRecord,
  UserRepository,
} from '../../core/identity/records.ts';
import type { ResourceId } from '../../core/identity/resources.ts';
import { reach } from '../failures.ts';
import type { ApiKeyTable, AuthorizationCodeTable, Database, GrantTable, OAuthClientTable, UserTable } from '../schema.ts';

type Db = Kysely<Database>;

export class SqlSigningKeyRepository implements SigningKeyRepository {
  constructor(private readonly db: Db) {}

  list(): Promise<SigningKeyRecord[]> {
    return reach(async () =>
      (await this.db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').orderBy('kid').execute()).map((row) => ({
        kid: row.kid,
        privateJwk: JSON.parse(row.private_jwk),
        publicJwk: JSON.parse(row.public_jwk),
        createdAt: row.created_at,
      })),
    );
  }

  async add(key: SigningKeyRecord): Promise<void> {
    await reach(() =>
      this.db
        .insertInto('signing_keys')
        .values({ kid: key.kid, private_jwk: JSON.stringify(key.privateJwk), public_jwk: JSON.stringify(key.publicJwk), created_at: key.createdAt })
        .execute(),
    );
  }
}

function toClient(row: Selectable<OAuthClientTable>): ClientRecord {
  return {
    clientId: row.client_id,
    name: row.name,
    type: row.type,
    secretHash: row.secret_hash,
    redirectUris: JSON.parse(row.redirect_uris),
    grantTypes: JSON.parse(row.grant_types),
    scopes: JSON.parse(row.scopes),
    registration: row.registration === 'dynamic' ? 'dynamic' : 'operator',
    createdAt: row.created_at,
  };
}

export class SqlClientRepository implements ClientRepository {
  constructor(private readonly db: Db) {}

  async add(client: ClientRecord): Promise<void> {
    await reach(() =>
      this.db
        .insertInto('oauth_clients')
        .values({
          client_id: client.clientId,
          name: client.name,
          type: client.type,
          secret_hash: client.secretHash,
          redirect_uris: JSON.stringify(client.redirectUris),
          grant_types: JSON.stringify(client.grantTypes),
          scopes: JSON.stringify(client.scopes),
          registration: client.registration,
          created_at: client.createdAt,
        })
        .execute(),
    );
  }

  async get(clientId: string): Promise<ClientRecord | undefined> {
    const row = await reach(() => this.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst());
    return row && toClient(row);
  }

  async list(): Promise<ClientRecord[]> {
    return (await reach(() => this.db.selectFrom('oauth_clients').selectAll().orderBy('created_at').execute())).map(toClient);
  }

  async remove(clientId: string): Promise<boolean> {
    const result = await reach(() => this.db.deleteFrom('oauth_clients').where('client_id', '=', clientId).executeTakeFirst());
    return Number(result.numDeletedRows) > 0;
  }
}

function toUser(row: Selectable<UserTable>): UserRecord {
  return { id: row.id, login: row.login, name: row.name, email: row.email, createdAt: row.created_at };
}

export class SqlUserRepository implements UserRepository {
  constructor(private readonly db: Db) {}

  async get(id: string): Promise<UserRecord | undefined> {
    const row = await reach(() => this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst());
    return row && toUser(row);
  }

  async list(): Promise<UserListing[]> {
    const rows = await reach(() =>
      this.db
        .selectFrom('users')
        .leftJoin('user_identities', 'user_identities.user_id', 'users.id')
        .selectAll('users')
        .select('user_identities.provider')
        .orderBy('users.created_at')
        .orderBy('users.id')
        .orderBy('user_identities.provider')
        .execute(),
    );
    // One row per identity: folded into one listing per user, in the order of the rows.
    const users = new Map<string, UserListing>();
    for (const row of rows) {
      const user = users.get(row.id) ?? { ...toUser(row), providers: [] };
      if (row.provider !== null && !user.providers.includes(row.provider)) user.providers.push(row.provider);
      users.set(row.id, user);
    }
    return [...users.values()];
  }

  async findByIdentity(provider: string, subject: string): Promise<UserRecord | undefined> {
    const row = await reach(() =>
      this.db
        .selectFrom('user_identities')
        .innerJoin('users', 'users.id', 'user_identities.user_id')
        .selectAll('users')
        .where('user_identities.provider', '=', provider)
        .where('user_identities.subject', '=', subject)
        .executeTakeFirst(),
    );
    return row && toUser(row);
  }

  async findByEmail(email: string): Promise<UserRecord | undefined> {
    const row = await reach(() => this.db.selectFrom('users').selectAll().where('email', '=', email).orderBy('created_at').executeTakeFirst());
    return row && toUser(row);
  }

  async create(user: UserRecord): Promise<void> {
    await reach(() =>
      this.db.insertInto('users').values({ id: user.id, login: user.login, name: user.name, email: user.email, created_at: user.createdAt }).execute(),
    );
  }

  async update(user: UserRecord): Promise<void> {
    await reach(() => this.db.updateTable('users').set({ login: user.login, name: user.name, email: user.email }).where('id', '=', user.id).execute());
  }

  async linkIdentity(userId: string, provider: string, subject: string): Promise<void> {
    await reach(() => this.db.insertInto('user_identities').values({ provider, subject, user_id: userId }).execute());
  }

  async createWithIdentity(user: UserRecord, provider: string, subject: string): Promise<boolean> {
    return reach(() =>
      this.db.transaction().execute(async (trx) => {
        // The identity first: its primary key decides between two processes adding the same one.
        const linked = await trx
          .insertInto('user_identities')
          .values({ provider, subject, user_id: user.id })
          .onConflict((conflict) => conflict.columns(['provider', 'subject']).doNothing())
          .executeTakeFirst();
        if (Number(linked.numInsertedOrUpdatedRows) !== 1) return false;
        await trx.insertInto('users').values({ id: user.id, login: user.login, name: user.name, email: user.email, created_at: user.createdAt }).execute();
        return true;
      }),
    );
  }
}

/** A resource's name as stored; rows from before resources were recorded are for the API. */
function toResource(stored: string | null): ResourceId {
  return stored === 'mcp' ? 'mcp' : 'api';
}

function toGrant(row: Selectable<GrantTable>): GrantRecord {
  return {
    id: row.id,
    clientId: row.client_id,
    userId: row.user_id,
    scope: row.scope,
    resource: toResource(row.resource),
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

function toCode(row: Selectable<AuthorizationCodeTable>): AuthorizationCodeRecord {
  return {
    codeHash: row.code_hash,
    clientId: row.client_id,
    userId: row.user_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    scope: row.scope,
    resource: toResource(row.resource),
    nonce: row.nonce,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    grantId: row.grant_id,
  };
}

export class SqlGrantRepository implements GrantRepository {
  constructor(private readonly db: Db) {}

  async createGrant(grant: GrantRecord): Promise<void> {
    await reach(() =>
      this.db
        .insertInto('grants')
        .values({
          id: grant.id,
          client_id: grant.clientId,
          user_id: grant.userId,
          scope: grant.scope,
          resource: grant.resource,
          created_at: grant.createdAt,
          revoked_at: grant.revokedAt,
        })
        .execute(),
    );
  }

  async getGrant(id: string): Promise<GrantRecord | undefined> {
    const row = await reach(() => this.db.selectFrom('grants').selectAll().where('id', '=', id).executeTakeFirst());
    return row && toGrant(row);
  }

  async revokeGrant(id: string, at: string): Promise<void> {
    await reach(() => this.db.updateTable('grants').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute());
  }

  async revokeGrantsOfClient(clientId: string, at: string): Promise<void> {
    await reach(() => this.db.updateTable('grants').set({ revoked_at: at }).where('client_id', '=', clientId).where('revoked_at', 'is', null).execute());
  }

  async saveCode(code: AuthorizationCodeRecord): Promise<void> {
    await reach(() =>
      this.db
        .insertInto('authorization_codes')
        .values({
          code_hash: code.codeHash,
          client_id: code.clientId,
          user_id: code.userId,
          redirect_uri: code.redirectUri,
          code_challenge: code.codeChallenge,
          scope: code.scope,
          resource: code.resource,
          nonce: code.nonce,
          expires_at: code.expiresAt,
          used_at: code.usedAt,
          grant_id: code.grantId,
        })
        .execute(),
    );
  }

  async claimCode(codeHash: string, at: string): Promise<Claim<AuthorizationCodeRecord> | undefined> {
    return reach(async () => {
      const claimed = await this.db
        .updateTable('authorization_codes')
        .set({ used_at: at })
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      const row = await this.db.selectFrom('authorization_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
      return row && { record: toCode(row), firstUse: Number(claimed.numUpdatedRows) === 1 };
    });
  }

  async attachGrantToCode(codeHash: string, grantId: string): Promise<string | null> {
    return reach(async () => {
      await this.db.updateTable('authorization_codes').set({ grant_id: grantId }).where('code_hash', '=', codeHash).where('grant_id', 'is', null).execute();
      const row = await this.db.selectFrom('authorization_codes').select('grant_id').where('code_hash', '=', codeHash).executeTakeFirst();
      return row?.grant_id ?? null;
    });
  }

  async saveRefreshToken(token: RefreshTokenRecord): Promise<void> {
    await reach(() =>
      this.db
        .insertInto('refresh_tokens')
        .values({ token_hash: token.tokenHash, grant_id: token.grantId, expires_at: token.expiresAt, used_at: token.usedAt })
        .execute(),
    );
  }

  async claimRefreshToken(tokenHash: string, at: string): Promise<Claim<RefreshTokenRecord> | undefined> {
    return reach(async () => {
      const claimed = await this.db
        .updateTable('refresh_tokens')
        .set({ used_at: at })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      const row = await this.db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return (
        row && {
          record: { tokenHash: row.token_hash, grantId: row.grant_id, expiresAt: row.expires_at, usedAt: row.used_at },
          firstUse: Number(claimed.numUpdatedRows) === 1,
        }
      );
    });
  }
}

function toApiKey(row: Selectable<ApiKeyTable>): ApiKeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    scope: row.scope,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

export class SqlApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Db) {}

  async add(key: ApiKeyRecord): Promise<void> {
    await reach(() =>
      this.db
        .insertInto('api_keys')
        .values({
          id: key.id,
          user_id: key.userId,
          name: key.name,
          scope: key.scope,
          created_at: key.createdAt,
          expires_at: key.expiresAt,
          revoked_at: key.revokedAt,
        })
        .execute(),
    );
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const row = await reach(() => this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst());
    return row && toApiKey(row);
  }

  async listForUser(userId: string): Promise<ApiKeyRecord[]> {
    return (await reach(() => this.db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').execute())).map(toApiKey);
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (await reach(() => this.db.selectFrom('api_keys').selectAll().orderBy('created_at', 'desc').orderBy('id').execute())).map(toApiKey);
  }

  async revoke(id: string, userId: string, at: string): Promise<boolean> {
    const result = await reach(() =>
      this.db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst(),
    );
    return Number(result.numUpdatedRows) > 0;
  }
}

export class SqlSessionRepository implements SessionRepository {
  constructor(private readonly db: Db) {}

  async add(session: SessionRecord): Promise<void> {
    await reach(() =>
      this.db
        .insertInto('sessions')
        .values({
          id_hash: session.idHash,
          user_id: session.userId,
          csrf_token: session.csrfToken,
          created_at: session.createdAt,
          expires_at: session.expiresAt,
        })
        .execute(),
    );
  }

  async get(idHash: string): Promise<SessionRecord | undefined> {
    const row = await reach(() => this.db.selectFrom('sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst());
    return row && { idHash: row.id_hash, userId: row.user_id, csrfToken: row.csrf_token, createdAt: row.created_at, expiresAt: row.expires_at };
  }

  async remove(idHash: string): Promise<void> {
    await reach(() => this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute());
  }
}

export class SqlLoginStateRepository implements LoginStateRepository {
  constructor(private readonly db: Db) {}

  async add(state: LoginStateRecord): Promise<void> {
    await reach(() =>
      this.db
        .insertInto('login_states')
        .values({
          state_hash: state.stateHash,
          provider: state.provider,
          source: state.source,
          callback_port: state.callbackPort,
          scope: state.scope,
          code_challenge: state.codeChallenge,
          client_state: state.clientState,
          return_to: state.returnTo,
          provider_verifier: state.providerVerifier,
          nonce: state.nonce,
          expires_at: state.expiresAt,
        })
        .execute(),
    );
  }

  async take(stateHash: string): Promise<LoginStateRecord | undefined> {
    return reach(async () => {
      const row = await this.db.selectFrom('login_states').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
      if (!row) return undefined;
      const deleted = await this.db.deleteFrom('login_states').where('state_hash', '=', stateHash).executeTakeFirst();
      if (Number(deleted.numDeletedRows) !== 1) return undefined; // another request took it first
      return {
        stateHash: row.state_hash,
        provider: row.provider,
        source: row.source,
        callbackPort: row.callback_port,
        scope: row.scope,
        codeChallenge: row.code_challenge,
        clientState: row.client_state,
        returnTo: row.return_to,
        providerVerifier: row.provider_verifier,
        nonce: row.nonce,
        expiresAt: row.expires_at,
      };
    });
  }
}
