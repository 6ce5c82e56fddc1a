import Ajv, { type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { allFieldsOptional } from '../contracts/schema-helpers.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's table declares no body: it reads none, so an empty one, of any type, is no body. */
    takesNoBody?: boolean;
  }
}

/**
 * Two validators: bodies are checked as sent (no type coercion, no stripping), while query,
 * params and headers, which arrive as strings, are coerced to the declared types.
 * Every error is reported (allErrors), not just the first; bodies are size-limited first.
 *
 * A body whose fields are all optional may be left out: no body, an empty one of any type
 * (`Content-Type: application/json` and zero bytes, `Content-Length: 0`, chunked with no
 * chunk), or `null` are read as `{}` (so `POST /api/editor/save` needs no `-d '{}'`). A route
 * that takes no body (`takesNoBody`, set from the route tables) takes an empty one the same
 * way. A body with a required field still needs one, and a body that is not empty keeps its
 * answer: text that is not JSON is invalid_json, a type nothing here reads is 415.
 */
export function registerValidation(app: FastifyInstance): void {
  const bodyAjv = jsonValidator();
  const textAjv = addFormats.default(new Ajv.default({ ...COMMON_OPTIONS, coerceTypes: 'array' }));
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart !== 'body') return textAjv.compile(schema as object);
    const validate = bodyAjv.compile(schema as object);
    return allFieldsOptional(schema) ? absentMeansEmpty(validate) : validate;
  });
  acceptEmptyBodies(app);
}

const COMMON_OPTIONS: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

/**
 * The validator bodies are checked with: values as sent, no coercion. Anything else that arrives
 * as JSON (an MCP tool's arguments) is checked with it too, so that it passes or fails alike.
 */
export function jsonValidator(): Ajv.default {
  return addFormats.default(new Ajv.default({ ...COMMON_OPTIONS, coerceTypes: false }));
}

/**
 * A validation failure in the shape Fastify gives its own (`validation`, `validationContext`),
 * so that describeError (http/errors.ts) reports input checked elsewhere as it reports a route's.
 */
export function validationFailure(issues: ValidateFunction['errors'], context: 'body' | 'querystring' | 'params'): Error {
  return Object.assign(new Error('validation failed'), { validation: issues ?? [], validationContext: context });
}

/** Fastify hands a missing body to the validator as `null`: validate `{}` in its place, and use it. */
function absentMeansEmpty(validate: ValidateFunction): (data: unknown) => boolean | { value: unknown } {
  const wrapped = (data: unknown) => {
    if (data !== null && data !== undefined) {
      const valid = validate(data);
      wrapped.errors = validate.errors;
      return valid;
    }
    const value = {};
    const valid = validate(value);
    wrapped.errors = validate.errors;
    return valid ? { value } : false;
  };
  wrapped.errors = null as ValidateFunction['errors'];
  return wrapped;
}

/** Whether the route's body may be left out: it takes none, or none of its fields is required. */
function bodyMayBeLeftOut(request: FastifyRequest): boolean {
  return request.routeOptions.config?.takesNoBody === true || allFieldsOptional(request.routeOptions.schema?.body);
}

/**
 * The parsers, except that an empty body is no body on a route whose body may be left out,
 * whatever its Content-Type (Fastify would refuse an empty JSON body, and a type it has no
 * parser for, before the route is looked at). JSON and plain text are read as Fastify reads
 * them; a type nothing here reads is still 415, at once when the request says its body is not
 * empty, else at its first byte.
 */
function acceptEmptyBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser(app.initialConfig.onProtoPoisoning ?? 'error', app.initialConfig.onConstructorPoisoning ?? 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const text = String(body); // parseAs: 'string'
    if (text.length === 0 && bodyMayBeLeftOut(request)) {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const text = String(body);
    done(null, text.length === 0 && bodyMayBeLeftOut(request) ? undefined : text);
  });
  // Any other type, and a body without a type.
  app.addContentTypeParser('*', (request, payload, done) => {
    // No route: the not-found handler answers, the body unread (as without this parser).
    if (request.is404) return done(null, undefined);
    const unsupported = () => done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
    if (!bodyMayBeLeftOut(request) || Number(request.headers['content-length']) > 0) return unsupported();
    const settle = (outcome: () => void) => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      outcome();
    };
    const onData = (chunk: Buffer | string) => {
      if (chunk.length > 0) settle(unsupported);
    };
    const onEnd = () => settle(() => done(null, undefined));
    const onError = (error: Error) => settle(() => done(error, undefined));
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
  });
}
