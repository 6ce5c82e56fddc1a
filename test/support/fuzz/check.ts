// What every answer of either API must be, whatever was sent: no 5xx, a status the route
// documents (or one any route may answer), a body in the documented shape for that status, and
// an error code whose status is the one the error table gives it.
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { codesOf, ERROR_CODES } from '../../../src/contracts/errors.ts';
import { localCode } from '../../../src/local/errors.ts';
import type { RawResponse } from '../raw-http.ts';
import type { FuzzRequest } from './requests.ts';
import type { JsonSchema } from './schema.ts';
import type { FuzzTarget } from './targets.ts';

/** Statuses any route may answer with, documented or not (the shared mechanisms). */
export const UNIVERSAL_STATUSES = [400, 401, 403, 404, 405, 413, 415, 429];

export interface Expectations {
  api: 'hosted' | 'local';
  /** The Error schema (hosted): what every error body must match. */
  errorSchema?: JsonSchema;
  /** The RateLimit-Limit a route's answers carry (local: its limit class). */
  rateLimitOf?: (route: FuzzTarget) => number;
  /**
   * 5xx error codes the test's own setup makes a route answer, whatever it is sent (a service the
   * sandbox turns off): accepted where the route documents them, every other 5xx still refused.
   */
  unavailable?: ReadonlySet<string>;
}

const STACK_TRACE = /\n\s+at .+[:(]|node:internal|\.ts:\d+:\d+/;

/** The codes each API may answer with (the error table's `surfaces`), with their statuses; the local ones by their local spelling. */
const HOSTED_CODES = new Map(codesOf('hosted').map((code) => [code as string, ERROR_CODES[code].status]));
const LOCAL_CODES = new Map(codesOf('local').map((code) => [localCode(code) as string, ERROR_CODES[code].status]));

export class ResponseChecker {
  private readonly ajv = addFormats.default(new Ajv.default({ strict: false, allErrors: true, validateSchema: false }));
  private readonly compiled = new Map<JsonSchema, ValidateFunction>();

  constructor(private readonly expect: Expectations) {}

  /** Everything wrong with `response` as an answer to `request`; empty when it is right. */
  problems(request: FuzzRequest, response: RawResponse): string[] {
    const problems: string[] = [];
    const { status } = response;
    const route = request.route;
    if (status < 100) return [`not an HTTP answer: ${JSON.stringify(response.text.slice(0, 200))}`];
    const hasBody = request.method !== 'HEAD' && status !== 204 && status !== 304;
    if (status >= 500 && !this.unavailableAsDocumented(request, response, hasBody)) problems.push(`answered ${status}`);
    if (STACK_TRACE.test(response.text)) problems.push('the body holds a stack trace or a source location');

    if (!route.responses.has(status) && !UNIVERSAL_STATUSES.includes(status)) {
      problems.push(
        `${status} is neither documented for ${route.id} (${[...route.responses.keys()].join(', ')}) nor universal (${UNIVERSAL_STATUSES.join(', ')})`,
      );
    }
    if (this.expect.api === 'hosted') {
      if (request.wellFormed) {
        for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
          if (!/^\d+$/.test(response.headers[name] ?? '')) problems.push(`no ${name} header`);
        }
      }
      if (status === 302 && !response.headers.location) problems.push('a redirect without Location');
      if (status === 405 && !response.headers.allow) problems.push('405 without Allow');
    } else if (status >= 300 && status < 400) {
      problems.push(`a redirect (${status}) from the local API`);
    }

    if (status >= 400 && hasBody) {
      problems.push(...this.errorProblems(response));
      if (request.canonical) problems.push(...this.contradictions(request, response));
      // A documented status documents its codes too (for the operation as documented: its
      // method and path, not another spelling that the router may treat otherwise).
      const code = this.errorCode(response);
      const named = request.canonical ? route.errorCodes.get(status) : undefined;
      if (named && code !== undefined && !named.has(code)) {
        problems.push(`error ${code} is not among those documented for ${status} on ${route.id} (${[...named].join(', ')})`);
      }
    } else if (status >= 200 && status < 300 && hasBody) {
      const body = parseJson(response);
      if (body === NOT_JSON) problems.push(`a ${status} whose body is not JSON: ${JSON.stringify(response.text.slice(0, 200))}`);
      const schema = route.responses.get(status);
      if (schema && body !== NOT_JSON) problems.push(...this.schemaProblems(schema, body, `the ${status} body`));
      const limit = this.expect.rateLimitOf?.(route);
      if (limit !== undefined && response.headers['ratelimit-limit'] !== String(limit)) {
        problems.push(`answered by ${route.id} under the limit ${response.headers['ratelimit-limit']}, not its own ${limit}`);
      }
    }
    return problems;
  }

  /**
   * Whether a 5xx is one the setup makes the route answer (`unavailable`): its code, or for an
   * answer without a body (HEAD, whose code cannot be read), a code the route documents for
   * that status.
   */
  private unavailableAsDocumented(request: FuzzRequest, response: RawResponse, hasBody: boolean): boolean {
    const unavailable = this.expect.unavailable;
    if (!unavailable) return false;
    if (hasBody) return unavailable.has(this.errorCode(response) ?? '');
    return [...(request.route.errorCodes.get(response.status) ?? [])].some((code) => unavailable.has(code));
  }

  /**
   * A validation error that contradicts the schema it validates against: a field said to be
   * required that the schema leaves optional, or a body refused as a whole when it was left out
   * and the route marks it optional.
   */
  private contradictions(request: FuzzRequest, response: RawResponse): string[] {
    const body = parseJson(response) as { details?: unknown; error?: { details?: unknown } } | symbol;
    if (typeof body !== 'object' || body === null) return [];
    const details = (this.expect.api === 'hosted' ? body.details : body.error?.details) as { field?: string; message?: string }[] | undefined;
    if (!Array.isArray(details)) return [];
    const problems: string[] = [];
    const required = new Set(request.route.body?.required ?? []);
    for (const detail of details) {
      const field = /^body\.([^.]+)$/.exec(detail.field ?? '')?.[1];
      if (field && detail.message === 'is required' && request.route.body?.properties?.[field] && !required.has(field)) {
        problems.push(`refused because body.${field} is required, which the schema leaves optional`);
      }
      if (detail.field === 'body' && !request.body && request.route.bodyOptional) {
        problems.push(`refused for leaving out a body the route marks optional (${detail.message})`);
      }
    }
    return problems;
  }

  /** The error code of an error body, in either API's envelope. */
  private errorCode(response: RawResponse): string | undefined {
    const body = parseJson(response) as { error?: unknown } | symbol;
    if (typeof body !== 'object' || body === null) return undefined;
    const code = this.expect.api === 'hosted' ? body.error : (body.error as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' ? code : undefined;
  }

  private errorProblems(response: RawResponse): string[] {
    const problems: string[] = [];
    if (!/^application\/json/i.test(response.headers['content-type'] ?? ''))
      problems.push(`an error as ${response.headers['content-type'] ?? 'no content type'}`);
    const body = parseJson(response);
    if (body === NOT_JSON) return [...problems, `an error body that is not JSON: ${JSON.stringify(response.text.slice(0, 200))}`];
    if (this.expect.api === 'hosted') {
      if (this.expect.errorSchema) problems.push(...this.schemaProblems(this.expect.errorSchema, body, 'the error body'));
      const code = (body as { error?: unknown })?.error;
      const known = typeof code === 'string' ? HOSTED_CODES.get(code) : undefined;
      if (known === undefined) problems.push(`an error code the hosted API does not answer with: ${JSON.stringify(code)}`);
      else if (known !== response.status) problems.push(`error ${code} answered with ${response.status}, not its ${known}`);
    } else {
      const error = (body as { error?: { code?: unknown; message?: unknown; retryAfter?: unknown } })?.error;
      if (!error || typeof error !== 'object' || typeof error.code !== 'string' || typeof error.message !== 'string') {
        return [...problems, `not the local envelope {error: {code, message}}: ${response.text.slice(0, 200)}`];
      }
      if (error.retryAfter !== undefined && typeof error.retryAfter !== 'number') problems.push('retryAfter is not a number');
      const known = LOCAL_CODES.get(error.code);
      if (known === undefined) problems.push(`an error code the local API does not answer with: ${error.code}`);
      else if (known !== response.status) problems.push(`error ${error.code} answered with ${response.status}, not its ${known}`);
    }
    return problems;
  }

  private schemaProblems(schema: JsonSchema, value: unknown, what: string): string[] {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema as object);
      this.compiled.set(schema, validate);
    }
    if (validate(value)) return [];
    return [`${what} does not match its schema: ${(validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')}`];
  }
}

const NOT_JSON = Symbol('not JSON');

function parseJson(response: RawResponse): unknown {
  try {
    return JSON.parse(response.text);
  } catch {
    return NOT_JSON;
  }
}
