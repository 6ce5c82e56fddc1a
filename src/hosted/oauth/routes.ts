// The authorization server's browser-facing endpoints: /auth/authorize, the providers'
// callbacks, and the discovery documents.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_PREFIX } from '../../contracts/versioning.ts';
import { LoomError } from '../../core/errors.ts';
import type { Identity } from '../../core/identity/index.ts';
import { AuthorizePageError, AuthorizeRedirectError } from '../../core/identity/oauth-server.ts';
import { SignInError } from '../../core/identity/sign-in.ts';
import { describeError } from '../../http/errors.ts';
import { PROTECTED_RESOURCE_PATH } from '../plugins/authenticate.ts';
import { clearSignInCookie, readCookie, SESSION_COOKIE, setSessionCookie, signInCookieName } from '../web/cookies.ts';
import { errorPage, PAGE_HEADERS } from '../web/pages.ts';
import { authorizationServerMetadata, JWKS_PATH, protectedResourceMetadata } from './metadata.ts';

type Query = Record<string, string | undefined>;

/**
 * The OAuth routes that are not operations of the table: `/auth/authorize` (its errors are
 * pages, never redirects), the sign-in providers' callbacks `/auth/{provider}/callback`, and
 * the discovery documents (`/.well-known/oauth-authorization-server`, `openid-configuration`,
 * `oauth-protected-resource`, the JWKS). The token endpoint is an operation (exchangeToken).
 */
export function registerOAuthRoutes(app: FastifyInstance, identity: Identity): void {
  const { urls } = identity;
  const showError = (reply: FastifyReply, status: number, title: string, message: string) =>
    reply.code(status).headers(PAGE_HEADERS).send(errorPage(title, message));

  app.get('/auth/authorize', async (request, reply) => {
    const query = singleValues(request.query);
    if (!query) return showError(reply, 400, 'Invalid request', 'Each parameter may appear only once.');
    let authorization;
    try {
      authorization = await identity.oauth.checkAuthorization(query);
    } catch (error) {
      if (error instanceof AuthorizePageError) return showError(reply, 400, 'Invalid authorization request', error.message);
      if (error instanceof AuthorizeRedirectError) {
        return reply.redirect(withParams(error.request.redirectUri, { error: error.code, error_description: error.message, state: error.request.state, iss: urls.issuer }), 302);
      }
      throw error;
    }
    const signedIn = await identity.sessions.resolve(readCookie(request, SESSION_COOKIE));
    if (!signedIn) {
      const [provider] = identity.signIn.providerIds();
      if (!provider) return showError(reply, 503, 'Sign-in unavailable', 'No sign-in provider is configured on this server.');
      return reply.redirect(`${API_PREFIX}/auth/${provider}?${new URLSearchParams({ source: 'web', return_to: request.url })}`, 302);
    }
    // Clients are registered by the operator, so signed-in users are not asked again to consent.
    const code = await identity.oauth.issueCode({
      clientId: authorization.client.clientId,
      userId: signedIn.user.id,
      redirectUri: authorization.redirectUri,
      codeChallenge: authorization.codeChallenge,
      scope: authorization.scope,
      nonce: authorization.nonce,
    });
    return reply.redirect(withParams(authorization.redirectUri, { code, state: authorization.state, iss: urls.issuer }), 302);
  });

  app.get<{ Params: { provider: string } }>('/auth/:provider/callback', async (request, reply) => {
    const query = singleValues(request.query);
    if (!query || !identity.signIn.hasProvider(request.params.provider)) return showError(reply, 404, 'Not found', 'No such sign-in provider.');
    try {
      const browserSecret = readCookie(request, signInCookieName(urls.publicUrl));
      const result = await identity.signIn.complete(request.params.provider, query, browserSecret);
      if (result.kind === 'web') {
        const session = await identity.sessions.create(result.user.id);
        setSessionCookie(reply, session.id, urls.publicUrl);
        clearSignInCookie(reply, urls.publicUrl);
      }
      return reply.redirect(result.location, 302);
    } catch (error) {
      if (error instanceof SignInError) return showError(reply, 400, 'Sign-in failed', error.message);
      if (error instanceof LoomError) {
        // The user sees the page; the operator should hear that a provider misbehaves. The
        // message names statuses and media types only, never a code, token or body.
        if (error.code === 'upstream_unavailable') request.log.warn({ provider: request.params.provider, reason: error.message }, 'sign-in provider failed');
        const { status, body } = describeError(error);
        return showError(reply, status, 'Sign-in failed', body.message);
      }
      throw error;
    }
  });

  const json = (path: string, document: () => unknown) =>
    app.get(path, async (_request: FastifyRequest, reply: FastifyReply) => reply.header('cache-control', 'public, max-age=300').send(document()));
  const metadata = () => authorizationServerMetadata(urls, identity.signIn.providerIds());
  json('/.well-known/oauth-authorization-server', metadata);
  json('/.well-known/oauth-authorization-server.json', metadata);
  json('/.well-known/openid-configuration', metadata);
  json(PROTECTED_RESOURCE_PATH, () => protectedResourceMetadata(urls));
  json(JWKS_PATH, () => identity.keys.jwks());
}

/** The query as single strings, or undefined when a parameter is repeated (RFC 6749 §3.1). */
function singleValues(query: unknown): Query | undefined {
  const out: Query = {};
  for (const [key, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') return undefined;
    out[key] = value;
  }
  return out;
}

function withParams(uri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value) url.searchParams.set(key, value);
  return url.toString();
}
