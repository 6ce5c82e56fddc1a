import type { FastifyReply } from 'fastify';

/**
 * A signal aborted when the client goes away before its answer was sent (the connection closed
 * early), so long work on its behalf (a model generating) can stop.
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client went away'));
  });
  return controller.signal;
}
