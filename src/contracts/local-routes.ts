// What a route of the local API promises about who may call it and which budget it draws on.
// These rules belong to the route that answers (its Fastify `config`), never to a pattern on the
// raw URL: `/api/ai/%63omplete` and `/api/ai/complete` are one route with one rule.

/** The local API's rate limit budgets (requests per minute, for the server as a whole). */
export const LOCAL_LIMIT_CLASSES = ['aiComplete', 'default'] as const;
export type LocalLimitClass = (typeof LOCAL_LIMIT_CLASSES)[number];

/**
 * Who may call a route:
 * - `token`: `Authorization: Bearer <apiToken>` (the default);
 * - `ticket`: the token, or on a WebSocket upgrade only, a single-use ticket in `?ticket=`
 *   (a browser page cannot set headers on a WebSocket);
 * - `public`: no credentials (only for what holds no data, such as the editor page's assets).
 */
export type LocalRouteAccess = 'token' | 'ticket' | 'public';

export interface LocalRouteRules {
  /** The budget the route draws on; `default` when absent. */
  limit?: LocalLimitClass;
  /** `token` when absent. */
  access?: LocalRouteAccess;
  /** The route is a WebSocket: it is the only kind of route that accepts an upgrade. */
  websocket?: boolean;
}
