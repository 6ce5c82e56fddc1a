// Standard Webhooks signatures (https://www.standardwebhooks.com/):
//   webhook-signature: v1,<base64 of HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>
// The key comes from the endpoint's secret:
//   - `whsec_<base64>`: the base64 part, decoded, is the key (the format Svix and the Standard
//     Webhooks libraries generate and expect);
//   - anything else: the secret's UTF-8 bytes are the key, so a hand-typed passphrase works too.
//     A receiver using a Standard Webhooks library must then give it the base64 of those bytes
//     (`whsec_` + base64(secret)), which names the same key.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A secret that cannot be used: empty, or `whsec_` followed by something that is not base64. */
export class WebhookSecretError extends Error {
  override name = 'WebhookSecretError';
}

/** The HMAC key a secret names (see the top of this file). Never puts the secret in a message. */
export function decodeSecret(secret: string): Buffer {
  if (typeof secret !== 'string' || secret.length === 0) throw new WebhookSecretError('the webhook secret is empty');
  if (!secret.startsWith(SECRET_PREFIX)) return Buffer.from(secret, 'utf8');
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(encoded) || encoded.replace(/=+$/, '').length % 4 === 1) {
    throw new WebhookSecretError(`a webhook secret starting with ${SECRET_PREFIX} must continue with base64`);
  }
  return Buffer.from(encoded, 'base64');
}

function toBytes(body: string | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function digest(key: Buffer, id: string, timestamp: number | string, body: string | Uint8Array): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(toBytes(body)).digest();
}

/**
 * The `webhook-signature` header value: `v1,<base64>`.
 * `timestamp` is the `webhook-timestamp` header value: integer seconds since the epoch.
 */
export function signWebhook(secret: string, id: string, timestamp: number | string, body: string | Uint8Array): string {
  if (typeof timestamp === 'number' && !Number.isSafeInteger(timestamp)) throw new RangeError('webhook-timestamp must be whole seconds');
  return `v1,${digest(decodeSecret(secret), id, timestamp, body).toString('base64')}`;
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

export interface VerifyOptions {
  /** Now, in epoch ms (default: Date.now()). */
  now?: number;
  /** How far webhook-timestamp may be from now, either way (default 300 s, as the spec suggests). */
  toleranceSeconds?: number;
}

/**
 * For receivers (and the tests): true when the headers carry a `v1` signature of the body made
 * with this secret, and the timestamp is within the tolerance. The signature header may list
 * several space-separated signatures (during a secret rotation); one match is enough. The
 * comparison is constant-time. Verify the raw body bytes, never a re-serialized JSON.
 */
export function verifyWebhook(secret: string, headers: WebhookHeaders, body: string | Uint8Array, options: VerifyOptions = {}): boolean {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures || !/^\d{1,15}$/.test(timestamp)) return false;
  const now = options.now ?? Date.now();
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(Math.floor(now / 1000) - Number(timestamp)) > tolerance) return false;
  let key: Buffer;
  try {
    key = decodeSecret(secret);
  } catch {
    return false;
  }
  const expected = digest(key, id, timestamp, body);
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * A one-way digest naming a secret without revealing it: what the database keeps about the
 * secret of an endpoint disabled by 410, so that a changed secret is noticed. It tells no more
 * than any one signature the endpoint has received.
 */
export function secretFingerprint(secret: string): string {
  let key: Buffer;
  try {
    key = decodeSecret(secret);
  } catch {
    key = Buffer.from(String(secret), 'utf8');
  }
  return createHmac('sha256', key).update('loom webhook secret fingerprint').digest('base64url').slice(0, 22);
}
