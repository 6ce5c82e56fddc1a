// The worker that sends queued deliveries. Each pass leases due rows (so that two workers, in
// this process or another, never send the same attempt at once), POSTs each one, and records
// the outcome:
//   2xx                          -> delivered
//   410 Gone                     -> disabled, and the endpoint is disabled until its entry in the
//                                   settings gets another secret or URL (or enableEndpoint)
//   anything else, a redirect (never followed), a timeout, a network error
//                                -> tried again per the schedule (retry.ts), later if Retry-After
//                                   asks for it; failed after the last attempt
// A process that dies mid-attempt leaves a lease that expires: the row is then due again, so a
// delivery is sent at least once (and, rarely, twice with the same webhook-id: receivers
// deduplicate on it).
import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../clock.ts';
import { endpointFor, webhookEndpointProblem } from './endpoints.ts';
import { isStillDisabled } from './outbox.ts';
import type { ClaimedDelivery, DeliveryOutcome, WebhookEndpoint, WebhookRepository } from './records.ts';
import { backoffDelay, DEFAULT_RETRY_AFTER_CAP_MS, DEFAULT_RETRY_SCHEDULE_MS, nextDelay, parseRetryAfter } from './retry.ts';
import { secretFingerprint, signWebhook } from './signing.ts';

export const WEBHOOK_USER_AGENT = 'Loom-Webhooks/1';
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;

export interface WebhookDelivererOptions {
  repository: WebhookRepository;
  /** The webhook entries of the current settings; read again for every batch. */
  endpoints: () => readonly WebhookEndpoint[] | Promise<readonly WebhookEndpoint[]>;
  clock?: Clock;
  fetch?: typeof globalThis.fetch;
  /** [0, 1), for the jitter. */
  random?: () => number;
  /** Per request, in real milliseconds (default 15 s). */
  timeoutMs?: number;
  /**
   * How long a claimed row is reserved, on `clock` (default: max(60 s, 2 × timeout + 30 s)).
   * A row whose attempt could not end within the lease is given back unattempted.
   */
  leaseMs?: number;
  /** Delays after failed attempts 1, 2, ...; its length + 1 attempts in all. */
  schedule?: readonly number[];
  /** The longest Retry-After honoured (default 24 h). */
  retryAfterCapMs?: number;
  /** Rows leased and sent concurrently per pass (default 8). */
  batchSize?: number;
  /** The longest the loop sleeps before looking again, in real ms (default 5 s). */
  pollIntervalMs?: number;
  /** Failures of the worker itself (the database); each attempt's own failure goes to the log. */
  onError?: (error: unknown) => void;
}

export class WebhookDeliverer {
  private readonly repository: WebhookRepository;
  private readonly clock: Clock;
  private readonly fetch: typeof globalThis.fetch;
  private readonly random: () => number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly schedule: readonly number[];
  private readonly retryAfterCapMs: number;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  private again = false;

  constructor(private readonly options: WebhookDelivererOptions) {
    this.repository = options.repository;
    this.clock = options.clock ?? systemClock;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.random = options.random ?? Math.random;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.leaseMs = options.leaseMs ?? Math.max(60_000, 2 * this.timeoutMs + 30_000);
    this.schedule = options.schedule ?? DEFAULT_RETRY_SCHEDULE_MS;
    this.retryAfterCapMs = options.retryAfterCapMs ?? DEFAULT_RETRY_AFTER_CAP_MS;
    this.batchSize = options.batchSize ?? 8;
    this.pollIntervalMs = options.pollIntervalMs ?? 5_000;
  }

  /** Starts the loop: a pass now, then whenever a row is due, at least every poll interval. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.wake(0);
  }

  /** Stops the loop; resolves once the pass under way (bounded by the timeout) has ended. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
  }

  /** Something was enqueued: look now rather than at the next poll. */
  nudge(): void {
    if (!this.running) return;
    if (this.current) this.again = true;
    else this.wake(0);
  }

  /**
   * One pass: leases and attempts every delivery due now, batch after batch, until none is
   * left. Returns how many deliveries were handled. Tests drive the worker with it.
   */
  async runDue(): Promise<number> {
    let handled = 0;
    for (;;) {
      const now = this.clock.now();
      const leaseUntil = now + this.leaseMs;
      const claimed = await this.repository.claimDue({ now, leaseUntil, limit: this.batchSize, claimToken: randomUUID() });
      if (claimed.length === 0) return handled;
      const endpoints = await this.options.endpoints();
      // One URL's deliveries go one after the other (a 410 stops the rest; a receiver never
      // gets a burst of parallel requests from one pass); different URLs go in parallel.
      const byUrl = new Map<string, ClaimedDelivery[]>();
      for (const delivery of claimed) byUrl.set(delivery.url, [...(byUrl.get(delivery.url) ?? []), delivery]);
      const results = await Promise.allSettled(
        [...byUrl.values()].map(async (group) => {
          for (const delivery of group) {
            // An attempt starts only if it can end within the lease; otherwise another worker
            // could take the row over mid-request. The row goes back, due, unattempted.
            if (this.clock.now() + this.timeoutMs > leaseUntil) await this.repository.release(delivery.id, delivery.claimToken);
            else await this.attempt(delivery, endpoints);
          }
        }),
      );
      handled += claimed.length;
      const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failure) throw failure.reason;
      if (claimed.length < this.batchSize) return handled;
    }
  }

  private wake(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delay);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (!this.running || this.current) return;
    let delay = this.pollIntervalMs;
    this.current = (async () => {
      try {
        do {
          this.again = false;
          await this.runDue();
        } while (this.again && this.running);
        const next = await this.repository.nextDueAt();
        if (next !== null) delay = Math.min(delay, Math.max(0, next - this.clock.now()));
      } catch (error) {
        this.options.onError?.(error);
      }
    })();
    await this.current;
    this.current = undefined;
    if (this.running) this.wake(this.again ? 0 : delay);
  }

  private async attempt(delivery: ClaimedDelivery, endpoints: readonly WebhookEndpoint[]): Promise<void> {
    const { id, claimToken } = delivery;
    const notSent = delivery.attempts - 1;
    const endpoint = endpointFor(endpoints, delivery.url, delivery.eventType);
    if (!endpoint) {
      const lastError = endpoints.some((e) => e.url === delivery.url)
        ? `the endpoint no longer subscribes to ${delivery.eventType} in the settings`
        : 'the endpoint was removed from the settings';
      await this.repository.complete(id, claimToken, { status: 'abandoned', lastError, attempts: notSent });
      return;
    }
    if (await isStillDisabled(this.repository, delivery.url, endpoint.secret)) {
      await this.repository.complete(id, claimToken, {
        status: 'disabled',
        lastError: 'the endpoint answered 410 Gone; change its URL or secret in the settings to enable it again',
        attempts: notSent,
      });
      return;
    }
    const problem = webhookEndpointProblem(endpoint);
    if (problem) {
      await this.repository.complete(id, claimToken, this.failure(delivery, null, `the endpoint's settings are not usable: ${problem}`, null));
      return;
    }

    const timestamp = Math.floor(this.clock.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(endpoint.secret, id, timestamp, delivery.payload),
    };
    // fetch refuses URLs with credentials: `https://user:pass@host/` becomes Basic auth.
    const target = new URL(delivery.url);
    if (target.username || target.password) {
      const credentials = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
      headers.authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
      target.username = '';
      target.password = '';
    }
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(`timed out after ${this.timeoutMs} ms`);
        reject(error);
        controller.abort(error);
      }, this.timeoutMs);
    });
    let response: Response | undefined;
    let outcome: DeliveryOutcome;
    try {
      // The race also ends a fetch that ignores its signal.
      response = await Promise.race([
        this.fetch(target, { method: 'POST', headers, body: delivery.payload, redirect: 'manual', signal: controller.signal }),
        timeout,
      ]);
    } catch (error) {
      response = undefined;
      outcome = this.failure(delivery, null, controller.signal.aborted ? `timed out after ${this.timeoutMs} ms` : requestError(error), null);
    } finally {
      clearTimeout(timer);
    }
    if (response) {
      // Only the status line and headers matter; the body is dropped unread.
      response.body?.cancel().catch(() => {});
      outcome = await this.outcomeOf(delivery, endpoint, response.status, response.headers.get('retry-after'), response.headers.get('location'));
    }
    await this.repository.complete(id, claimToken, outcome!);
  }

  private async outcomeOf(
    delivery: ClaimedDelivery,
    endpoint: WebhookEndpoint,
    status: number,
    retryAfter: string | null,
    location: string | null,
  ): Promise<DeliveryOutcome> {
    const now = this.clock.now();
    if (status >= 200 && status < 300) return { status: 'delivered', lastStatus: status, deliveredAt: new Date(now).toISOString() };
    if (status === 410) {
      await this.repository.disableEndpoint({
        url: delivery.url,
        secretFingerprint: secretFingerprint(endpoint.secret),
        disabledAt: new Date(now).toISOString(),
        reason: `410 Gone in answer to ${delivery.id}`,
      });
      return { status: 'disabled', lastStatus: 410, lastError: 'the endpoint answered 410 Gone: it is disabled' };
    }
    // `redirect: 'manual'` gives the 3xx itself (or, in a browser-like fetch, an opaque status 0).
    let error = `HTTP ${status}`;
    if ((status >= 300 && status < 400) || status === 0) error = `redirect${location ? ` to ${location.slice(0, 200)}` : ''} not followed`;
    return this.failure(delivery, status || null, error, parseRetryAfter(retryAfter, now));
  }

  private failure(delivery: ClaimedDelivery, lastStatus: number | null, lastError: string, retryAfter: number | null): DeliveryOutcome {
    const delay = backoffDelay(delivery.attempts, this.schedule, this.random);
    if (delay === null) return { status: 'failed', lastStatus, lastError: `${lastError}; no attempts left` };
    return { status: 'pending', lastStatus, lastError, nextAttemptAt: this.clock.now() + nextDelay(delay, retryAfter, this.retryAfterCapMs) };
  }
}

/** A short reason for a request that got no response; never the request itself. */
function requestError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : (error as Error)?.message;
  return `request failed: ${String(detail ?? error).slice(0, 200)}`;
}
