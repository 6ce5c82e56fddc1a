// Authentication of the hosted API (docs/auth.md): scopes, the schemes an
// operation accepts, and the OAuth wire formats.
import { Type, type Static } from 'typebox';
import { StringEnum } from './schema-helpers.ts';
import { GRANT_TYPES, type Scope } from './scopes.ts';

// The names alone live in scopes.ts, free of the schema library, for the CLI's quick start-up.
export { ALL_SCOPES, CLIENT_CREDENTIALS_SCOPES, GRANT_TYPES, SCOPES, isGrantType, isScope, type GrantType, type Scope } from './scopes.ts';

/**
 * What an operation accepts. `oauth2`: an OAuth access token carrying one of these scopes;
 * `bearer`: an API key (bearerAuth); `anonymous`: no credentials at all.
 * A credential that is presented is always checked, even where none is required; a valid one
 * that an operation open to anyone does not take is ignored (the caller is served as anonymous).
 */
export interface OperationAuth {
  oauth2?: readonly Scope[];
  bearer?: boolean;
  anonymous?: boolean;
  /** `Authorization: Basic` carries OAuth client credentials (the token endpoint). */
  clientBasic?: boolean;
}

/**
 * POST /auth/token (form). `code` is listed as required by the interface; it is required and
 * used only by authorization_code, and ignored by the other grants (docs/auth.md).
 */
export const TokenRequest = Type.Object(
  {
    // A string, not an enum: an unknown grant is OAuth's unsupported_grant_type, not a validation error.
    grant_type: Type.String({ maxLength: 100, description: `One of: ${GRANT_TYPES.join(', ')}.`, examples: [...GRANT_TYPES] }),
    code: Type.Optional(Type.String({ maxLength: 512 })),
    redirect_uri: Type.Optional(Type.String({ maxLength: 2048 })),
    client_id: Type.Optional(Type.String({ maxLength: 200 })),
    client_secret: Type.Optional(Type.String({ maxLength: 512 })),
    code_verifier: Type.Optional(Type.String({ maxLength: 512 })),
    refresh_token: Type.Optional(Type.String({ maxLength: 512 })),
    scope: Type.Optional(Type.String({ maxLength: 1000 })),
    resource: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: 'RFC 8707: the resource the token is for, the hosted API (the default) or the MCP endpoint ({public URL}/mcp).',
      }),
    ),
  },
  { additionalProperties: false, title: 'TokenRequest' },
);
export type TokenRequest = Static<typeof TokenRequest>;

export const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the access token expires.' }),
    refresh_token: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String({ description: 'Space-delimited granted scopes.' })),
    id_token: Type.Optional(Type.String()),
  },
  { title: 'TokenResponse' },
);
export type TokenResponse = Static<typeof TokenResponse>;

export const SIGN_IN_SOURCES = ['web', 'cli', 'desktop'] as const;
export type SignInSource = (typeof SIGN_IN_SOURCES)[number];

export const CodeHostAuthQuery = Type.Object({
  source: Type.Optional(StringEnum(SIGN_IN_SOURCES, { description: 'cli and desktop are for headless use: the code is sent to a loopback callbackPort.' })),
  callbackPort: Type.Optional(Type.String({ pattern: '^[0-9]{4,5}$', description: 'Loopback port of the CLI or desktop app (cli/desktop).' })),
  scope: Type.Optional(Type.String({ maxLength: 1000, description: 'Space-delimited OAuth scopes.' })),
  code_challenge: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'PKCE S256 challenge (base64url of SHA-256 of the verifier).' })),
  state: Type.Optional(Type.String({ maxLength: 500, description: 'Returned unchanged to the callback (extension).' })),
  return_to: Type.Optional(Type.String({ maxLength: 2000, description: 'web only: a path on this server to return to after sign-in.' })),
});
export type CodeHostAuthQuery = Static<typeof CodeHostAuthQuery>;

/**
 * What startCodeHostAuth and startOidcAuth hand to the route: where to redirect, and the
 * cookies to set with the redirect (a web sign-in's browser binding, docs/auth.md).
 */
export const SignInRedirect = Type.Object({
  location: Type.String(),
  setCookies: Type.Optional(Type.Array(Type.String(), { description: 'Set-Cookie values sent with the redirect.' })),
});
export type SignInRedirect = Static<typeof SignInRedirect>;
