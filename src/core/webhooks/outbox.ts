// The durable outbox: an event becomes one delivery row per subscribed endpoint, committed
// before `enqueue` resolves, so an event acknowledged after `enqueue` is delivered at least once
// even if the process stops right after. Rows keep the endpoint's URL, never its secret: the
// secret stays in the settings and is read again at each attempt.
import { randomBytes } from 'node:crypto';
import type { DeliveriesQuery } from '../../contracts/local-resources.ts';
import { systemClock, type Clock } from '../clock.ts';
import { LoomError } from '../errors.ts';
import { displayUrl, subscribes, webhookEndpointProblem } from './endpoints.ts';
import {
  DELIVERY_STATUSES,
  type DeliveryLogEntry,
  type NewDeliveryRecord,
  type WebhookEndpoint,
  type WebhookEvent,
  type WebhookRepository,
} from './records.ts';
import { secretFingerprint } from './signing.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `msg_` + a ULID (48-bit time in ms, 80 random bits; Crockford base32): unique and time-sortable. */
export function newMessageId(now: number): string {
  let time = '';
  let t = Math.max(0, Math.floor(now));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let rest = '';
  for (let i = 0; i < 16; i++) {
    rest = CROCKFORD[Number(bits & 31n)]! + rest;
    bits >>= 5n;
  }
  return `msg_${time}${rest}`;
}

/**
 * The request body, in the shape Standard Webhooks recommends:
 * `{"type": "git:commit", "timestamp": "<ISO 8601>", "data": {...}, "seq": 42}`
 * (`seq`, the event stream's sequence number, only when the event has one).
 */
export function webhookPayload(event: WebhookEvent, now: number): string {
  const body: Record<string, unknown> = { type: event.type, timestamp: event.time ?? new Date(now).toISOString(), data: event.data ?? null };
  if (event.seq !== undefined) body.seq = event.seq;
  return JSON.stringify(body);
}

export interface EnqueuedDelivery {
  id: string;
  url: string;
}

/** What the delivery log is filtered by: the local API's query (limit 1 to 500, 50 by default; before a delivery id; a status). */
export type ListDeliveriesOptions = DeliveriesQuery;

export class WebhookOutbox {
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly repository: WebhookRepository,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * Queues the event for every usable endpoint that subscribes to its type (see endpoints.ts),
   * once per URL, skipping endpoints disabled by a 410 (unless their secret changed since,
   * which re-enables them). Resolves once the rows are committed; rejects (store_unavailable)
   * when nothing could be written, in which case the event must not be acknowledged.
   */
  async enqueue(event: WebhookEvent, endpoints: readonly WebhookEndpoint[]): Promise<EnqueuedDelivery[]> {
    if (typeof event.type !== 'string' || event.type.length === 0) throw new TypeError('a webhook event needs a type');
    const now = this.clock.now();
    const byUrl = new Map<string, WebhookEndpoint>();
    for (const endpoint of endpoints) {
      if (byUrl.has(endpoint.url) || webhookEndpointProblem(endpoint) !== null || !subscribes(endpoint, event.type)) continue;
      byUrl.set(endpoint.url, endpoint);
    }
    const records: NewDeliveryRecord[] = [];
    const payload = webhookPayload(event, now);
    const createdAt = new Date(now).toISOString();
    for (const [url, endpoint] of byUrl) {
      if (await this.stillDisabled(url, endpoint.secret)) continue;
      records.push({ id: newMessageId(now), url, eventType: event.type, payload, createdAt, nextAttemptAt: now });
    }
    if (records.length === 0) return [];
    await this.repository.enqueue(records);
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A nudge is a hint; the worker polls anyway.
      }
    }
    return records.map(({ id, url }) => ({ id, url }));
  }

  /** Called after each enqueue that wrote rows (the deliverer's `nudge`). */
  onEnqueue(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The delivery log, newest first: no secret, no signature, passwords in URLs hidden. */
  async listDeliveries(options: ListDeliveriesOptions = {}): Promise<DeliveryLogEntry[]> {
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new LoomError('validation_error', 'limit must be an integer from 1 to 500.');
    if (options.status !== undefined && !DELIVERY_STATUSES.includes(options.status)) {
      throw new LoomError('validation_error', `status must be one of ${DELIVERY_STATUSES.join(', ')}.`);
    }
    const entries = await this.repository.list({ limit, before: options.before, status: options.status });
    return entries.map((entry) => ({ ...entry, url: displayUrl(entry.url) }));
  }

  /** Endpoints disabled by a 410 and not re-enabled since. */
  async listDisabledEndpoints(): Promise<{ url: string; disabledAt: string; reason: string }[]> {
    return (await this.repository.listDisabledEndpoints()).map((r) => ({ url: displayUrl(r.url), disabledAt: r.disabledAt, reason: r.reason }));
  }

  /** Re-enables an endpoint disabled by a 410 without changing its settings. */
  enableEndpoint(url: string): Promise<boolean> {
    return this.repository.enableEndpoint(url);
  }

  /** Deletes finished deliveries older than `maxAgeMs`; returns how many. */
  prune(maxAgeMs: number): Promise<number> {
    return this.repository.prune(new Date(this.clock.now() - maxAgeMs).toISOString());
  }

  private async stillDisabled(url: string, secret: string): Promise<boolean> {
    return isStillDisabled(this.repository, url, secret);
  }
}

/**
 * Whether the endpoint is disabled by a 410 received while it had this secret. A different
 * secret in the settings now means the entry was changed: the endpoint is enabled again.
 */
export async function isStillDisabled(repository: WebhookRepository, url: string, secret: string): Promise<boolean> {
  const disabled = await repository.getDisabledEndpoint(url);
  if (!disabled) return false;
  if (disabled.secretFingerprint === secretFingerprint(secret)) return true;
  await repository.enableEndpoint(url);
  return false;
}
