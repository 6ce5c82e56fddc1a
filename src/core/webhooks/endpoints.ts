// Which configured endpoints want which events.
//
// An entry's `events` lists event names (`file:open`, `file:save`, `ai:complete`, `agent:start`,
// `agent:complete`, `git:commit`), or `"*"`: every event, present and future (the settings
// schema in local/settings.ts accepts the same). An entry whose `events` is empty receives
// nothing.
//
// Endpoints are identified by their URL. When several entries share a URL, the first entry that
// subscribes to an event is the one used (its secret signs), and the event is sent once.
import { decodeSecret } from './signing.ts';
import type { WebhookEndpoint } from './records.ts';

export function subscribes(endpoint: WebhookEndpoint, eventType: string): boolean {
  return endpoint.events.some((name) => name === eventType || name === '*');
}

/** Why an entry cannot be used, or null when it can. Entries with a problem receive nothing. */
export function webhookEndpointProblem(endpoint: WebhookEndpoint): string | null {
  let url: URL;
  try {
    url = new URL(endpoint.url);
  } catch {
    return 'url is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must be http or https';
  if (!Array.isArray(endpoint.events) || endpoint.events.some((e) => typeof e !== 'string')) return 'events must be an array of event names';
  try {
    decodeSecret(endpoint.secret);
  } catch (error) {
    return (error as Error).message;
  }
  return null;
}

/**
 * The entry that receives events of this type at this URL, if the settings still have one
 * (a usable entry first; else an unusable one, so that the caller can say what is wrong with it).
 */
export function endpointFor(endpoints: readonly WebhookEndpoint[], url: string, eventType: string): WebhookEndpoint | undefined {
  const candidates = endpoints.filter((e) => e.url === url && Array.isArray(e.events) && subscribes(e, eventType));
  return candidates.find((e) => webhookEndpointProblem(e) === null) ?? candidates[0];
}

/** The URL with any password in it hidden, for logs and the delivery log. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
