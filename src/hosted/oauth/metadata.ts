// Discovery documents: authorization server metadata (RFC 8414, and OpenID Connect discovery
// since ID tokens are issued), protected resource metadata (RFC 9728) and the JWKS.
import { ALL_SCOPES, GRANT_TYPES } from '../../contracts/auth.ts';
import type { ServiceUrls } from '../../core/urls.ts';

export const JWKS_PATH = '/.well-known/jwks.json';

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

export function protectedResourceMetadata(urls: ServiceUrls) {
  return {
    resource: urls.audience,
    authorization_servers: [urls.issuer],
    scopes_supported: ALL_SCOPES,
    bearer_methods_supported: ['header'],
    resource_signing_alg_values_supported: ['ES256'],
    resource_documentation: `${urls.publicUrl}/openapi.json`,
  };
}
