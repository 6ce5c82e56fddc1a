// The OpenAPI 3.1 document, derived from the operation table.
import type { TSchema } from 'typebox';
import { ALL_SCOPES, SCOPES, type OperationAuth, type Scope } from '../../contracts/auth.ts';
import { ERROR_CODES, type ErrorCode } from '../../contracts/errors.ts';
import { operations, type AnyOperation } from '../../contracts/operations.ts';
import { plainSchema as plain } from '../../contracts/schema-helpers.ts';
import { ErrorBody } from '../../contracts/schemas.ts';
import { API_PREFIX, DEPRECATION_HEADERS, DOCS_MIRROR_PREFIX } from '../../contracts/versioning.ts';

type Json = Record<string, unknown>;

/**
 * Errors any operation can answer with, whatever it declares: a URL that is not valid UTF-8
 * (bad_request), and what the HTTP layer answers before any route is chosen (a request too slow
 * to arrive, headers too large, an Expect it cannot meet, a client holding too many connections).
 */
const UNIVERSAL_ERRORS: readonly ErrorCode[] = [
  'bad_request',
  'request_timeout',
  'expectation_failed',
  'headers_too_large',
  'rate_limited',
  'too_many_connections',
  'internal_error',
];

/**
 * What the credentials check (plugins/authenticate.ts) answers for an operation, derived from
 * its `auth`: a token in the query string is refused everywhere; a presented token is verified
 * wherever tokens are accepted, even where none is required; no credentials where some are
 * required is unauthorized; a token without the operation's scope is insufficient_scope;
 * Basic client credentials that do not parse are invalid_client.
 */
function authErrors(auth: OperationAuth): ErrorCode[] {
  const codes: ErrorCode[] = ['invalid_request'];
  if (auth.oauth2?.length || auth.bearer) codes.push('invalid_token');
  if (!auth.anonymous) codes.push('unauthorized');
  if (auth.oauth2?.length) codes.push('insufficient_scope');
  if (auth.clientBasic) codes.push('invalid_client');
  return codes;
}

export function buildOpenApi(publicUrl: string, version: string, issuer: string = publicUrl): Json {
  const paths: Record<string, Json> = {};
  for (const operation of operations) {
    const path = operation.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    paths[path] = { ...(paths[path] ?? {}), [operation.method.toLowerCase()]: describeOperation(operation) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Loom hosted API',
      version,
      description:
        'The hosted API of Loom, an open, self-hostable AI code editor: downloads, models, feedback, sign-in, composer sessions and tab completion. Every response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; every error has the Error shape. The unversioned path /api is a deprecated alias of /api/v1.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: publicUrl + API_PREFIX, description: 'Loom API (v1)' },
      { url: publicUrl + DOCS_MIRROR_PREFIX, description: 'Docs mirror of v1, same paths' },
    ],
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { Error: plain(ErrorBody) },
      securitySchemes: securitySchemes(issuer),
      headers: {
        'RateLimit-Limit': header('Requests allowed per window.', 'integer'),
        'RateLimit-Remaining': header('Requests left in the current window.', 'integer'),
        'RateLimit-Reset': header('Seconds until the window resets.', 'integer'),
        'Retry-After': header('Seconds to wait before retrying.', 'integer'),
        'API-Version': header('The effective API version.', 'string'),
        Deprecation: header(`On the unversioned /api path: "${DEPRECATION_HEADERS.deprecation}".`, 'string'),
        Sunset: header(`On the unversioned /api path: "${DEPRECATION_HEADERS.sunset}".`, 'string'),
      },
    },
  };
}

function describeOperation(operation: AnyOperation): Json {
  const request = operation.request as { params?: TSchema; query?: TSchema; body?: TSchema; contentTypes?: readonly string[] };
  const parameters = [
    ...parametersOf(request.params, 'path'),
    ...parametersOf(request.query, 'query'),
    {
      name: 'API-Version',
      in: 'header',
      required: false,
      description: `Selects the API version; default ${operation.versions[0]}.`,
      schema: { type: 'string', enum: [...operation.versions] },
    },
  ];
  const successHeaders: Json = { ...rateLimitHeaders(), 'API-Version': { $ref: '#/components/headers/API-Version' } };
  if (operation.announcesDeprecation) {
    successHeaders.Deprecation = { $ref: '#/components/headers/Deprecation' };
    successHeaders.Sunset = { $ref: '#/components/headers/Sunset' };
  }
  const redirect = operation.success.status === 302;
  if (redirect) successHeaders.Location = { description: 'Where to go next.', schema: { type: 'string', format: 'uri' } };
  const responses: Json = {
    [operation.success.status]: {
      description: operation.success.description,
      headers: successHeaders,
      ...(redirect ? {} : { content: { 'application/json': { schema: plain(operation.success.schema) } } }),
    },
  };
  // A path segment longer than the router takes is uri_too_long (app.ts, maxParamLength).
  const pathErrors: ErrorCode[] = request.params ? ['uri_too_long'] : [];
  for (const [status, codes] of groupByStatus([...operation.errors, ...authErrors(operation.auth), ...pathErrors, ...UNIVERSAL_ERRORS])) {
    const headers: Json = rateLimitHeaders();
    if (status === 429) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    responses[status] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].meaning}`).join(' '),
      headers,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    tags: [operation.tag],
    security: securityOf(operation.auth),
    parameters,
    ...(request.body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries((request.contentTypes ?? ['application/json']).map((type) => [type, { schema: plain(request.body!) }])),
          },
        }
      : {}),
    responses,
  };
}

/** The accepted schemes as OpenAPI security requirements; `{}` marks them optional. */
function securityOf(auth: OperationAuth): Json[] {
  const requirements: Json[] = [];
  if (auth.oauth2?.length) requirements.push({ oAuth2: [...auth.oauth2] });
  if (auth.bearer) requirements.push({ bearerAuth: [] });
  if (auth.anonymous) requirements.push({});
  return requirements;
}

function securitySchemes(issuer: string): Json {
  const scopes = (keep: (s: Scope) => boolean) => Object.fromEntries(ALL_SCOPES.filter(keep).map((s) => [s, SCOPES[s].meaning]));
  return {
    oAuth2: {
      type: 'oauth2',
      description: 'OAuth 2.0. Authorization code flow with PKCE (S256); client credentials for confidential clients.',
      flows: {
        authorizationCode: {
          authorizationUrl: `${issuer}/auth/authorize`,
          tokenUrl: `${issuer}/auth/token`,
          refreshUrl: `${issuer}/auth/token`,
          scopes: scopes((s) => SCOPES[s].authorizationCode),
        },
        clientCredentials: { tokenUrl: `${issuer}/auth/token`, scopes: scopes((s) => SCOPES[s].clientCredentials) },
      },
    },
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'An API key created in the dashboard, sent as Authorization: Bearer <API_KEY>. Legacy; OAuth 2.0 is preferred.',
    },
  };
}

function parametersOf(schema: TSchema | undefined, location: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const object = schema as { properties?: Record<string, TSchema & { description?: string }>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (object.required ?? []).includes(name),
    ...(property.description ? { description: property.description } : {}),
    schema: plain(property),
  }));
}

function groupByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CODES[code].status;
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return new Map([...groups].sort(([a], [b]) => a - b));
}

function rateLimitHeaders(): Json {
  return {
    'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
    'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
    'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  };
}

function header(description: string, type: string): Json {
  return { description, schema: { type } };
}
