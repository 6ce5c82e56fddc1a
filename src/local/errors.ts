// Local API errors leave as {error: {code, message, retryAfter?}}: the interface's envelope,
// with codes in UPPER_SNAKE_CASE (RATE_LIMIT_EXCEEDED is the interface's own). Every way a
// request can fail — a route's error, no route, a wrong method, a URL the router cannot read,
// HTTP that never became a request — answers in it; a request whose client went away is
// answered nothing and logged with status 499.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, type ErrorCode } from '../contracts/errors.ts';
import { localCode, type LocalErrorBody } from '../contracts/local-resources.ts';
import { AgentCapacityError, RevertConflictError } from '../core/agents/errors.ts';
import { ComposerLimitError } from '../core/composer/service.ts';
import { GitConflictError } from '../core/git/index.ts';
import { ApplyRefused } from '../core/workspace/composer-edits.ts';
import { trackAllowedMethods } from '../http/allowed-methods.ts';
import { answeredNobody } from '../http/client-gone.ts';
import { describeError } from '../http/errors.ts';
import { rawAnswers, type RawAnswers } from '../http/raw-answers.ts';
import { requestPath } from '../http/request-framing.ts';

export { localCode };

export function localErrorBody(code: ErrorCode | string, message: string, extra: Partial<LocalErrorBody['error']> = {}): LocalErrorBody {
  return { error: { code: localCode(code), message, ...extra } };
}

/** Answers written straight to a socket (malformed HTTP, CONNECT, the connection cap), in the local envelope. */
export function localRawAnswers(): RawAnswers {
  return rawAnswers({ envelope: (code, message, hint) => localErrorBody(code, message, hint ? { hint } : {}) });
}

/**
 * Errors the router raises before any hook runs (a URL it cannot decode, an over-long one).
 * `onAnswer` lets the caller see the reply go (an upgrade's socket is closed after it).
 */
export function localFrameworkErrors(onAnswer: (request: FastifyRequest, reply: FastifyReply) => void) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    onAnswer(request, reply);
    return sendLocalError(reply, error);
  };
}

function sendLocalError(reply: FastifyReply, error: unknown): FastifyReply {
  const { status, body } = describeError(error);
  // A 6th agent task says when a slot is expected to free, like any other 429.
  if (error instanceof AgentCapacityError || error instanceof ComposerLimitError) reply.header('retry-after', String(error.retryAfter));
  const retryAfter = reply.getHeader('retry-after');
  const extra: Partial<LocalErrorBody['error']> = {};
  if (body.hint) extra.hint = body.hint;
  if (body.details) extra.details = body.details;
  if (retryAfter !== undefined) extra.retryAfter = Number(retryAfter);
  if (error instanceof GitConflictError || error instanceof RevertConflictError || error instanceof ApplyRefused) extra.files = error.files;
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(localErrorBody(body.error, body.message, extra));
}

/** Answers every failure in the local envelope: a route's error, no route (404), a wrong method (405, with Allow). */
export function registerLocalErrors(app: FastifyInstance): void {
  const allowedMethods = trackAllowedMethods(app);
  app.setErrorHandler((error, request, reply) => {
    if (answeredNobody(request, reply)) return;
    if (describeError(error).internal) request.log.error({ err: error }, 'unhandled error');
    sendLocalError(reply, error);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = requestPath(request.url);
    const allowed = allowedMethods(path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header('allow', allowed.join(', '));
      return reply
        .code(ERROR_CODES.method_not_allowed.status)
        .send(localErrorBody('method_not_allowed', `${request.method} is not allowed on ${path}.`, { hint: `Use ${allowed.join(' or ')}.` }));
    }
    return reply.code(ERROR_CODES.not_found.status).send(localErrorBody('not_found', `No route ${request.method} ${path}.`));
  });
}
