// The local API's per-route rules travel in each route's Fastify `config` and are read from
// the route that answered (request.routeOptions), after routing: never from the raw URL.
import type { FastifyRequest } from 'fastify';
import type { LocalRouteRules } from '../contracts/local-routes.ts';

declare module 'fastify' {
  interface FastifyContextConfig extends LocalRouteRules {}
}

/** The rules of the route that answers this request; a request no route answers gets the defaults. */
export function routeRules(request: FastifyRequest): Required<Omit<LocalRouteRules, 'websocket'>> & { websocket: boolean } {
  const config = (request.routeOptions.config ?? {}) as LocalRouteRules;
  return { limit: config.limit ?? 'default', access: config.access ?? 'token', websocket: config.websocket === true };
}
