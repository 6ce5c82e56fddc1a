// Random tokens, their hashes and PKCE. Tokens that grant something are stored only as hashes.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A high-entropy token, base64url (32 bytes → 43 characters). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256, base64url: enough for high-entropy tokens (no salt or stretching needed). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** The S256 PKCE challenge of a verifier (RFC 7636 §4.2). */
export function pkceChallenge(verifier: string): string {
  return hashToken(verifier);
}

/** RFC 7636: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
export function isValidVerifier(verifier: string): boolean {
  return /^[A-Za-z0-9\-._~]{43,128}$/.test(verifier);
}

/** Compares two strings in time that does not depend on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
