// Free text on its way to a log line: an error's message and stack, a warning's details. Request
// lines never need this (they hold only what is known safe, see server-log.ts); text that
// libraries and the platform wrote can hold anything, such as a URL with its query string.

/** URL userinfo: `scheme://user:password@` or `scheme://token@`. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;
/** A query string (`/callback?code=…&state=…`, `/events?T0k3n`): whatever follows a `?` stuck to a word. */
const QUERY = /(?<=\S)\?[^\s"'`<>#]+/g;
/** A fragment with parameters: `#access_token=…`. */
const FRAGMENT = /#[^\s"'`<>]*=[^\s"'`<>]*/g;
/** `Authorization`-style credentials: `Bearer eyJ…`, `Basic dXNlcjpwdw==`. */
const SCHEME_CREDENTIALS = /\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/-]{4,}=*/gi;
/** A JSON Web Token (three base64url parts, the first a JSON object). */
const JWT = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
/** The local API's token (`loom_` and 43 characters). */
const LOOM_TOKEN = /\bloom_[A-Za-z0-9_-]{32,}/g;
/**
 * A value named like a secret, in a form body, JSON, a header or prose: `client_secret=…`,
 * `"code": "…"`, `Cookie: …` (a credential scheme's word is left to SCHEME_CREDENTIALS).
 */
const NAMED_VALUE =
  /\b((?:[a-z0-9]+[_-])*(?:token|secret|password|passwd|pwd|code|state|ticket|verifier|key|cookie|authorization|session|credentials?)s?)("?\s*[:=]\s*"?)(?!\[redacted\]|(?:bearer|basic|token)\s)([^\s"'&,;]{4,})/gi;
/** Characters a terminal acts on, and ones that reorder text, should a log be read on one. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** A cheap test that lets text with none of the above through untouched. */
const SUSPECT = /[:@?#=]|bearer|basic|token|eyJ|loom_|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/i;

const REDACTED = '[redacted]';

/**
 * `text` with what may be a secret replaced by `[redacted]`: URL userinfo, query strings,
 * fragments with parameters, `Bearer`/`Basic` credentials, JWTs, the local API's token, and
 * values named like secrets (token, secret, password, code, state, ticket, verifier, key,
 * cookie, …). Control and bidi characters become `\uXXXX`. A heuristic for text nobody vetted,
 * so it errs toward redacting.
 */
export function redactSecrets(text: string): string {
  if (!SUSPECT.test(text)) return text;
  return text
    .replace(USERINFO, `$1${REDACTED}@`)
    .replace(QUERY, `?${REDACTED}`)
    .replace(FRAGMENT, `#${REDACTED}`)
    .replace(SCHEME_CREDENTIALS, `$1$2${REDACTED}`)
    .replace(JWT, REDACTED)
    .replace(LOOM_TOKEN, REDACTED)
    .replace(NAMED_VALUE, `$1$2${REDACTED}`)
    .replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
