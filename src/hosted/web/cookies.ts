// The dashboard's cookies, all HttpOnly (no script reads them), SameSite=Lax (not sent on
// cross-site subrequests; sent on the top-level navigation back from the provider), Secure
// whenever the public URL is https:
// - the session cookie;
// - the sign-in cookie: the browser's secret of a web sign-in under way, which the provider's
//   callback needs to find that sign-in (core/identity/sign-in.ts). Set by the start, cleared
//   by the callback that signs in. On https its name takes the __Host- prefix, which makes
//   browsers refuse it unless it is Secure, host-only and for Path=/: a sibling subdomain
//   cannot plant its own and so cannot slip a sign-in of its choosing into this browser.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_SECONDS } from '../../core/identity/sessions.ts';
import { STATE_LIFETIME_SECONDS } from '../../core/identity/sign-in.ts';

export const SESSION_COOKIE = 'loom_session';
const SIGN_IN_COOKIE = 'loom_sign_in';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{1,200}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export function setSessionCookie(reply: FastifyReply, value: string, publicUrl: string): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_SECONDS}${secure(publicUrl)}`);
}

export function clearSessionCookie(reply: FastifyReply, publicUrl: string): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure(publicUrl)}`);
}

/** `__Host-loom_sign_in` on https, `loom_sign_in` on http (where the prefix would make browsers drop it). */
export function signInCookieName(publicUrl: string): string {
  return isHttps(publicUrl) ? `__Host-${SIGN_IN_COOKIE}` : SIGN_IN_COOKIE;
}

/** The Set-Cookie value that gives a browser its sign-in secret, for as long as the sign-in may take. */
export function signInCookie(secret: string, publicUrl: string): string {
  return `${signInCookieName(publicUrl)}=${secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${STATE_LIFETIME_SECONDS}${secure(publicUrl)}`;
}

export function clearSignInCookie(reply: FastifyReply, publicUrl: string): void {
  reply.header('set-cookie', `${signInCookieName(publicUrl)}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure(publicUrl)}`);
}

function isHttps(publicUrl: string): boolean {
  return publicUrl.startsWith('https:');
}

function secure(publicUrl: string): string {
  return isHttps(publicUrl) ? '; Secure' : '';
}
