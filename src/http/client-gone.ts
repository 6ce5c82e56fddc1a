import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A signal aborted when the client goes away before its answer was sent (the connection closed
 * early), so long work on its behalf (a model generating, git talking to a remote) can stop.
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  // Gone already (it left while the request waited its turn): no 'close' is coming any more.
  if (reply.raw.destroyed && !reply.raw.writableFinished) controller.abort(new Error('the client went away'));
  else
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) controller.abort(new Error('the client went away'));
    });
  return controller.signal;
}

/** The status logged for a request whose client went away before its answer (nginx's "client closed request"). */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * For an error handler: when the client is gone, whatever went wrong has no one to be told to.
 * Nothing is answered (the connection is closed); one info line with status 499 says so, in
 * place of the request line that a response never finished cannot get. Returns whether it was so.
 */
export function answeredNobody(request: FastifyRequest, reply: FastifyReply): boolean {
  if (!reply.raw.destroyed || reply.raw.writableFinished) return false;
  reply.code(CLIENT_CLOSED_REQUEST);
  request.log.info({ method: request.method, route: request.routeOptions.url, status: CLIENT_CLOSED_REQUEST }, 'the client went away before the answer');
  return true;
}
