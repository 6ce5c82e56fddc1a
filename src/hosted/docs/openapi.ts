// The OpenAPI 3.1 document, derived from the operation table.
import type { TSchema } from 'typebox';
import { ALL_SCOPES, SCOPES, type OperationAuth, type Scope } from '../../contracts/auth.ts';
import { operationErrors, UNIVERSAL_ERRORS } from '../../contracts/operation-errors.ts';
import { operations, type AnyOperation } from '../../contracts/operations.ts';
import { plainSchema } from '../../contracts/schema-helpers.ts';
import { ErrorBody } from '../../contracts/schemas.ts';
import { API_PREFIX, DEPRECATION_HEADERS, DOCS_MIRROR_PREFIX } from '../../contracts/versioning.ts';
import { errorResponses, header, parametersOf, pathsOf, RATE_LIMIT_HEADERS, rateLimitHeaders, type Json } from '../../http/openapi.ts';

/** The OpenAPI 3.1 document of the hosted API, its links under `publicUrl` and its OAuth endpoints under `issuer`. */
export function buildOpenApi(publicUrl: string, version: string, issuer: string = publicUrl): Json {
  // What the API offers is said by its operations' tags, so that it never promises more.
  const tags = [...new Set(operations.map((o) => o.tag))];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Loom hosted API',
      version,
      description: `The hosted API of Loom, an open, self-hostable AI code editor. Its operations, by tag: ${tags.join(', ')}. Every response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; every error has the Error shape. The unversioned path /api is a deprecated alias of /api/v1.`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: publicUrl + API_PREFIX, description: 'Loom API (v1)' },
      { url: publicUrl + DOCS_MIRROR_PREFIX, description: 'Docs mirror of v1, same paths' },
    ],
    tags: tags.map((name) => ({ name })),
    paths: pathsOf(operations, describeOperation),
    components: {
      schemas: { Error: plainSchema(ErrorBody) },
      securitySchemes: securitySchemes(issuer),
      headers: {
        ...RATE_LIMIT_HEADERS,
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
      ...(redirect
        ? {}
        : {
            content: {
              [(operation as { stream?: string }).stream === 'sse' ? 'text/event-stream' : 'application/json']: {
                schema: plainSchema(operation.success.schema),
              },
            },
          }),
    },
  };
  Object.assign(
    responses,
    errorResponses([...operationErrors(operation), ...UNIVERSAL_ERRORS], 'hosted', (code) => code, '#/components/schemas/Error'),
  );
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
            content: Object.fromEntries((request.contentTypes ?? ['application/json']).map((type) => [type, { schema: plainSchema(request.body!) }])),
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
