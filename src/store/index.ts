import type { AgentTaskRepository } from '../core/agents/records.ts';
import type { ComposerSessionRepository, ComposerWorkspaceRepository } from '../core/composer/records.ts';
import type { FeedbackRepository } from '../core/feedback/feedback.ts';
import type {
  ApiKeyRepository,
  ClientRepository,
  GrantRepository,
  LoginStateRepository,
  SessionRepository,
  SigningKeyRepository,
  UserRepository,
} from '../core/identity/records.ts';
import { registerPrivateFolder } from '../core/files/private-folders.ts';
import type { WebhookRepository } from '../core/webhooks/records.ts';
import { SqlAgentTaskRepository } from './agents-repository.ts';
import { SqlComposerSessionRepository, SqlComposerWorkspaceRepository } from './composer-repository.ts';
import { migrateToLatest, openDatabase, pingDatabase, type OpenedDatabase, type StoreOptions } from './database.ts';
import { storeOpenFailure } from './failures.ts';
import { SqlFeedbackRepository } from './feedback-repository.ts';
import {
  SqlApiKeyRepository,
  SqlClientRepository,
  SqlGrantRepository,
  SqlLoginStateRepository,
  SqlSessionRepository,
  SqlSigningKeyRepository,
  SqlUserRepository,
} from './identity/repositories.ts';
import type { Dialect } from './schema.ts';
import { SqlWebhookRepository } from './webhooks-repository.ts';

/** Everything persistent, behind the interfaces core defines. */
export interface Store {
  dialect: Dialect;
  location: string;
  /**
   * What opening found open to other users (the data folder, the SQLite files) and what it did
   * about it, for the caller to tell the operator: the server logs them, the CLI prints them.
   */
  warnings: string[];
  feedback: FeedbackRepository;
  signingKeys: SigningKeyRepository;
  clients: ClientRepository;
  users: UserRepository;
  grants: GrantRepository;
  apiKeys: ApiKeyRepository;
  sessions: SessionRepository;
  loginStates: LoginStateRepository;
  /** The webhook outbox and delivery log. */
  webhooks: WebhookRepository;
  /** Agent tasks, their step logs and changes. */
  agentTasks: AgentTaskRepository;
  /** Composer sessions and their progress events. */
  composerSessions: ComposerSessionRepository;
  /** The workspaces composer sessions may run on. */
  composerWorkspaces: ComposerWorkspaceRepository;
  /** Round trip of a trivial query in ms; throws when the database is unreachable. */
  ping(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Opens the database (PostgreSQL when `databaseUrl` is given, else SQLite in `dataDir`, made
 * owner-only), runs the migrations and returns the repositories. Throws LoomError
 * store_unavailable when the database cannot be opened or migrated. Close the store when done.
 *
 * @example
 * const store = await openStore({ dataDir: '/var/lib/loom' });
 * for (const warning of store.warnings) console.warn(warning);
 * await store.feedback.list({ limit: 10 });
 * await store.close();
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  let opening: OpenedDatabase | undefined;
  const warnings: string[] = [];
  // A failure of the SQLite file names it by its path: never in an answer (see private-folders.ts).
  registerPrivateFolder(options.dataDir, '<data dir>');
  try {
    opening = openDatabase(options, (warning) => warnings.push(warning));
    // Again now that the folder exists: its real path too (macOS's /var is /private/var).
    registerPrivateFolder(options.dataDir, '<data dir>');
    await migrateToLatest(opening);
  } catch (error) {
    await opening?.db.destroy().catch(() => {});
    throw storeOpenFailure(error);
  }
  const opened = opening;
  return {
    dialect: opened.dialect,
    location: opened.location,
    warnings,
    feedback: new SqlFeedbackRepository(opened.db, opened.dialect),
    signingKeys: new SqlSigningKeyRepository(opened.db),
    clients: new SqlClientRepository(opened.db),
    users: new SqlUserRepository(opened.db),
    grants: new SqlGrantRepository(opened.db),
    apiKeys: new SqlApiKeyRepository(opened.db),
    sessions: new SqlSessionRepository(opened.db),
    loginStates: new SqlLoginStateRepository(opened.db),
    webhooks: new SqlWebhookRepository(opened.db, opened.dialect),
    agentTasks: new SqlAgentTaskRepository(opened.db, opened.dialect),
    composerSessions: new SqlComposerSessionRepository(opened.db),
    composerWorkspaces: new SqlComposerWorkspaceRepository(opened.db),
    ping: () => pingDatabase(opened.db),
    close: () => opened.db.destroy(),
  };
}

export type { StoreOptions };
