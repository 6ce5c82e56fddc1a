// What webhook delivery keeps, and the repository (implemented in store/) that keeps it.
// Times the worker compares (next attempt, lease) are integers: milliseconds since the epoch.
// Times shown to people (created, delivered, disabled) are ISO 8601 text in UTC. The delivery
// statuses and the log entry the local API shows are the API's own schemas (contracts/).
import type { DeliveryLogEntry, DeliveryStatus } from '../../contracts/local-resources.ts';

export { DELIVERY_STATUSES, type DeliveryLogEntry, type DeliveryStatus } from '../../contracts/local-resources.ts';

/** One entry of the `webhooks` array in the application's advanced settings. */
export interface WebhookEndpoint {
  url: string;
  /** Event names (`file:save`, `agent:complete`, ...), or `"*"` for every event. */
  events: readonly string[];
  /** `whsec_<base64>` (the base64 part is the key) or any other non-empty string (its UTF-8 bytes are the key). */
  secret: string;
}

/** An event as the event bus emits it (`LoomEvent` fits). */
export interface WebhookEvent {
  type: string;
  /** ISO 8601; the time the event happened. Defaults to now. */
  time?: string;
  data: unknown;
  /** The event stream's sequence number, passed through when present. */
  seq?: number;
}

/** A delivery as the outbox writes it. No secret, no signature: those are made per attempt. */
export interface NewDeliveryRecord {
  /** `msg_<ulid>`: the `webhook-id` header, the same on every attempt. */
  id: string;
  url: string;
  eventType: string;
  /** The exact request body, serialized once so every attempt sends (and signs) the same bytes. */
  payload: string;
  /** ISO 8601. */
  createdAt: string;
  /** Epoch ms. */
  nextAttemptAt: number;
}

/** A delivery this worker holds a lease on. */
export interface ClaimedDelivery {
  id: string;
  url: string;
  eventType: string;
  payload: string;
  /** Attempts started so far, this one included. */
  attempts: number;
  createdAt: string;
  /** Proves the lease; a completion with another token (an expired lease) is refused. */
  claimToken: string;
}

/** How an attempt ended. */
export type DeliveryOutcome =
  | { status: 'delivered'; lastStatus: number; deliveredAt: string }
  | { status: 'pending'; nextAttemptAt: number; lastStatus: number | null; lastError: string | null }
  | {
      status: 'failed' | 'disabled' | 'abandoned';
      /** Left as it was when undefined (an attempt that ended before any request). */
      lastStatus?: number | null;
      lastError: string | null;
      /** Overrides the attempt count (an attempt that sent nothing does not count). */
      attempts?: number;
    };

/** An endpoint that answered 410 Gone, with a fingerprint of the secret it had then. */
export interface DisabledEndpointRecord {
  url: string;
  /** One-way digest of the secret (see `secretFingerprint`), so that a new secret re-enables it. */
  secretFingerprint: string;
  disabledAt: string;
  reason: string;
}

export interface WebhookRepository {
  /** Inserts the deliveries in one transaction; resolves once they are committed. */
  enqueue(deliveries: NewDeliveryRecord[]): Promise<void>;
  /**
   * Atomically leases up to `limit` pending deliveries that are due (`next_attempt_at <= now`)
   * and not leased (or whose lease expired), counting one more attempt on each. Two workers
   * never get the same delivery while its lease runs.
   */
  claimDue(options: { now: number; leaseUntil: number; limit: number; claimToken: string }): Promise<ClaimedDelivery[]>;
  /** Gives a leased row back unattempted: the lease is dropped and the attempt not counted. */
  release(id: string, claimToken: string): Promise<boolean>;
  /** Records an attempt's end and drops the lease; false when the lease was lost meanwhile. */
  complete(id: string, claimToken: string, outcome: DeliveryOutcome): Promise<boolean>;
  /** The earliest time (epoch ms) a pending delivery becomes claimable, or null when none is pending. */
  nextDueAt(): Promise<number | null>;
  /** Newest first; `before` is a delivery id (not_found when unknown). */
  list(options: { limit: number; before?: string; status?: DeliveryStatus }): Promise<DeliveryLogEntry[]>;
  /** Deletes finished (not pending) deliveries created before the time; returns how many. */
  prune(createdBefore: string): Promise<number>;
  getDisabledEndpoint(url: string): Promise<DisabledEndpointRecord | undefined>;
  /** Records (or replaces) the endpoint as disabled. */
  disableEndpoint(record: DisabledEndpointRecord): Promise<void>;
  /** Forgets that the endpoint was disabled; false when it was not. */
  enableEndpoint(url: string): Promise<boolean>;
  listDisabledEndpoints(): Promise<DisabledEndpointRecord[]>;
}
