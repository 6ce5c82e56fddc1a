// The authorization server's browser-facing endpoints: /auth/authorize (and the answer of its
// consent page), the providers' callbacks, dynamic client registration, and the discovery
// documents.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_PREFIX } from '../../contracts/versioning.ts';
import { LoomError } from '../../core/errors.ts';
import type { ClientMetadata } from '../../core/identity/clients.ts';
import type { Identity } from '../../core/identity/index.ts';
import { AuthorizePageError, AuthorizeRedirectError, type AuthorizationRequest } from '../../core/identity/oauth-server.ts';
import { resourceMetadataPath } from '../../core/identity/resources.ts';
import { SignInError } from '../../core/identity/sign-in.ts';
import { describeError } from '../../http/errors.ts';
import { requireJsonBody } from '../../http/json-body.ts';
import { clearSignInCookie, readCookie, SESSION_COOKIE, setSessionCookie, signInCookieName } from '../web/cookies.ts';
import { errorPage, PAGE_HEADERS } from '../web/pages.ts';
import { APPROVE, CONSENT_FIELDS, consentHeaders, consentPage } from './consent.ts';
import { authorizationServerMetadata, JWKS_PATH, protectedResourceMetadata, REGISTRATION_PATH } from './metadata.ts';

type Query = Record<string, string | undefined>;

const FORM = 'application/x-www-form-urlencoded';

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

  /**
   * An authorization request that passed its checks, from a signed-in user: the code, sent to
   * the client's redirect URI. A client that registered itself gets it only once the user has
   * allowed it on the consent page (`consented`); an operator's client, at once.
   */
  const authorize = async (request: FastifyRequest, reply: FastifyReply, params: Query, consented: boolean) => {
    let authorization: AuthorizationRequest;
    try {
      authorization = await identity.oauth.checkAuthorization(params);
    } catch (error) {
      if (error instanceof AuthorizePageError) return showError(reply, 400, 'Invalid authorization request', error.message);
      if (error instanceof AuthorizeRedirectError) return redirectError(reply, error.request, error.code, error.message);
      throw error;
    }
    const signedIn = await identity.sessions.resolve(readCookie(request, SESSION_COOKIE));
    if (!signedIn) {
      if (request.method === 'POST')
        return showError(reply, 401, 'Signed out', 'Your session ended before you answered. Start the sign-in again from the application.');
      const [provider] = identity.signIn.providerIds();
      if (!provider) return showError(reply, 503, 'Sign-in unavailable', 'No sign-in provider is configured on this server.');
      return reply.redirect(`${API_PREFIX}/auth/${provider}?${new URLSearchParams({ source: 'web', return_to: request.url })}`, 302);
    }
    if (authorization.client.registration === 'dynamic' && !consented) {
      return reply
        .headers(consentHeaders(authorization.redirectUri))
        .send(consentPage({ request: authorization, user: signedIn.user, csrfToken: signedIn.session.csrfToken, params, urls }));
    }
    const code = await identity.oauth.issueCode({
      clientId: authorization.client.clientId,
      userId: signedIn.user.id,
      redirectUri: authorization.redirectUri,
      codeChallenge: authorization.codeChallenge,
      scope: authorization.scope,
      resource: authorization.resource,
      nonce: authorization.nonce,
    });
    return reply.redirect(withParams(authorization.redirectUri, { code, state: authorization.state, iss: urls.issuer }), 302);
  };
  const redirectError = (reply: FastifyReply, to: { redirectUri: string; state: string | null }, error: string, description: string) =>
    reply.redirect(withParams(to.redirectUri, { error, error_description: description, state: to.state, iss: urls.issuer }), 302);

  app.get('/auth/authorize', async (request, reply) => {
    const query = singleValues(request.query);
    if (!query) return showError(reply, 400, 'Invalid request', 'Each parameter may appear only once.');
    return authorize(request, reply, query, false);
  });

  // The consent page's answer: the same request again, from this site, with the session's CSRF token.
  app.post('/auth/authorize', async (request, reply) => {
    const form = singleValues(request.body);
    if (!form || !request.headers['content-type']?.startsWith(FORM)) return showError(reply, 400, 'Invalid request', 'Answer through the consent page.');
    const origin = request.headers.origin;
    const site = request.headers['sec-fetch-site'];
    if ((origin !== undefined && origin !== new URL(urls.publicUrl).origin) || (site !== undefined && site !== 'same-origin')) {
      return showError(reply, 403, 'Refused', "The answer did not come from this server's consent page.");
    }
    const signedIn = await identity.sessions.resolve(readCookie(request, SESSION_COOKIE));
    if (signedIn && !identity.sessions.checkCsrf(signedIn.session, form[CONSENT_FIELDS.csrf])) {
      return showError(reply, 403, 'Refused', "The answer did not come from this server's consent page (its CSRF token is missing or wrong).");
    }
    const { [CONSENT_FIELDS.csrf]: _csrf, [CONSENT_FIELDS.decision]: decision, ...params } = form;
    if (decision !== APPROVE) {
      // Denied: the client hears it, once the request has proved its redirect URI is the client's.
      try {
        const authorization = await identity.oauth.checkAuthorization(params);
        return redirectError(
          reply,
          { redirectUri: authorization.redirectUri, state: authorization.state },
          'access_denied',
          'The user did not allow this application.',
        );
      } catch (error) {
        if (error instanceof AuthorizeRedirectError) return redirectError(reply, error.request, 'access_denied', 'The user did not allow this application.');
        if (error instanceof AuthorizePageError) return showError(reply, 400, 'Invalid authorization request', error.message);
        throw error;
      }
    }
    return authorize(request, reply, params, true);
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

  // RFC 7591: open to anyone (the rate limit counts it like any request); what registers is a
  // public client only, and its users meet the consent page.
  app.post(REGISTRATION_PATH, async (request, reply) => {
    requireJsonBody(request, 'Client metadata is a JSON object (RFC 7591).');
    const metadata = request.body;
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
      throw new LoomError('invalid_client_metadata', 'Send the client metadata as a JSON object.');
    }
    const registered = await identity.clients.registerDynamic(metadata as ClientMetadata);
    return reply.code(201).headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send(registered);
  });

  const json = (path: string, document: () => unknown) =>
    app.get(path, async (_request: FastifyRequest, reply: FastifyReply) => reply.header('cache-control', 'public, max-age=300').send(document()));
  const metadata = () => authorizationServerMetadata(urls, identity.signIn.providerIds());
  json('/.well-known/oauth-authorization-server', metadata);
  json('/.well-known/oauth-authorization-server.json', metadata);
  json('/.well-known/openid-configuration', metadata);
  json(resourceMetadataPath('api'), () => protectedResourceMetadata(urls));
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
