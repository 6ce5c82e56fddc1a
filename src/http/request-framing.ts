// What HTTP itself requires of a request (RFC 9112 §3.2), checked before anything else reads it:
// one Host header, present on HTTP/1.1 (with two, a proxy and Loom could disagree on which site
// is asked), an absolute-form target naming the same authority as Host, and no Expect that
// cannot be met. Both servers run it as a hook, so the refusal leaves in their own envelope.
import type { Server } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LoomError } from '../core/errors.ts';

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i;
const SLASH = 0x2f;

/** Throws the 400 or 417 a request that breaks HTTP's framing rules gets. */
export function checkRequestFraming(request: FastifyRequest): void {
  const raw = request.raw;
  const hosts = countHeader(raw.rawHeaders ?? [], 'host');
  if (hosts > 1) throw new LoomError('bad_request', 'The request has more than one Host header.');
  if (hosts === 0 && raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1) {
    throw new LoomError('bad_request', 'An HTTP/1.1 request needs a Host header.');
  }
  // Most targets are origin-form ('/…'): only another form can name an authority.
  const url = raw.url ?? '';
  const authority = url.charCodeAt(0) === SLASH ? undefined : ABSOLUTE_FORM.exec(url)?.[1];
  if (authority !== undefined && authority.toLowerCase() !== String(request.headers.host ?? '').toLowerCase()) {
    throw new LoomError('bad_request', 'The request target names another host than the Host header.');
  }
  const expect = request.headers.expect;
  if (expect !== undefined && !/^\s*100-continue\s*$/i.test(expect)) {
    throw new LoomError(
      'expectation_failed',
      `The expectation ${JSON.stringify(expect.slice(0, 40))} cannot be met.`,
      'Send the request without Expect, or with Expect: 100-continue.',
    );
  }
}

/** Adds the check as an onRequest hook: it runs after the hooks added before it. */
export function registerRequestFraming(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      checkRequestFraming(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
}

/**
 * Node answers an Expect it cannot meet with a bare 417 of its own unless someone listens for
 * it: the request goes to Fastify instead, where checkRequestFraming refuses it in the
 * server's envelope, with the headers every other answer carries.
 */
export function passUnmetExpectations(server: Server): void {
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
}

/** The path of a request target, without the query, for origin-form and absolute-form alike. */
export function requestPath(url: string): string {
  const withoutAuthority = url.replace(ABSOLUTE_FORM, '');
  const path = withoutAuthority.split('?')[0] ?? '';
  return path.startsWith('/') ? path : `/${path}`;
}

function countHeader(rawHeaders: string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const header = rawHeaders[i]!;
    // Lower-cased only when it could match: this runs on every request's every header.
    if (header.length === name.length && header.toLowerCase() === name) count += 1;
  }
  return count;
}
