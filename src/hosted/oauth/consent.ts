// The consent page of /auth/authorize, shown for clients that registered themselves: anyone
// may register one with a redirect URI of their own, so a signed-in user's browser must never
// send a code to it unasked. What the page posts back is the authorization request again,
// checked afresh, with the session's CSRF token.
import { SCOPES, isScope } from '../../contracts/auth.ts';
import type { AuthorizationRequest } from '../../core/identity/oauth-server.ts';
import type { UserRecord } from '../../core/identity/records.ts';
import { resourceUri } from '../../core/identity/resources.ts';
import { parseScope } from '../../core/identity/tokens.ts';
import type { ServiceUrls } from '../../core/urls.ts';
import { escapeHtml, page, PAGE_HEADERS } from '../web/pages.ts';

/** The form's own fields; every other field is a parameter of the authorization request. */
export const CONSENT_FIELDS = { csrf: 'csrf_token', decision: 'decision' } as const;
export const APPROVE = 'approve';

/**
 * Page headers whose `form-action` also names where the answer redirects: browsers apply
 * form-action to the redirect that follows a form's submission too.
 */
export function consentHeaders(redirectUri: string): Record<string, string> {
  const target = new URL(redirectUri).origin;
  return {
    ...PAGE_HEADERS,
    'content-security-policy': PAGE_HEADERS['content-security-policy'].replace("form-action 'self'", `form-action 'self' ${target}`),
  };
}

/**
 * The page asking the user whether this client may act for them.
 *
 * @example
 * reply.headers(consentHeaders(request.redirectUri)).send(consentPage({ request, user, csrfToken, params, urls }));
 */
export function consentPage(input: {
  request: AuthorizationRequest;
  user: UserRecord;
  csrfToken: string;
  /** The authorization request's parameters, posted back as they came. */
  params: Record<string, string | undefined>;
  urls: ServiceUrls;
}): string {
  const { request, user, csrfToken, params, urls } = input;
  const destination = new URL(request.redirectUri);
  const where = destination.protocol === 'http:' ? `an app on your computer (${destination.host})` : destination.host;
  const scopes = parseScope(request.scope).filter(isScope);
  const hidden = Object.entries(params)
    .filter(([name, value]) => value !== undefined && name !== CONSENT_FIELDS.csrf && name !== CONSENT_FIELDS.decision)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value!)}">`);
  const body = [
    `<h1>Allow ${escapeHtml(request.client.name)}?</h1>`,
    `<p>An application that calls itself <strong>${escapeHtml(request.client.name)}</strong> registered itself with this server; Loom has not checked who made it.</p>`,
    `<p>It asks to act as <strong>${escapeHtml(user.login)}</strong> at ${escapeHtml(resourceUri(urls, request.resource))}, with these permissions:</p>`,
    `<ul>${scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(SCOPES[scope].meaning)}</li>`).join('')}</ul>`,
    `<p>If you allow it, your browser goes on to ${escapeHtml(where)}. Allow it only if you started this sign-in there.</p>`,
    `<form method="post" action="/auth/authorize">`,
    ...hidden,
    `<input type="hidden" name="${CONSENT_FIELDS.csrf}" value="${escapeHtml(csrfToken)}">`,
    `<button type="submit" name="${CONSENT_FIELDS.decision}" value="${APPROVE}">Allow</button>`,
    `<button type="submit" name="${CONSENT_FIELDS.decision}" value="deny">Deny</button>`,
    `</form>`,
  ];
  return page(`Allow ${request.client.name}?`, body.join('\n'));
}
