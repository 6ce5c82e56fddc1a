// Local API errors leave as {error: {code, message, retryAfter?}}: the interface's envelope,
// with codes in UPPER_SNAKE_CASE (RATE_LIMIT_EXCEEDED is the interface's own).
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES, type ErrorCode } from '../contracts/errors.ts';
import { GitConflictError } from '../core/git/index.ts';
import { describeError } from '../http/errors.ts';

/** The local code of a shared error code; rate_limited keeps the interface's name. */
export function localCode(code: string): string {
  return code === 'rate_limited' ? 'RATE_LIMIT_EXCEEDED' : code.toUpperCase();
}

export interface LocalErrorBody {
  error: { code: string; message: string; retryAfter?: number; hint?: string; details?: { field: string; message: string }[]; files?: string[] };
}

export function localErrorBody(code: ErrorCode | string, message: string, extra: Partial<LocalErrorBody['error']> = {}): LocalErrorBody {
  return { error: { code: localCode(code), message, ...extra } };
}

export function registerLocalErrors(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const { status, body, internal } = describeError(error);
    if (internal) request.log.error({ err: error }, 'unhandled error');
    const retryAfter = reply.getHeader('retry-after');
    const extra: Partial<LocalErrorBody['error']> = {};
    if (body.hint) extra.hint = body.hint;
    if (body.details) extra.details = body.details;
    if (retryAfter !== undefined) extra.retryAfter = Number(retryAfter);
    if (error instanceof GitConflictError) extra.files = error.files;
    reply.code(status).type('application/json; charset=utf-8').send(localErrorBody(body.error, body.message, extra));
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    reply.code(ERROR_CODES.not_found.status).send(localErrorBody('not_found', `No route ${request.method} ${path}.`));
  });
}
