import Ajv, { type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/**
 * Two validators: bodies are checked as sent (no type coercion, no stripping), while query,
 * params and headers, which arrive as strings, are coerced to the declared types.
 * Every error is reported (allErrors), not just the first; bodies are size-limited first.
 */
export function registerValidation(app: FastifyInstance): void {
  const common: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };
  const bodyAjv = addFormats.default(new Ajv.default({ ...common, coerceTypes: false }));
  const textAjv = addFormats.default(new Ajv.default({ ...common, coerceTypes: 'array' }));
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object),
  );
}
