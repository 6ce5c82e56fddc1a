// Webhooks of the desktop application's local server (Standard Webhooks).
//
//   const outbox = new WebhookOutbox(store.webhooks, clock);
//   const deliverer = new WebhookDeliverer({ repository: store.webhooks, endpoints: () => settings.webhooks, clock });
//   outbox.onEnqueue(() => deliverer.nudge());
//   bus.subscribeDurable(async (event) => void (await outbox.enqueue(event, settings.webhooks ?? []))); // before the ack
//   deliverer.start();                                                        // stop() on shutdown
//
// Decisions:
// - Events: an entry's `events` names event types; `"*"` means every event (endpoints.ts).
//   One delivery per URL per event; the first entry for a URL that subscribes signs it.
// - Secrets stay in the settings only. A delivery row keeps the URL; each attempt looks the
//   entry up in the current settings and signs with its secret then. An entry that left the
//   settings (or stopped subscribing) before delivery makes the delivery `abandoned`.
// - 410 Gone disables the URL (table webhook_endpoints_disabled, with a one-way fingerprint of
//   the secret). It is enabled again when the settings give the URL another secret (a new URL
//   is another endpoint anyway), or by `WebhookOutbox.enableEndpoint(url)`. Events meanwhile
//   are not queued for it; rows already queued end `disabled`.
// - Payload: `{type, timestamp, data, seq?}`, serialized once at enqueue; every attempt sends
//   the same bytes with the same webhook-id and a fresh webhook-timestamp and signature.
export { WebhookDeliverer, WEBHOOK_USER_AGENT, DEFAULT_WEBHOOK_TIMEOUT_MS, type WebhookDelivererOptions } from './delivery.ts';
export { displayUrl, endpointFor, subscribes, webhookEndpointProblem } from './endpoints.ts';
export { newMessageId, webhookPayload, WebhookOutbox, type EnqueuedDelivery, type ListDeliveriesOptions } from './outbox.ts';
export * from './records.ts';
export { backoffDelay, DEFAULT_RETRY_AFTER_CAP_MS, DEFAULT_RETRY_SCHEDULE_MS, nextDelay, parseRetryAfter } from './retry.ts';
export { decodeSecret, secretFingerprint, signWebhook, verifyWebhook, WebhookSecretError, type VerifyOptions, type WebhookHeaders } from './signing.ts';
