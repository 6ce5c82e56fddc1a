// How the window (the page `loom serve` serves at `/`) signs in without the API token ever
// appearing in a URL, a log or the page's source (docs/security.md, "The window's sign-in"):
// `loom serve --open` (or `loom open`, asking the running app) mints a one-time code and opens
// `/?code=…`; the page trades the code for a session, kept in an HttpOnly, SameSite=Strict
// cookie, and a CSRF value it sends back in a header with every state-changing request. Codes
// live in memory only; sessions are kept hashed, and, given a file, saved there (in the data dir,
// owner-only) so that a restarted app still knows them. Each is bound to the token in force:
// rotating the token ends every session, as it closes the event sockets the old token opened.
import fs from 'node:fs';
import { writeFileAtomically } from '../../core/files/write-atomically.ts';
import type { Clock } from '../../core/clock.ts';
import { constantTimeEqual, hashToken, randomToken } from '../../core/identity/secrets.ts';

/** A one-time code works once, within this many seconds of being minted. */
export const SIGN_IN_CODE_SECONDS = 60;
/** A session ends this long after it started, whatever happens. */
export const WINDOW_SESSION_SECONDS = 7 * 24 * 3600;
/** Sessions kept at most (the oldest goes first): a loop of sign-ins cannot grow memory. */
const MAX_SESSIONS = 100;
const MAX_CODES = 100;

/** The header that carries a session's CSRF value on state-changing requests. */
export const CSRF_HEADER = 'x-loom-csrf';

/**
 * The session cookie's name. Cookies are scoped to a host, not a port: with the port in its
 * name, two local servers (or the hosted dashboard) on 127.0.0.1 never overwrite each other's.
 */
export function windowCookieName(port: number): string {
  return `loom_window_${port}`;
}

interface Session {
  csrf: string;
  expires: number;
  /** Fingerprint of the token in force when the session started. */
  grantedBy: string;
  /** Started by a one-time link, not with the token: the user at the keyboard (see sessionFor). */
  viaLink: boolean;
}

/** A live session, as the guard and the window's routes see it. */
export interface WindowSessionInfo {
  csrf: string;
  /**
   * Whether it was started by a one-time sign-in link. Only such a session may call a route
   * whose access is `window` (what runs code): a link is minted by the server itself and opened
   * in the user's browser, whereas the token can be traded for a session by anything that holds it.
   */
  viaLink: boolean;
}

/** The file sessions are saved in, in the data dir: `window-sessions.json`. */
export const SESSIONS_FILE = 'window-sessions.json';

export class WindowSignIn {
  /** By the code's hash: when it expires, and the token it was minted under. */
  private readonly codes = new Map<string, { expires: number; grantedBy: string }>();
  /** By the session id's hash. */
  private readonly sessions = new Map<string, Session>();

  private readonly file: string | undefined;
  private readonly linkKey: string | undefined;

  /**
   * `options.file`: where sessions are saved (`<dataDir>/window-sessions.json`), read back on
   * start, so that a window stays signed in across a restart; without it, sessions live in memory
   * only. `options.linkKey`: the secret of the data dir (link-key.ts) that a request for a
   * sign-in link must carry; without it, no link is given on request.
   */
  constructor(
    private readonly clock: Clock,
    private readonly token: () => string,
    options: { file?: string; linkKey?: string } = {},
  ) {
    this.file = options.file;
    this.linkKey = options.linkKey;
    if (this.file) for (const [key, session] of readSessions(this.file, clock.now())) this.sessions.set(key, session);
    trim(this.sessions, MAX_SESSIONS);
  }

  /** Whether `key` is the data dir's link key: the asker can read the user's data dir (`loom open`). */
  isLinkKey(key: string): boolean {
    return this.linkKey !== undefined && constantTimeEqual(key, this.linkKey);
  }

  /** A one-time code for the link `loom serve --open` opens. */
  mintCode(): string {
    this.sweep();
    const code = randomToken(24);
    this.codes.set(hashToken(code), { expires: this.clock.now() + SIGN_IN_CODE_SECONDS * 1000, grantedBy: hashToken(this.token()) });
    trim(this.codes, MAX_CODES);
    return code;
  }

  /** True once per valid code, while the token it was minted under is in force. */
  redeemCode(code: string): boolean {
    const key = hashToken(code);
    const entry = this.codes.get(key);
    this.codes.delete(key);
    return entry !== undefined && entry.expires > this.clock.now() && constantTimeEqual(entry.grantedBy, hashToken(this.token()));
  }

  /** Whether `token` is the API token (the sign-in form's way in, for a window opened without a link). */
  isToken(token: string): boolean {
    return constantTimeEqual(token, this.token());
  }

  /** A new session: its id goes into the cookie, its CSRF value to the page. `viaLink`: started by a one-time code. */
  startSession(options: { viaLink: boolean }): { id: string; csrf: string } {
    this.sweep();
    const id = randomToken(32);
    const csrf = randomToken(24);
    this.sessions.set(hashToken(id), {
      csrf,
      expires: this.clock.now() + WINDOW_SESSION_SECONDS * 1000,
      grantedBy: hashToken(this.token()),
      viaLink: options.viaLink,
    });
    trim(this.sessions, MAX_SESSIONS);
    this.save();
    return { id, csrf };
  }

  /** The live session with this id (from the cookie); undefined when unknown, expired or from a rotated token. */
  session(id: string): WindowSessionInfo | undefined {
    const entry = this.sessions.get(hashToken(id));
    if (!entry) return undefined;
    if (entry.expires <= this.clock.now() || !constantTimeEqual(entry.grantedBy, hashToken(this.token()))) {
      this.sessions.delete(hashToken(id));
      this.save();
      return undefined;
    }
    return { csrf: entry.csrf, viaLink: entry.viaLink };
  }

  endSession(id: string): void {
    if (this.sessions.delete(hashToken(id))) this.save();
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [key, { expires }] of this.codes) if (expires <= now) this.codes.delete(key);
    for (const [key, { expires }] of this.sessions) if (expires <= now) this.sessions.delete(key);
  }

  /**
   * Writes the sessions to the file (atomically, owner-only). A session id is never in it, only
   * its hash, so the file does not sign anyone in; a write that fails leaves the sessions working
   * until the next restart.
   */
  private save(): void {
    if (!this.file) return;
    const saved: SavedSession[] = [...this.sessions].map(([key, session]) => ({ key, ...session }));
    try {
      writeFileAtomically(this.file, `${JSON.stringify({ sessions: saved })}\n`, 0o600);
    } catch {
      // The data dir is not writable: sessions stay in memory.
    }
  }
}

interface SavedSession extends Session {
  /** The hash of the session's id. */
  key: string;
}

/** The live sessions of a saved file; nothing when it is missing or not as written (it is rewritten on the next sign-in). */
function readSessions(file: string, now: number): [string, Session][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const list = (parsed as { sessions?: unknown } | null)?.sessions;
  if (!Array.isArray(list)) return [];
  const found: [string, Session][] = [];
  for (const entry of list.slice(0, MAX_SESSIONS) as Partial<SavedSession>[]) {
    const { key, csrf, expires, grantedBy, viaLink } = entry ?? {};
    if (typeof key !== 'string' || typeof csrf !== 'string' || typeof expires !== 'number' || typeof grantedBy !== 'string' || typeof viaLink !== 'boolean')
      continue;
    if (expires > now && expires <= now + WINDOW_SESSION_SECONDS * 1000) found.push([key, { csrf, expires, grantedBy, viaLink }]);
  }
  return found;
}

/** Drops the oldest entries (a Map iterates in insertion order) beyond `max`. */
function trim(map: Map<string, unknown>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) return;
    map.delete(key);
  }
}

/** The value of cookie `name` in a Cookie header; undefined when absent or not shaped like our ids. */
export function readCookie(header: string | undefined, name: string): string | undefined {
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

/** The Set-Cookie value of a session (or, for null, the one that clears it). No Max-Age: it ends with the browser. */
export function sessionCookie(port: number, id: string | null): string {
  const attributes = 'Path=/; HttpOnly; SameSite=Strict';
  return id === null ? `${windowCookieName(port)}=; ${attributes}; Max-Age=0` : `${windowCookieName(port)}=${id}; ${attributes}`;
}
