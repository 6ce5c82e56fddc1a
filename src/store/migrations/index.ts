// Migrations, in order. Each takes the dialect so that types can differ where they must.
import { sql, type CreateTableBuilder, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../schema.ts';

export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_feedback': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('feedback')
          .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (col) =>
            dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement(),
          )
          .addColumn('id', 'text', (col) => col.notNull().unique())
          .addColumn('name', 'text', (col) => col.notNull())
          .addColumn('email', 'text', (col) => col.notNull())
          .addColumn('subject', 'text', (col) => col.notNull())
          .addColumn('message', 'text', (col) => col.notNull())
          .addColumn('created_at', dialect === 'postgres' ? sql`timestamptz` : 'text', (col) => col.notNull())
          .addColumn('client_ip', 'text', (col) => col.notNull())
          .addColumn('user_agent', 'text')
          .execute();
      },
    },
    '0002_identity': {
      async up(db: Kysely<any>) {
        // Column names ending in `?` are nullable; every column is text (see schema.ts).
        await createTextTable(db, 'signing_keys', ['kid'], ['private_jwk', 'public_jwk', 'created_at']);
        await createTextTable(db, 'oauth_clients', ['client_id'], ['name', 'type', 'secret_hash?', 'redirect_uris', 'grant_types', 'scopes', 'created_at']);
        await createTextTable(db, 'users', ['id'], ['login', 'name?', 'email?', 'created_at']);
        await createTextTable(db, 'user_identities', ['provider', 'subject'], ['user_id']);
        await createTextTable(db, 'grants', ['id'], ['client_id', 'user_id?', 'scope', 'created_at', 'revoked_at?']);
        await createTextTable(
          db,
          'authorization_codes',
          ['code_hash'],
          ['client_id', 'user_id', 'redirect_uri', 'code_challenge?', 'scope', 'nonce?', 'expires_at', 'used_at?', 'grant_id?'],
        );
        await createTextTable(db, 'refresh_tokens', ['token_hash'], ['grant_id', 'expires_at', 'used_at?']);
        await createTextTable(db, 'api_keys', ['id'], ['user_id', 'name', 'scope', 'created_at', 'expires_at', 'revoked_at?']);
        await createTextTable(db, 'sessions', ['id_hash'], ['user_id', 'csrf_token', 'created_at', 'expires_at']);
        await createTextTable(
          db,
          'login_states',
          ['state_hash'],
          ['provider', 'source', 'callback_port?', 'scope', 'code_challenge?', 'client_state?', 'return_to?', 'provider_verifier', 'nonce', 'expires_at'],
        );
        await db.schema.createIndex('users_email').on('users').column('email').execute();
        await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();
        await db.schema.createIndex('refresh_tokens_grant').on('refresh_tokens').column('grant_id').execute();
      },
    },
    '0003_webhooks': {
      async up(db: Kysely<any>) {
        // next_attempt_at and claimed_until are epoch ms, compared as integers.
        await db.schema
          .createTable('webhook_deliveries')
          .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (col) =>
            dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement(),
          )
          .addColumn('id', 'text', (col) => col.notNull().unique())
          .addColumn('url', 'text', (col) => col.notNull())
          .addColumn('event_type', 'text', (col) => col.notNull())
          .addColumn('payload', 'text', (col) => col.notNull())
          .addColumn('status', 'text', (col) => col.notNull())
          .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('next_attempt_at', 'bigint', (col) => col.notNull())
          .addColumn('claimed_until', 'bigint')
          .addColumn('claim_token', 'text')
          .addColumn('last_status', 'integer')
          .addColumn('last_error', 'text')
          .addColumn('created_at', 'text', (col) => col.notNull())
          .addColumn('delivered_at', 'text')
          .execute();
        await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
        await createTextTable(db, 'webhook_endpoints_disabled', ['url'], ['secret_fingerprint', 'disabled_at', 'reason']);
      },
    },
    '0004_oauth_resources': {
      async up(db: Kysely<any>) {
        // Nullable, so that what exists keeps its meaning: operator clients, tokens for the API.
        await db.schema.alterTable('oauth_clients').addColumn('registration', 'text').execute();
        await db.schema.alterTable('grants').addColumn('resource', 'text').execute();
        await db.schema.alterTable('authorization_codes').addColumn('resource', 'text').execute();
      },
    },
    '0005_agent_tasks': {
      async up(db: Kysely<any>) {
        // Times are ISO 8601 text; lists and budgets JSON text. A step's fields beyond its
        // place in the log are one JSON object (`data`): the log is read whole, never queried.
        await db.schema
          .createTable('agent_tasks')
          .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (col) =>
            dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement(),
          )
          .addColumn('id', 'text', (col) => col.notNull().unique())
          .addColumn('status', 'text', (col) => col.notNull())
          .addColumn('task', 'text', (col) => col.notNull())
          .addColumn('files', 'text', (col) => col.notNull())
          .addColumn('model', 'text', (col) => col.notNull())
          .addColumn('budgets', 'text', (col) => col.notNull())
          .addColumn('estimated_time', 'integer', (col) => col.notNull())
          .addColumn('steps', 'integer', (col) => col.notNull())
          .addColumn('tokens', 'bigint', (col) => col.notNull())
          .addColumn('created_at', 'text', (col) => col.notNull())
          .addColumn('ended_at', 'text')
          .addColumn('reason', 'text')
          .addColumn('error', 'text')
          .addColumn('summary', 'text')
          .addColumn('reverted_at', 'text')
          .execute();
        await db.schema.createIndex('agent_tasks_status').on('agent_tasks').column('status').execute();
        await db.schema
          .createTable('agent_steps')
          .addColumn('task_id', 'text', (col) => col.notNull())
          .addColumn('idx', 'integer', (col) => col.notNull())
          .addColumn('kind', 'text', (col) => col.notNull())
          .addColumn('turn', 'integer', (col) => col.notNull())
          .addColumn('at', 'text', (col) => col.notNull())
          .addColumn('data', 'text', (col) => col.notNull())
          .addPrimaryKeyConstraint('agent_steps_pk', ['task_id', 'idx'])
          .execute();
        // A file's content before the task and now (null: no file): what diffs and revert read.
        await db.schema
          .createTable('agent_changes')
          .addColumn('task_id', 'text', (col) => col.notNull())
          .addColumn('entry', 'integer', (col) => col.notNull())
          .addColumn('path', 'text', (col) => col.notNull())
          .addColumn('origin', 'text')
          .addColumn('content_before', 'text')
          .addColumn('content_after', 'text')
          .addPrimaryKeyConstraint('agent_changes_pk', ['task_id', 'entry'])
          .execute();
      },
    },
    '0006_composer': {
      async up(db: Kysely<any>) {
        // Composer sessions (docs/composer.md). Times people read are ISO 8601 text; the lease
        // is epoch ms (bigint) compared by claims. The request's lists, the plan, the edits and
        // the budgets are JSON text: read whole, never queried.
        await db.schema
          .createTable('composer_sessions')
          .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (col) =>
            dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement(),
          )
          .addColumn('id', 'text', (col) => col.notNull().unique())
          .addColumn('user_id', 'text', (col) => col.notNull())
          .addColumn('prompt', 'text', (col) => col.notNull())
          .addColumn('files', 'text', (col) => col.notNull())
          .addColumn('mode', 'text', (col) => col.notNull())
          .addColumn('workspace', 'text')
          .addColumn('attachments', 'text', (col) => col.notNull())
          .addColumn('status', 'text', (col) => col.notNull())
          .addColumn('budgets', 'text', (col) => col.notNull())
          .addColumn('model', 'text')
          .addColumn('plan', 'text')
          .addColumn('edits', 'text')
          .addColumn('branch', 'text')
          .addColumn('commit_sha', 'text')
          .addColumn('pushed', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('error', 'text')
          .addColumn('summary', 'text')
          .addColumn('steps', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('tokens', 'bigint', (col) => col.notNull().defaultTo(0))
          .addColumn('created_at', 'text', (col) => col.notNull())
          .addColumn('started_at', 'text')
          .addColumn('ended_at', 'text')
          .addColumn('runner', 'text')
          .addColumn('attempt', 'integer', (col) => col.notNull().defaultTo(0))
          .addColumn('lease_until', 'bigint')
          .addColumn('cancel_requested', 'integer', (col) => col.notNull().defaultTo(0))
          .execute();
        await db.schema.createIndex('composer_sessions_user_status').on('composer_sessions').columns(['user_id', 'status']).execute();
        await db.schema.createIndex('composer_sessions_status').on('composer_sessions').columns(['status', 'lease_until']).execute();
        await db.schema
          .createTable('composer_events')
          .addColumn('session_id', 'text', (col) => col.notNull())
          .addColumn('seq', 'integer', (col) => col.notNull())
          .addColumn('type', 'text', (col) => col.notNull())
          .addColumn('data', 'text', (col) => col.notNull())
          .addColumn('at', 'text', (col) => col.notNull())
          .addPrimaryKeyConstraint('composer_events_pk', ['session_id', 'seq'])
          .execute();
        await createTextTable(db, 'composer_workspaces', ['name'], ['repo', 'branch?', 'push', 'created_at']);
      },
    },
    '0007_agent_conversation': {
      async up(db: Kysely<any>) {
        // A task continued with the user's messages: the messages and how the work on each
        // ended, JSON text read whole. Null for a task of an earlier version (its one message is its task).
        await db.schema.alterTable('agent_tasks').addColumn('conversation', 'text').execute();
      },
    },
    '0008_composer_conversation': {
      async up(db: Kysely<any>) {
        // A session continued with the user's messages (docs/composer.md, "Follow-ups"): the
        // commit its copy started from, the messages with how the work before each ended, and the
        // edits the current run goes on from. JSON text read whole; null for earlier sessions.
        for (const column of ['base_sha', 'conversation', 'start_edits']) {
          await db.schema.alterTable('composer_sessions').addColumn(column, 'text').execute();
        }
      },
    },
  };
}

async function createTextTable(db: Kysely<any>, name: string, primaryKey: string[], columns: string[]): Promise<void> {
  let table: CreateTableBuilder<string, string> = db.schema.createTable(name);
  for (const column of [...primaryKey, ...columns]) {
    const nullable = column.endsWith('?');
    table = table.addColumn(column.replace(/\?$/, ''), 'text', (col) => (nullable ? col : col.notNull()));
  }
  await table.addPrimaryKeyConstraint(`${name}_pk`, primaryKey as never).execute();
}
