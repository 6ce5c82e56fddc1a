// Discovery documents: authorization server metadata (RFC 8414, and OpenID Connect discovery
// since ID tokens are issued), protected resource metadata (RFC 9728) and the JWKS.
import { ALL_SCOPES, GRANT_TYPES, type Scope } from '../../contracts/auth.ts';
import { resourceUri, type ResourceId } from '../../core/identity/resources.ts';
import type { ServiceUrls } from '../../core/urls.ts';

export const JWKS_PATH = '/.well-known/jwks.json';

/** Dynamic client registration (RFC 7591), open to public clients: how MCP clients sign in. */
export const REGISTRATION_PATH = '/auth/register';

/**
 * RFC 8414 metadata, plus one member of Loom's own (RFC 8414 §2 allows more):
 * `loom_sign_in_providers`, the sign-in providers this server has (`codehost`, `oidc`), each
 * started at `/api/v1/auth/{provider}`. `loom login` reads it to pick one.
 */
export function authorizationServerMetadata(urls: ServiceUrls, signInProviders: readonly string[]) {
  const issuer = urls.issuer;
  return {
    issuer,
    authorization_endpoint: `${issuer}/auth/authorize`,
    token_endpoint: `${issuer}/auth/token`,
    registration_endpoint: `${issuer}${REGISTRATION_PATH}`,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    scopes_supported: ALL_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['ES256'],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'name', 'preferred_username', 'email'],
    service_documentation: `${urls.publicUrl}/llms.txt`,
    loom_sign_in_providers: [...signInProviders],
  };
}

/** What a protected resource's metadata says beyond what every resource shares. */
export interface ResourceDescription {
  name: string;
  scopes: readonly Scope[];
  documentation: string;
}

/**
 * RFC 9728 metadata of a resource: the hosted API (every scope, documented by the OpenAPI
 * description) unless told otherwise.
 */
export function protectedResourceMetadata(urls: ServiceUrls, resource: ResourceId = 'api', description?: ResourceDescription) {
  return {
    resource: resourceUri(urls, resource),
    resource_name: description?.name ?? 'Loom hosted API',
    authorization_servers: [urls.issuer],
    scopes_supported: description?.scopes ?? ALL_SCOPES,
    bearer_methods_supported: ['header'],
    resource_signing_alg_values_supported: ['ES256'],
    resource_documentation: description?.documentation ?? `${urls.publicUrl}/openapi.json`,
  };
}
