import Ajv, { type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { allFieldsOptional } from '../contracts/schema-helpers.ts';

/**
 * Two validators: bodies are checked as sent (no type coercion, no stripping), while query,
 * params and headers, which arrive as strings, are coerced to the declared types.
 * Every error is reported (allErrors), not just the first; bodies are size-limited first.
 *
 * A body whose fields are all optional may be left out: no body, an empty one sent with
 * `Content-Type: application/json`, or `null` are read as `{}` (so `POST /api/editor/save`
 * needs no `-d '{}'`). A body with a required field still needs one, and text that is not
 * JSON is still invalid_json.
 */
export function registerValidation(app: FastifyInstance): void {
  const bodyAjv = jsonValidator();
  const textAjv = addFormats.default(new Ajv.default({ ...COMMON_OPTIONS, coerceTypes: 'array' }));
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart !== 'body') return textAjv.compile(schema as object);
    const validate = bodyAjv.compile(schema as object);
    return allFieldsOptional(schema) ? absentMeansEmpty(validate) : validate;
  });
  acceptEmptyJsonBodies(app);
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

/**
 * The JSON parser, except that an empty body is no body on a route whose body fields are all
 * optional (Fastify's own parser refuses it before the route's schema is looked at).
 * Everywhere else an empty JSON body stays invalid_json.
 */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser(app.initialConfig.onProtoPoisoning ?? 'error', app.initialConfig.onConstructorPoisoning ?? 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const text = String(body); // parseAs: 'string'
    if (text.length === 0 && allFieldsOptional(request.routeOptions.schema?.body)) {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
