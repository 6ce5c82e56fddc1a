// When to try again. Attempt 1 is immediate; after failed attempt n the next one waits
// schedule[n-1], stretched or shrunk by up to ±20 % at random so that many deliveries failing
// together do not all come back together. After the last entry, the delivery has failed.
// The defaults are the ones Standard Webhooks senders (Svix) use: 8 attempts over about 33 h.

export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000, // 5 s
  5 * 60_000, // 5 min
  30 * 60_000, // 30 min
  2 * 3_600_000, // 2 h
  5 * 3_600_000, // 5 h
  10 * 3_600_000, // 10 h
  10 * 3_600_000, // 10 h
];

export const JITTER = 0.2;

/** The longest Retry-After honoured: a receiver cannot park a delivery for longer than this. */
export const DEFAULT_RETRY_AFTER_CAP_MS = 24 * 3_600_000;

/**
 * The delay before the attempt after `attempts` failed ones, or null when none is left.
 * `random` returns a number in [0, 1), like Math.random.
 */
export function backoffDelay(attempts: number, schedule: readonly number[], random: () => number): number | null {
  const base = schedule[attempts - 1];
  if (base === undefined) return null;
  const factor = 1 - JITTER + 2 * JITTER * Math.min(Math.max(random(), 0), 1);
  return Math.round(base * factor);
}

/**
 * A Retry-After header value (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) as a delay in
 * ms from `now`, or null when absent or unreadable. A date in the past is a delay of 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return null;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * The delay before the next attempt: the schedule's, or the receiver's Retry-After when it asks
 * for longer (never past `cap`). Retry-After never shortens the schedule, nor adds attempts.
 */
export function nextDelay(scheduled: number, retryAfter: number | null, cap: number): number {
  if (retryAfter === null || retryAfter <= scheduled) return scheduled;
  return Math.max(scheduled, Math.min(retryAfter, cap));
}
