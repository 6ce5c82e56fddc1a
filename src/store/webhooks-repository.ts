// The webhook outbox over Kysely (SQLite or PostgreSQL).
import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely';
import { LoomError } from '../core/errors.ts';
import type {
  ClaimedDelivery,
  DeliveryLogEntry,
  DeliveryOutcome,
  DeliveryStatus,
  DisabledEndpointRecord,
  NewDeliveryRecord,
  WebhookRepository,
} from '../core/webhooks/records.ts';
import { insertBatches } from './batches.ts';
import { reach } from './failures.ts';
import type { Database, Dialect, WebhookDeliveryTable, WebhookEndpointDisabledTable } from './schema.ts';

type Db = Kysely<Database>;
type Deliveries = ExpressionBuilder<Database, 'webhook_deliveries'>;

/** Pending, due, and not leased (or its lease expired). */
function claimable(now: number) {
  return (eb: Deliveries) =>
    eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', now), eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)])]);
}

function toEntry(row: Selectable<WebhookDeliveryTable>): DeliveryLogEntry {
  return {
    id: row.id,
    event: row.event_type,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    nextAttemptAt: row.status === 'pending' ? new Date(Number(row.next_attempt_at)).toISOString() : null,
  };
}

function toDisabled(row: Selectable<WebhookEndpointDisabledTable>): DisabledEndpointRecord {
  return { url: row.url, secretFingerprint: row.secret_fingerprint, disabledAt: row.disabled_at, reason: row.reason };
}

export class SqlWebhookRepository implements WebhookRepository {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  async enqueue(deliveries: NewDeliveryRecord[]): Promise<void> {
    if (deliveries.length === 0) return;
    const rows = deliveries.map((d) => ({
      id: d.id,
      url: d.url,
      event_type: d.eventType,
      payload: d.payload,
      status: 'pending' as const,
      attempts: 0,
      next_attempt_at: d.nextAttemptAt,
      claimed_until: null,
      claim_token: null,
      last_status: null,
      last_error: null,
      created_at: d.createdAt,
      delivered_at: null,
    }));
    // All rows or none, committed (and, on SQLite, fsynced) before it returns: one statement,
    // or one transaction of as many as the database's bound-value limit needs.
    const batches = insertBatches(rows, this.dialect);
    await reach(async () => {
      if (batches.length === 1) await this.db.insertInto('webhook_deliveries').values(batches[0]!).execute();
      else
        await this.db.transaction().execute(async (trx) => {
          for (const batch of batches) await trx.insertInto('webhook_deliveries').values(batch).execute();
        });
    });
  }

  async claimDue(options: { now: number; leaseUntil: number; limit: number; claimToken: string }): Promise<ClaimedDelivery[]> {
    const { now, leaseUntil, limit, claimToken } = options;
    let candidates = this.db.selectFrom('webhook_deliveries').select('id').where(claimable(now)).orderBy('next_attempt_at').orderBy('seq').limit(limit);
    // PostgreSQL: concurrent workers skip each other's candidates instead of queueing on them.
    // SQLite has one writer at a time, so the statement is atomic there as it is.
    if (this.dialect === 'postgres') candidates = candidates.forUpdate().skipLocked();
    // The outer condition is checked again on the row as it is when locked (PostgreSQL
    // re-evaluates it after a concurrent update), so a row is never leased twice.
    const rows = await reach(() =>
      this.db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ attempts: eb('attempts', '+', 1), claimed_until: leaseUntil, claim_token: claimToken }))
        .where('id', 'in', candidates)
        .where(claimable(now))
        .returning(['seq', 'id', 'url', 'event_type', 'payload', 'attempts', 'created_at', 'next_attempt_at'])
        .execute(),
    );
    return rows
      .sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || Number(a.seq) - Number(b.seq))
      .map((row) => ({
        id: row.id,
        url: row.url,
        eventType: row.event_type,
        payload: row.payload,
        attempts: row.attempts,
        createdAt: row.created_at,
        claimToken,
      }));
  }

  async release(id: string, claimToken: string): Promise<boolean> {
    const result = await reach(() =>
      this.db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ claimed_until: null, claim_token: null, attempts: eb('attempts', '-', 1) }))
        .where('id', '=', id)
        .where('claim_token', '=', claimToken)
        .where('status', '=', 'pending')
        .executeTakeFirst(),
    );
    return Number(result.numUpdatedRows) === 1;
  }

  async complete(id: string, claimToken: string, outcome: DeliveryOutcome): Promise<boolean> {
    const released = { claimed_until: null, claim_token: null, status: outcome.status };
    let values: Record<string, unknown>;
    switch (outcome.status) {
      case 'delivered':
        values = { ...released, last_status: outcome.lastStatus, last_error: null, delivered_at: outcome.deliveredAt };
        break;
      case 'pending':
        values = { ...released, last_status: outcome.lastStatus, last_error: outcome.lastError, next_attempt_at: outcome.nextAttemptAt };
        break;
      default:
        values = { ...released, last_error: outcome.lastError };
        if (outcome.lastStatus !== undefined) values.last_status = outcome.lastStatus;
        if (outcome.attempts !== undefined) values.attempts = outcome.attempts;
    }
    const result = await reach(() =>
      this.db
        .updateTable('webhook_deliveries')
        .set(values)
        .where('id', '=', id)
        .where('claim_token', '=', claimToken)
        .where('status', '=', 'pending')
        .executeTakeFirst(),
    );
    return Number(result.numUpdatedRows) === 1;
  }

  async nextDueAt(): Promise<number | null> {
    // A leased row's lease always ends after its due time, so coalesce picks the later of the two.
    const row = await reach(() =>
      this.db
        .selectFrom('webhook_deliveries')
        .select(sql<number | string | null>`min(coalesce(claimed_until, next_attempt_at))`.as('due'))
        .where('status', '=', 'pending')
        .executeTakeFirst(),
    );
    return row?.due === null || row?.due === undefined ? null : Number(row.due);
  }

  async list(options: { limit: number; before?: string; status?: DeliveryStatus }): Promise<DeliveryLogEntry[]> {
    let query = this.db.selectFrom('webhook_deliveries').selectAll().orderBy('seq', 'desc').limit(options.limit);
    if (options.status) query = query.where('status', '=', options.status);
    if (options.before !== undefined) {
      const before = options.before;
      const cursor = await reach(() => this.db.selectFrom('webhook_deliveries').select('seq').where('id', '=', before).executeTakeFirst());
      if (!cursor) throw new LoomError('not_found', `No webhook delivery has the id ${before}.`);
      query = query.where('seq', '<', cursor.seq);
    }
    return (await reach(() => query.execute())).map(toEntry);
  }

  async prune(createdBefore: string): Promise<number> {
    const result = await reach(() =>
      this.db.deleteFrom('webhook_deliveries').where('status', '!=', 'pending').where('created_at', '<', createdBefore).executeTakeFirst(),
    );
    return Number(result.numDeletedRows);
  }

  async getDisabledEndpoint(url: string): Promise<DisabledEndpointRecord | undefined> {
    const row = await reach(() => this.db.selectFrom('webhook_endpoints_disabled').selectAll().where('url', '=', url).executeTakeFirst());
    return row && toDisabled(row);
  }

  async disableEndpoint(record: DisabledEndpointRecord): Promise<void> {
    const values = { secret_fingerprint: record.secretFingerprint, disabled_at: record.disabledAt, reason: record.reason };
    await reach(() =>
      this.db
        .insertInto('webhook_endpoints_disabled')
        .values({ url: record.url, ...values })
        .onConflict((oc) => oc.column('url').doUpdateSet(values))
        .execute(),
    );
  }

  async enableEndpoint(url: string): Promise<boolean> {
    const result = await reach(() => this.db.deleteFrom('webhook_endpoints_disabled').where('url', '=', url).executeTakeFirst());
    return Number(result.numDeletedRows) > 0;
  }

  async listDisabledEndpoints(): Promise<DisabledEndpointRecord[]> {
    return (await reach(() => this.db.selectFrom('webhook_endpoints_disabled').selectAll().orderBy('disabled_at').orderBy('url').execute())).map(toDisabled);
  }
}
