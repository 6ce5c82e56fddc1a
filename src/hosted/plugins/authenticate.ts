// The per-operation authentication table (contracts/auth.ts OperationAuth), enforced in one
// place: bearer tokens are verified, scopes checked, and refusals carry WWW-Authenticate
// with the protected-resource metadata URL (RFC 9728, RFC 6750 §3).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OperationAuth } from '../../contracts/auth.ts';
import { LoomError } from '../../core/errors.ts';
import { resourceMetadataPath, type ResourceId } from '../../core/identity/resources.ts';
import type { Principal, TokenService } from '../../core/identity/tokens.ts';
import type { ServiceUrls } from '../../core/urls.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    basicAuth?: { username: string; password: string };
  }
}

/** RFC 6750 §2.3 is not supported: a token in the URL ends up in logs and Referer headers. */
export function refuseQueryToken(request: FastifyRequest): void {
  if (typeof request.query === 'object' && request.query && 'access_token' in request.query) {
    throw new LoomError('invalid_request', 'Bearer tokens are not accepted in the query string.', 'Send Authorization: Bearer <token>.');
  }
}

/** Where a check stands: the protected resource whose tokens it takes. */
export interface AuthenticationTarget {
  /** Tokens must name it in `aud`; challenges point at its metadata. */
  resource: ResourceId;
  /** The scope a 401 without credentials asks for (RFC 6750 §3), when the resource names one. */
  challengeScope?: string;
}

/**
 * The check an operation of `auth` runs on a request: its credentials verified (when it takes
 * tokens) and then judged against the operation's rule. Sets `request.principal`.
 *
 * @example
 * await authenticate({ oauth2: ['read:tab'], bearer: true }, tokens, urls)(request, reply);
 */
export function authenticate(auth: OperationAuth, tokens: TokenService, urls: ServiceUrls, target: AuthenticationTarget = { resource: 'api' }) {
  const acceptsTokens = Boolean(auth.oauth2?.length || auth.bearer);
  const verify = verifyBearer(tokens, urls, target);
  const admit = admitPrincipal(auth, urls, target);

  return async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization;
    if (header === undefined) return admit(undefined, request, reply);
    const [scheme = '', ...rest] = header.trim().split(/\s+/);
    if (auth.clientBasic && scheme.toLowerCase() === 'basic') {
      try {
        request.basicAuth = parseBasic(rest.join(' '));
      } catch (error) {
        // RFC 6749 §5.2: a failed attempt at Basic client authentication answers with its challenge.
        reply.header('www-authenticate', 'Basic realm="loom"');
        throw error;
      }
      return;
    }
    if (!acceptsTokens) return; // credentials are neither needed nor used here
    admit(await verify(request, reply), request, reply);
  };
}

/**
 * Verifies the bearer token a request sent, for `target`'s resource; undefined when it sent no
 * Authorization header. A header that is not `Bearer <token>`, or a token that is not valid
 * (expired, revoked, for another resource), is a 401 with the resource's challenge. Says nothing
 * of what the token may do: that is `admitPrincipal`'s.
 *
 * @example
 * request.principal = await verifyBearer(tokens, urls, { resource: 'mcp' })(request, reply);
 */
export function verifyBearer(tokens: TokenService, urls: ServiceUrls, target: AuthenticationTarget) {
  const challenge = challenger(urls, target);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<Principal | undefined> => {
    const header = request.headers.authorization;
    if (header === undefined) return undefined;
    const [scheme = '', ...rest] = header.trim().split(/\s+/);
    const credentials = rest.join(' ');
    if (scheme.toLowerCase() !== 'bearer' || !credentials || rest.length !== 1) {
      challenge(reply, { error: 'invalid_request' });
      throw new LoomError('invalid_token', 'The Authorization header must be "Bearer <token>".');
    }
    try {
      return await tokens.verify(credentials, target.resource);
    } catch (error) {
      if (error instanceof LoomError && error.code === 'invalid_token') challenge(reply, { error: 'invalid_token', error_description: error.message });
      throw error;
    }
  };
}

/**
 * Judges a caller already verified (`principal`, or undefined for none) against an operation's
 * rule, and sets `request.principal` (to undefined when the caller is served as anonymous):
 * - no credentials where the operation needs some: a 401 asking for `target.challengeScope`;
 * - a valid credential the operation does not take (an API key where it lists none, a token
 *   without one of its scopes): where anyone may call the operation, the caller is served as
 *   anonymous, as if it had sent nothing (a credential is never a reason to refuse what needs
 *   none); elsewhere an API key is a 401 and a token a 403 insufficient_scope naming the scopes.
 *
 * @example
 * admitPrincipal(tool.auth, urls, { resource: 'mcp' })(request.principal, request, reply);
 */
export function admitPrincipal(auth: OperationAuth, urls: ServiceUrls, target: AuthenticationTarget) {
  const challenge = challenger(urls, target);
  const needed = auth.oauth2 ?? [];
  return (principal: Principal | undefined, request: FastifyRequest, reply: FastifyReply): void => {
    if (principal === undefined) {
      request.principal = undefined;
      if (auth.anonymous) return;
      challenge(reply, target.challengeScope ? { scope: target.challengeScope } : {});
      throw new LoomError('unauthorized', 'This operation needs a bearer token.', 'Sign in with `loom login`, or create an API key in the dashboard.');
    }
    const isApiKey = principal.kind === 'api_key';
    // A key or a token alike is taken only with one of the operation's scopes (a key carries scopes too).
    const scoped = !needed.length || needed.some((scope) => principal.scopes.has(scope));
    const taken = (isApiKey ? Boolean(auth.bearer) : true) && scoped;
    if (!taken && auth.anonymous) {
      request.principal = undefined;
      return;
    }
    if (isApiKey && !auth.bearer) {
      challenge(reply, { error: 'invalid_token', error_description: 'API keys are not accepted here' });
      throw new LoomError('invalid_token', 'API keys are not accepted by this operation.', 'Use an OAuth access token.');
    }
    if (!taken) {
      const scope = needed.join(' ');
      challenge(reply, { error: 'insufficient_scope', scope });
      throw new LoomError('insufficient_scope', `The token lacks the scope ${scope}.`, `Ask for ${scope} when signing in.`);
    }
    request.principal = principal;
  };
}

/** Sets `WWW-Authenticate: Bearer …` pointing at the resource's metadata (RFC 9728 §5.1), with `extra` parameters. */
function challenger(urls: ServiceUrls, target: AuthenticationTarget) {
  return (reply: FastifyReply, extra: Record<string, string> = {}) => {
    const params = { realm: 'loom', ...extra, resource_metadata: urls.publicUrl + resourceMetadataPath(target.resource) };
    reply.header(
      'www-authenticate',
      `Bearer ${Object.entries(params)
        .map(([k, v]) => `${k}="${v}"`)
        .join(', ')}`,
    );
  };
}

function parseBasic(credentials: string): { username: string; password: string } {
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new LoomError('invalid_client', 'Malformed Basic credentials.');
  // RFC 6749 §2.3.1: client id and secret are form-urlencoded before Basic encoding.
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      throw new LoomError('invalid_client', 'Malformed Basic credentials.');
    }
  };
  return { username: decode(decoded.slice(0, colon)), password: decode(decoded.slice(colon + 1)) };
}
