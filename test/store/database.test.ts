// Opening the database on PostgreSQL: what Loom's start looks at in a database it shares.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { Kysely } from 'kysely';
import pg from 'pg';
import { OwnSchemaPostgresDialect } from '../../src/store/own-schema-dialect.ts';
import { postgresUrl } from '../support/services.ts';
import { openTestStore, tempDataDir } from '../support/store.ts';

test('PostgreSQL: migrating looks at its own schema only, so schemas others drop meanwhile do not fail the start', { timeout: 120_000 }, async (t) => {
  const first = await postgresUrl(t);
  if (!first) return;
  // Another program sharing the database, making and dropping schemas with tables as fast as it can
  // (as the tests themselves do, each in its own schema).
  const shared = new URL(first);
  shared.search = '';
  const other = new pg.Client({ connectionString: shared.toString() });
  await other.connect();
  t.after(() => other.end());
  let churning = true;
  let churned = 0;
  const churn = (async () => {
    while (churning) {
      const schema = `loom_churn_${randomBytes(6).toString('hex')}`;
      await other.query(`create schema ${schema}; create table ${schema}.t (id serial primary key, v text)`);
      await other.query(`drop schema ${schema} cascade`);
      churned++;
    }
  })();
  try {
    for (let round = 0; round < 15; round++) {
      const databaseUrl = round === 0 ? first : await postgresUrl(t);
      const store = await openTestStore(t, { dataDir: tempDataDir(t), databaseUrl: databaseUrl! });
      await store.close();
    }
  } finally {
    churning = false;
    await churn;
  }
  assert.ok(churned > 0, 'the other program made and dropped schemas meanwhile');
});

test('PostgreSQL: the catalog as Loom sees it holds its own schema and tables, not those of other schemas', async (t) => {
  const mine = await postgresUrl(t);
  const theirs = await postgresUrl(t);
  if (!mine || !theirs) return;
  await (await openTestStore(t, { dataDir: tempDataDir(t), databaseUrl: theirs })).close();
  await (await openTestStore(t, { dataDir: tempDataDir(t), databaseUrl: mine })).close();
  const pool = new pg.Pool({ connectionString: mine, max: 1 });
  const db = new Kysely<unknown>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
  t.after(() => db.destroy());
  const schema = new URL(mine).searchParams.get('options')!.split('=')[1]!;
  assert.deepEqual(await db.introspection.getSchemas(), [{ name: schema }]);
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  assert.ok(tables.some((table) => table.name === 'kysely_migration'));
  assert.ok(tables.some((table) => table.name === 'users'));
  assert.deepEqual(new Set(tables.map((table) => table.schema)), new Set([schema]));
  assert.ok(!(await db.introspection.getTables()).some((table) => table.name.startsWith('kysely_')), 'bookkeeping tables only when asked for');
  const users = tables.find((table) => table.name === 'users')!;
  assert.ok(users.columns.length > 0 && users.columns.every((column) => column.dataType));
});
