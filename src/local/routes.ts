// Mounts every route of the local route table: its schemas (validated by the shared ajv of
// http/validation.ts; the answer serialised by its response schema), its rules in the route's
// `config` (read by the guard, the rate limit and the upgrade check after routing), and its
// handler. A WebSocket route answers a plain request with 426 UPGRADE_REQUIRED.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { localRoutes, type AnyLocalRoute, type LocalRoute, type LocalRouteRules } from '../contracts/local-routes.ts';
import { LoomError } from '../core/errors.ts';
import { answeredNobody, clientGone } from '../http/client-gone.ts';
import type { AcceptSocket } from './events-socket.ts';
import type { LocalHandlerContext, LocalHandlers } from './handlers/index.ts';
import { readCookie, sessionCookie, windowCookieName } from './window/sign-in.ts';

/** The WebSocket routes' handlers, by route id. */
export type LocalSocketHandlers = { [R in Extract<AnyLocalRoute, { websocket: true }> as R['id']]: AcceptSocket };

type AnyHandler = (input: unknown, context: LocalHandlerContext) => Promise<unknown>;

/**
 * Registers every route of the table on `app` (after the hooks that guard them).
 *
 * @example
 *   registerLocalRoutes(app, createLocalHandlers(services, parts), { openEventStream: events.accept, openTerminal: (socket, grant) => terminals.accept(socket, grant) }, () => port);
 */
export function registerLocalRoutes(app: FastifyInstance, handlers: LocalHandlers, sockets: LocalSocketHandlers, port: () => number): void {
  for (const route of localRoutes as readonly LocalRoute[]) {
    const { params, query, body } = route.request;
    const config: LocalRouteRules & { takesNoBody: boolean } = {
      limit: route.limit ?? 'default',
      access: route.access ?? 'token',
      websocket: route.websocket === true,
      // Read by the body parsers (http/validation.ts): an empty body of any type is no body.
      takesNoBody: body === undefined,
    };
    // Only the parts a route declares: Fastify warns about parts set to undefined.
    const schema = { ...(params && { params }), ...(query && { querystring: query }), ...(body && { body }) };
    if (route.websocket) {
      const accept = sockets[route.id as keyof LocalSocketHandlers];
      app.route({
        method: route.method,
        url: route.path,
        schema,
        config,
        wsHandler: (socket, request) => accept(socket, { grantedBy: request.grantedBy, session: readCookie(request.headers.cookie, windowCookieName(port())) }),
        handler: async (_request, reply) => {
          reply.header('upgrade', 'websocket');
          throw new LoomError('upgrade_required', `${route.path} is a WebSocket: connect with Upgrade: websocket.`, `See "${route.tag}" in docs/local-api.md.`);
        },
      });
      continue;
    }
    const handler = handlers[route.id as keyof LocalHandlers] as AnyHandler;
    app.route({
      method: route.method,
      url: route.path,
      schema: { ...schema, response: { [route.success.status]: route.success.schema } },
      config,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        let gone: AbortSignal | undefined;
        const context: LocalHandlerContext = {
          // Made on first use: most handlers never wait long enough to care.
          get signal() {
            return (gone ??= clientGone(reply));
          },
          cookie: {
            session: readCookie(request.headers.cookie, windowCookieName(port())),
            set: (id) => void reply.header('set-cookie', sessionCookie(port(), id)),
          },
        };
        const output = await handler({ params: request.params, query: request.query, body: request.body }, context);
        // Done, but for a client that has gone: there is no one to answer.
        if (answeredNobody(request, reply)) return reply;
        return output;
      },
    });
  }
}
