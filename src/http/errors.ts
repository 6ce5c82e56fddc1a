// Turns anything thrown into a status and an Error body: our own LoomError, Fastify's parsing
// and validation errors, or a bug (500, logged by the caller, no stack). Shared by the hosted
// API and the local API, which wrap the body in their own envelopes.
import type { FastifyError } from 'fastify';
import { ERROR_CODES, OAUTH_ERROR_CODES, type ErrorCode } from '../contracts/errors.ts';
import type { ErrorBody } from '../contracts/schemas.ts';
import { LoomError } from '../core/errors.ts';
import { hidePrivatePaths } from '../core/files/private-folders.ts';

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_BAD_URL: 'bad_request',
  FST_ERR_MAX_PARAM_LENGTH: 'uri_too_long',
};

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

export function errorBody(code: ErrorCode, message: string, hint?: string): ErrorBody {
  const body: ErrorBody = hint ? { error: code, message, hint } : { error: code, message };
  // OAuth clients read error_description (RFC 6749 §5.2); everyone else reads message.
  if (OAUTH_ERROR_CODES.has(code)) body.error_description = message;
  return body;
}

/**
 * Turns anything thrown into a status and an Error body: where every error of both servers
 * becomes an answer, so the server's own folders are hidden here (private-folders.ts).
 */
export function describeError(error: unknown): { status: number; body: ErrorBody; internal: boolean } {
  const described = describe(error);
  const { body } = described;
  body.message = hidePrivatePaths(body.message);
  if (body.hint !== undefined) body.hint = hidePrivatePaths(body.hint);
  if (body.error_description !== undefined) body.error_description = body.message;
  return described;
}

function describe(error: unknown): { status: number; body: ErrorBody; internal: boolean } {
  if (error instanceof LoomError) {
    return { status: ERROR_CODES[error.code].status, body: errorBody(error.code, error.message, error.hint), internal: false };
  }
  const fastifyError = error as Partial<FastifyError> & Error & { validationContext?: string };
  if (Array.isArray(fastifyError.validation)) {
    const details = fastifyError.validation.map((issue) => describeIssue(issue as ValidationIssue, fastifyError.validationContext ?? 'request'));
    // A path segment names a resource: one that cannot exist is "not found", not "invalid".
    if (fastifyError.validationContext === 'params') {
      return {
        status: 404,
        body: errorBody('not_found', `Nothing at this path: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`),
        internal: false,
      };
    }
    return {
      status: 400,
      body: {
        error: 'validation_error',
        message: `Invalid request: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`,
        details,
      },
      internal: false,
    };
  }
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (mapped === 'invalid_json' || (error instanceof SyntaxError && fastifyError.statusCode === 400)) {
    return {
      status: 400,
      body: errorBody(
        'invalid_json',
        'The request body is not valid JSON, or carries a forbidden "__proto__" or "constructor" key.',
        'Send a JSON object with Content-Type: application/json.',
      ),
      internal: false,
    };
  }
  if (mapped) {
    return { status: ERROR_CODES[mapped].status, body: errorBody(mapped, plainMessage(fastifyError.message)), internal: false };
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = CODE_BY_STATUS[status] ?? 'bad_request';
    return { status, body: errorBody(code, plainMessage(fastifyError.message)), internal: false };
  }
  return {
    status: 500,
    body: errorBody('internal_error', 'Something went wrong inside Loom. It has been logged.', 'Try again; if it persists, report it.'),
    internal: true,
  };
}

function describeIssue(issue: ValidationIssue, context: string): { field: string; message: string } {
  const part = context === 'querystring' ? 'query' : context;
  let field = [part, ...issue.instancePath.split('/').filter(Boolean).map(unescapePointer)].join('.');
  let message = issue.message ?? 'is invalid';
  if (issue.keyword === 'required') {
    field += `.${String(issue.params.missingProperty)}`;
    message = 'is required';
  } else if (issue.keyword === 'additionalProperties') {
    field += `.${String(issue.params.additionalProperty)}`;
    message = 'is not a known field';
  } else if (issue.keyword === 'enum') message = `must be one of: ${(issue.params.allowedValues as unknown[]).join(', ')}`;
  else if (issue.keyword === 'pattern' && String(issue.params.pattern).includes('\\u0000')) message = 'must not contain NUL characters';
  return { field, message };
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Fastify's messages carry their internal code in front ("FST_ERR_…: "); keep the sentence. */
function plainMessage(message: string | undefined): string {
  return (message ?? 'Bad request').replace(/^FST_[A-Z_]+:\s*/, '');
}
