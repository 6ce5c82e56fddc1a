// The HandlerContext of one HTTP request, as a class. An object literal with a getter costs
// more than its few bytes: V8 builds it on a slow path, and in practice its allocation site ends
// up pretenured (made in old space); a context in old space that points at the request keeps the
// request's young objects alive through the remembered set until the next full GC, so every
// request's graph was promoted and scavenges grew several times slower. A class instance is made
// on the fast path, its getters live on the prototype, and what is lazy stays lazy.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiVersion } from '../../contracts/versioning.ts';
import type { Principal } from '../../core/identity/tokens.ts';
import { clientGone } from '../../http/client-gone.ts';
import type { HandlerContext } from '../handlers/index.ts';

/**
 * What a handler knows of the request it serves, read from the Fastify request when asked:
 * the client's address (which may take parsing X-Forwarded-For) and the abort signal are only
 * worked out for the handlers that use them.
 *
 * @example
 *   const output = await handler(input, new RequestContext(request, reply));
 */
export class RequestContext implements HandlerContext {
  readonly version: ApiVersion;
  readonly principal: Principal | undefined;
  readonly basicAuth: { username: string; password: string } | undefined;
  private clientSeen: HandlerContext['client'] | undefined;
  private gone: AbortSignal | undefined;

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {
    this.version = request.apiVersion;
    this.principal = request.principal;
    this.basicAuth = request.basicAuth;
  }

  get client(): HandlerContext['client'] {
    return (this.clientSeen ??= { ip: this.request.ip, userAgent: this.request.headers['user-agent'] });
  }

  get lastEventId(): string | undefined {
    const header = this.request.headers['last-event-id'];
    return typeof header === 'string' ? header : undefined;
  }

  /** Made on first use: most handlers never wait long enough to care. */
  get signal(): AbortSignal {
    return (this.gone ??= clientGone(this.reply));
  }
}
