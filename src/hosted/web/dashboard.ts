// The dashboard: a signed-in user sees who they are and manages their API keys (create, shown
// once; list; revoke). Server-rendered HTML plus one small script; the script talks to the
// JSON endpoints under /dashboard/api, which are the page's own and not part of the public
// API (not in the operation table, nor in OpenAPI).
//
// Every endpoint needs the session cookie (401 otherwise). Every write also needs the
// session's CSRF token in X-CSRF-Token and, when the browser says where it comes from, the
// server's own origin (403 `forbidden` otherwise).
import fs from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_PREFIX } from '../../contracts/versioning.ts';
import { systemClock, type Clock } from '../../core/clock.ts';
import { LoomError } from '../../core/errors.ts';
import { DEFAULT_KEY_DAYS, MAX_KEY_DAYS } from '../../core/identity/api-keys.ts';
import type { Identity } from '../../core/identity/index.ts';
import type { ApiKeyRecord, SessionRecord, UserRecord } from '../../core/identity/records.ts';
import { clearSessionCookie, readCookie, SESSION_COOKIE } from './cookies.ts';
import { escapeHtml, page, PAGE_HEADERS } from './pages.ts';

export const DASHBOARD_PATH = '/dashboard';
export { DEFAULT_KEY_DAYS };
export const CSRF_HEADER = 'x-csrf-token';

export type KeyStatus = 'active' | 'revoked' | 'expired';

/** A key as the dashboard lists it: never the key itself, which is shown once at creation. */
export interface KeyView {
  id: string;
  name: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  status: KeyStatus;
}

interface SignedIn {
  id: string;
  session: SessionRecord;
  user: UserRecord;
}

const ASSETS = {
  'style.css': { type: 'text/css; charset=utf-8', body: readAsset('style.css') },
  'dashboard.js': { type: 'text/javascript; charset=utf-8', body: readAsset('dashboard.js') },
  'icon.svg': { type: 'image/svg+xml', body: readAsset('icon.svg') },
} as const;

const JSON_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

const createKeyBody = {
  type: 'object',
  required: ['name', 'expiresInDays'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    expiresInDays: { type: 'integer', minimum: 1, maximum: MAX_KEY_DAYS },
  },
} as const;

const keyParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', format: 'uuid' } },
} as const;

/**
 * The dashboard at `/dashboard`: its page and assets, and the JSON endpoints it calls with the
 * session cookie (API keys listed, created, revoked; sign out), every write checked for the
 * session's CSRF token and its own origin.
 */
export function registerDashboard(app: FastifyInstance, identity: Identity, clock: Clock = systemClock): void {
  const signedInBy = new WeakMap<FastifyRequest, SignedIn>();
  const ownOrigin = () => new URL(identity.urls.publicUrl).origin;

  /** onRequest of every JSON endpoint: the session, and for writes the origin and CSRF token. */
  const guard = async (request: FastifyRequest) => {
    const id = readCookie(request, SESSION_COOKIE);
    const resolved = await identity.sessions.resolve(id);
    if (!id || !resolved) {
      throw new LoomError('unauthorized', 'Sign in to the dashboard first.', `Open ${DASHBOARD_PATH} in a browser and sign in.`);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== ownOrigin()) {
        throw new LoomError(
          'forbidden',
          'Requests from another origin are refused.',
          `The dashboard must be opened at ${ownOrigin()}: the server's publicUrl ("publicUrl" in the config file, config.json in the config folder or LOOM_CONFIG; or LOOM_PUBLIC_URL).`,
        );
      }
      const site = request.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin' && site !== 'none') {
        throw new LoomError('forbidden', 'Requests from another site are refused.');
      }
      const token = request.headers[CSRF_HEADER];
      if (!identity.sessions.checkCsrf(resolved.session, typeof token === 'string' ? token : undefined)) {
        throw new LoomError('forbidden', 'The CSRF token is missing or wrong.', 'Reload the dashboard and try again.');
      }
    }
    signedInBy.set(request, { id, ...resolved });
  };
  const signedIn = (request: FastifyRequest): SignedIn => signedInBy.get(request)!;
  const view = (record: ApiKeyRecord) => keyView(record, clock.now());

  app.get(DASHBOARD_PATH, async (request, reply) => {
    const id = readCookie(request, SESSION_COOKIE);
    const resolved = await identity.sessions.resolve(id);
    reply.headers(PAGE_HEADERS);
    if (!resolved) {
      // A cookie that no longer names a session (expired, signed out elsewhere) is dropped.
      if (request.headers.cookie?.includes(`${SESSION_COOKIE}=`)) clearSessionCookie(reply, identity.urls.publicUrl);
      return reply.send(signInPage(identity.signIn.providerIds()));
    }
    const keys = (await identity.apiKeys.list(resolved.user.id)).map(view);
    return reply.send(dashboardPage(resolved.user, resolved.session.csrfToken, keys));
  });

  for (const [name, asset] of Object.entries(ASSETS)) {
    app.get(`${DASHBOARD_PATH}/${name}`, async (_request, reply) =>
      reply.type(asset.type).headers({ 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' }).send(asset.body),
    );
  }

  app.get(`${DASHBOARD_PATH}/api/keys`, { onRequest: guard }, async (request, reply) => {
    const keys = await identity.apiKeys.list(signedIn(request).user.id);
    return reply.headers(JSON_HEADERS).send({ keys: keys.map(view) });
  });

  app.post<{ Body: { name: string; expiresInDays: number } }>(
    `${DASHBOARD_PATH}/api/keys`,
    { onRequest: guard, schema: { body: createKeyBody } },
    async (request, reply) => {
      const { key, record } = await identity.apiKeys.create(signedIn(request).user.id, request.body);
      return reply.code(201).headers(JSON_HEADERS).send({ key, id: record.id, name: record.name, createdAt: record.createdAt, expiresAt: record.expiresAt });
    },
  );

  app.delete<{ Params: { id: string } }>(`${DASHBOARD_PATH}/api/keys/:id`, { onRequest: guard, schema: { params: keyParams } }, async (request, reply) => {
    await identity.apiKeys.revoke(signedIn(request).user.id, request.params.id);
    return reply.code(204).headers(JSON_HEADERS).send();
  });

  app.post(`${DASHBOARD_PATH}/logout`, { onRequest: guard }, async (request, reply) => {
    await identity.sessions.destroy(signedIn(request).id);
    clearSessionCookie(reply, identity.urls.publicUrl);
    return reply.code(204).headers(JSON_HEADERS).send();
  });
}

export function keyView(record: ApiKeyRecord, now: number): KeyView {
  const status: KeyStatus = record.revokedAt ? 'revoked' : Date.parse(record.expiresAt) <= now ? 'expired' : 'active';
  return {
    id: record.id,
    name: record.name,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    revokedAt: record.revokedAt,
    status,
  };
}

/** `2026-01-01 09:30 UTC`; the script formats dates the same way. */
export function formatDate(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

const PROVIDER_LABELS: Record<string, string> = { codehost: 'Sign in with your code host', oidc: 'Sign in with single sign-on' };

function signInPage(providers: string[]): string {
  const links = providers.map((provider, index) => {
    const url = `${API_PREFIX}/auth/${provider}?source=web&return_to=${DASHBOARD_PATH}`;
    const id = index === 0 ? 'sign-in' : `sign-in-${provider}`;
    return `<p><a class="button${index === 0 ? ' primary' : ''}" id="${id}" href="${escapeHtml(url)}">${escapeHtml(PROVIDER_LABELS[provider] ?? provider)}</a></p>`;
  });
  const action = links.length
    ? links.join('\n')
    : `<p class="notice" id="no-provider">No sign-in provider is configured on this server. The operator sets
<code>LOOM_CODEHOST_CLIENT_ID</code> and <code>LOOM_CODEHOST_CLIENT_SECRET</code> (or <code>LOOM_OIDC_*</code>) to enable it.</p>`;
  return page(
    'Sign in',
    `<header class="top"><span class="brand">Loom</span></header>
<section class="card narrow">
<h1>Loom dashboard</h1>
<p>Sign in to create and revoke the API keys that scripts and tools use to call the Loom API.</p>
${action}
</section>`,
  );
}

function dashboardPage(user: UserRecord, csrfToken: string, keys: KeyView[]): string {
  const account = [
    ['Login', user.login],
    ['Name', user.name ?? '—'],
    ['Email', user.email ?? '—'],
  ]
    .map(([label, value]) => `<dt>${escapeHtml(label!)}</dt><dd data-field="${escapeHtml(label!.toLowerCase())}">${escapeHtml(value!)}</dd>`)
    .join('\n');
  // The script reads the CSRF token from the meta tag; it is a file of its own (no inline script).
  const head = `<meta name="csrf-token" content="${escapeHtml(csrfToken)}">\n<script src="${DASHBOARD_PATH}/dashboard.js" defer></script>\n`;
  return page(
    'Dashboard',
    `<header class="top">
<span class="brand">Loom</span>
<span class="who">Signed in as <strong id="user-login">${escapeHtml(user.login)}</strong></span>
<button type="button" id="sign-out" class="secondary">Sign out</button>
</header>
<noscript><p class="notice">The dashboard needs JavaScript to create and revoke keys.</p></noscript>
<section class="card" id="account" aria-labelledby="account-title">
<h2 id="account-title">Account</h2>
<dl class="account">
${account}
</dl>
</section>
<section class="card" id="api-keys" aria-labelledby="keys-title">
<h2 id="keys-title">API keys</h2>
<p class="muted">A key acts for you on the Loom API: send it as <code>Authorization: Bearer &lt;key&gt;</code>.
It expires after the days you choose, and revoking it stops it at once.</p>
<form id="create-key" class="create" autocomplete="off">
<label>Name <input name="name" id="key-name" required maxlength="100" placeholder="e.g. laptop, ci"></label>
<label>Expires in (days) <input name="expiresInDays" id="key-days" type="number" required min="1" max="${MAX_KEY_DAYS}" step="1" value="${DEFAULT_KEY_DAYS}"></label>
<button type="submit" class="primary">Create key</button>
</form>
<p id="message" role="status" aria-live="polite" hidden></p>
<div id="new-key" class="new-key" hidden>
<p class="warning"><strong>Copy your new key <q id="new-key-name"></q> now: it is shown only once.</strong> Loom does not keep it and cannot show it again; if you lose it, revoke it and create another.</p>
<div class="copy-row">
<input id="new-key-value" readonly aria-label="New API key" spellcheck="false">
<button type="button" id="copy-key" class="secondary">Copy</button>
</div>
</div>
<table id="keys">
<thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${keys.map(keyRow).join('\n')}
</tbody>
</table>
<p id="no-keys" class="muted"${keys.length ? ' hidden' : ''}>No keys yet.</p>
</section>`,
    head,
  );
}

function keyRow(key: KeyView): string {
  const action =
    key.status === 'active'
      ? `<button type="button" class="revoke danger" data-id="${escapeHtml(key.id)}" data-name="${escapeHtml(key.name)}">Revoke</button>`
      : '';
  return `<tr data-id="${escapeHtml(key.id)}" data-status="${key.status}">
<td class="name">${escapeHtml(key.name)}</td>
<td><time datetime="${escapeHtml(key.createdAt)}">${escapeHtml(formatDate(key.createdAt))}</time></td>
<td><time datetime="${escapeHtml(key.expiresAt)}">${escapeHtml(formatDate(key.expiresAt))}</time></td>
<td><span class="status status-${key.status}">${key.status}</span></td>
<td class="actions">${action}</td>
</tr>`;
}

function readAsset(name: string): string {
  return fs.readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
}
