import type { FastifyRequest } from 'fastify';
import { LoomError } from '../core/errors.ts';

/**
 * Refuses (415) a request whose body is not sent as JSON, for routes of an app that parses other
 * types too (the hosted app takes forms) where only JSON means anything.
 *
 * @example
 * requireJsonBody(request, 'MCP messages are JSON.');
 */
export function requireJsonBody(request: FastifyRequest, why: string): void {
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') throw new LoomError('unsupported_media_type', why, 'Send Content-Type: application/json.');
}
