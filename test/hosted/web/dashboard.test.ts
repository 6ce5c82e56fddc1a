// The dashboard over HTTP: sign in through the code host (source=web), the page, and the
// JSON endpoints its script uses to create, list and revoke API keys — with the session
// cookie, the CSRF token and the same-origin check that guard every write.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeCodeHost, type CodeHostUser, type FakeCodeHost } from '../../support/codehost.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';

const DAY = 86_400_000;

interface Session {
  cookie: string;
  csrf: string;
  /** The Set-Cookie header the callback sent. */
  setCookie: string;
}

/** Follows the redirects a browser would: start → code host → our callback → /dashboard. */
async function signIn(hosted: TestHosted, codehost: FakeCodeHost, as?: CodeHostUser): Promise<Session> {
  if (as) codehost.signInAs(as);
  const start = await fetch(`${hosted.url}/api/v1/auth/codehost?source=web&return_to=/dashboard`, { redirect: 'manual' });
  assert.equal(start.status, 302, await start.text());
  const atCodeHost = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  assert.equal(atCodeHost.status, 302);
  // The callback is registered at the public URL; the server itself listens at hosted.url.
  const callbackUrl = new URL(atCodeHost.headers.get('location')!);
  // The browser brings back the sign-in cookie the start gave it.
  const signInCookie = start.headers.getSetCookie()[0]!.split(';')[0]!;
  const callback = await fetch(hosted.url + callbackUrl.pathname + callbackUrl.search, { redirect: 'manual', headers: { cookie: signInCookie } });
  assert.equal(callback.status, 302, await callback.text());
  assert.equal(callback.headers.get('location'), '/dashboard');
  const [setCookie] = callback.headers.getSetCookie();
  assert.ok(setCookie, 'the callback sets the session cookie');
  const cookie = setCookie.split(';')[0]!;
  assert.match(cookie, /^loom_session=[A-Za-z0-9_-]+$/);
  const page = await fetch(`${hosted.url}/dashboard`, { headers: { cookie } });
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())?.[1];
  assert.ok(csrf, 'the page carries the CSRF token');
  return { cookie, csrf, setCookie };
}

function api(hosted: TestHosted, session: Partial<Session> | undefined, method: string, path: string, body?: unknown, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { origin: hosted.url, ...extra };
  if (session?.cookie) headers.cookie = session.cookie;
  if (session?.csrf) headers['x-csrf-token'] = session.csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (const [name, value] of Object.entries(headers)) if (value === '') delete headers[name];
  return fetch(`${hosted.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function createKey(hosted: TestHosted, session: Session, name = 'laptop', expiresInDays = 90) {
  const res = await api(hosted, session, 'POST', '/dashboard/api/keys', { name, expiresInDays });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as { key: string; id: string; name: string; createdAt: string; expiresAt: string };
}

async function listKeys(hosted: TestHosted, session: Session) {
  const res = await api(hosted, session, 'GET', '/dashboard/api/keys');
  assert.equal(res.status, 200);
  return (await res.json()) as { keys: Array<Record<string, unknown>> };
}

function download(hosted: TestHosted, key: string) {
  return fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: `Bearer ${key}` } });
}

async function assertError(res: Response, status: number, code: string) {
  const text = await res.text();
  assert.equal(res.status, status, text);
  const body = JSON.parse(text);
  assert.equal(body.error, code, text);
  assert.equal(typeof body.message, 'string');
  return body as { hint?: string };
}

const ADA: CodeHostUser = { id: 1001, login: 'ada', name: 'Ada Lovelace', email: 'ada@example.com', verified: true };
const GRACE: CodeHostUser = { id: 1002, login: 'grace', name: 'Grace <b>Hopper</b>', email: 'grace@example.com', verified: true };

describe('dashboard', () => {
  let hosted: TestHosted;
  let codehost: FakeCodeHost;
  let ada: Session;
  before(async () => {
    codehost = await startFakeCodeHost();
    hosted = await startTestHosted({ codehost: { url: codehost.url, apiUrl: codehost.apiUrl } });
    ada = await signIn(hosted, codehost, ADA);
  });
  after(async () => {
    await hosted.close();
    await codehost.close();
  });

  describe('sign-in and the page', () => {
    it('sets the session cookie HttpOnly, SameSite=Lax, Path=/, with a lifetime, not Secure on http', () => {
      const attributes = ada.setCookie
        .split(';')
        .slice(1)
        .map((a) => a.trim());
      assert.ok(attributes.includes('HttpOnly'));
      assert.ok(attributes.includes('SameSite=Lax'));
      assert.ok(attributes.includes('Path=/'));
      assert.ok(attributes.includes(`Max-Age=${8 * 3600}`));
      assert.ok(!attributes.includes('Secure'));
    });

    it('shows the user, the key form and the sign-out button, with the page headers', async () => {
      const res = await fetch(`${hosted.url}/dashboard`, { headers: { cookie: ada.cookie } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.match(res.headers.get('content-security-policy')!, /script-src 'self';/);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const html = await res.text();
      assert.match(html, /<strong id="user-login">ada<\/strong>/);
      assert.match(html, /<dd data-field="name">Ada Lovelace<\/dd>/);
      assert.match(html, /<dd data-field="email">ada@example\.com<\/dd>/);
      assert.match(html, /<h2 id="keys-title">API keys<\/h2>/);
      assert.match(html, /<form id="create-key"/);
      assert.match(html, /name="expiresInDays"[^>]*min="1" max="365"[^>]*value="90"/);
      assert.match(html, /<button type="button" id="sign-out"[^>]*>Sign out<\/button>/);
      assert.match(html, /<script src="\/dashboard\/dashboard\.js" defer><\/script>/);
      assert.equal(html.match(/<script/g)!.length, 1, 'no inline script');
    });

    it('serves its script and style sheet', async () => {
      const js = await fetch(`${hosted.url}/dashboard/dashboard.js`);
      assert.equal(js.status, 200);
      assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
      assert.match(await js.text(), /x-csrf-token/);
      const css = await fetch(`${hosted.url}/dashboard/style.css`);
      assert.equal(css.status, 200);
      assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    });

    it('escapes what the user and key names contain', async () => {
      const grace = await signIn(hosted, codehost, GRACE);
      await createKey(hosted, grace, '<img src=x onerror=alert(1)>');
      const html = await (await fetch(`${hosted.url}/dashboard`, { headers: { cookie: grace.cookie } })).text();
      assert.match(html, /Grace &lt;b&gt;Hopper&lt;\/b&gt;/);
      assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
      assert.doesNotMatch(html, /<img|<b>/);
    });

    it('offers a sign-in link without a session, and drops a stale cookie', async () => {
      const res = await fetch(`${hosted.url}/dashboard`);
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(
        html,
        /<a class="button primary" id="sign-in" href="\/api\/v1\/auth\/codehost\?source=web&amp;return_to=\/dashboard">Sign in with your code host<\/a>/,
      );
      assert.doesNotMatch(html, /csrf-token|id="api-keys"|<script/);

      const stale = await fetch(`${hosted.url}/dashboard`, { headers: { cookie: 'loom_session=not-a-session' } });
      assert.match(await stale.text(), /Sign in with your code host/);
      assert.match(stale.headers.get('set-cookie')!, /^loom_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0$/);
    });

    it('says so when no sign-in provider is configured', async () => {
      const bare = await startTestHosted();
      try {
        const html = await (await fetch(`${bare.url}/dashboard`)).text();
        assert.match(html, /No sign-in provider is configured/);
        assert.doesNotMatch(html, /Sign in with your code host/);
      } finally {
        await bare.close();
      }
    });
  });

  describe('API keys', () => {
    it('creates a key (201), a JWT shown once, that works on a bearerAuth operation', async () => {
      const res = await api(hosted, ada, 'POST', '/dashboard/api/keys', { name: 'ci', expiresInDays: 90 });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const created = await res.json();
      assert.deepEqual(Object.keys(created).sort(), ['createdAt', 'expiresAt', 'id', 'key', 'name']);
      assert.equal(created.name, 'ci');
      assert.equal(created.createdAt, new Date(hosted.clock.now()).toISOString());
      assert.equal(created.expiresAt, new Date(hosted.clock.now() + 90 * DAY).toISOString());
      const [header, payload, signature] = created.key.split('.');
      assert.ok(signature, 'three parts');
      assert.equal(JSON.parse(Buffer.from(header, 'base64url').toString()).typ, 'loom-api-key+jwt');
      assert.equal(JSON.parse(Buffer.from(payload, 'base64url').toString()).jti, created.id);

      assert.equal((await download(hosted, created.key)).status, 200);

      // Listed, but never again with the key itself — not in the list, not in the page.
      const { keys } = await listKeys(hosted, ada);
      const listed = keys.find((k) => k.id === created.id)!;
      assert.deepEqual(listed, { id: created.id, name: 'ci', createdAt: created.createdAt, expiresAt: created.expiresAt, revokedAt: null, status: 'active' });
      const listText = JSON.stringify(keys);
      const html = await (await fetch(`${hosted.url}/dashboard`, { headers: { cookie: ada.cookie } })).text();
      for (const text of [listText, html]) {
        assert.ok(!text.includes(created.key) && !text.includes(signature), 'the key is shown once only');
      }
      assert.match(html, new RegExp(`<tr data-id="${created.id}" data-status="active">`));
    });

    it('revokes a key (204): it stops working at once, and is listed as revoked', async () => {
      const created = await createKey(hosted, ada, 'to-revoke');
      assert.equal((await download(hosted, created.key)).status, 200);
      const res = await api(hosted, ada, 'DELETE', `/dashboard/api/keys/${created.id}`);
      assert.equal(res.status, 204);
      const refused = await download(hosted, created.key);
      await assertError(refused, 401, 'invalid_token');
      assert.match(refused.headers.get('www-authenticate')!, /error="invalid_token"/);
      const { keys } = await listKeys(hosted, ada);
      const listed = keys.find((k) => k.id === created.id)!;
      assert.equal(listed.status, 'revoked');
      assert.equal(listed.revokedAt, new Date(hosted.clock.now()).toISOString());
      await assertError(await api(hosted, ada, 'DELETE', `/dashboard/api/keys/${created.id}`), 404, 'not_found');
    });

    it("cannot revoke or list another user's key", async () => {
      const grace = await signIn(hosted, codehost, GRACE);
      const graces = await createKey(hosted, grace, 'grace-key');
      await assertError(await api(hosted, ada, 'DELETE', `/dashboard/api/keys/${graces.id}`), 404, 'not_found');
      assert.equal((await download(hosted, graces.key)).status, 200);
      assert.ok(!(await listKeys(hosted, ada)).keys.some((k) => k.id === graces.id));
    });

    it('answers 404 for a key id that cannot exist', async () => {
      await assertError(await api(hosted, ada, 'DELETE', '/dashboard/api/keys/not-a-uuid'), 404, 'not_found');
      await assertError(await api(hosted, ada, 'DELETE', '/dashboard/api/keys/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
    });

    for (const [label, body] of [
      ['expiresInDays 0', { name: 'k', expiresInDays: 0 }],
      ['expiresInDays 366', { name: 'k', expiresInDays: 366 }],
      ["expiresInDays 'abc'", { name: 'k', expiresInDays: 'abc' }],
      ["expiresInDays '90' (a string)", { name: 'k', expiresInDays: '90' }],
      ['expiresInDays 1.5', { name: 'k', expiresInDays: 1.5 }],
      ['no expiresInDays', { name: 'k' }],
      ['an empty name', { name: '', expiresInDays: 30 }],
      ['a blank name', { name: '   ', expiresInDays: 30 }],
      ['a name of 101 characters', { name: 'n'.repeat(101), expiresInDays: 30 }],
      ['an unknown field', { name: 'k', expiresInDays: 30, scopes: ['read:tab'] }],
    ] as const) {
      it(`refuses ${label} with 400 validation_error, creating nothing`, async () => {
        const before = (await listKeys(hosted, ada)).keys.length;
        await assertError(await api(hosted, ada, 'POST', '/dashboard/api/keys', body), 400, 'validation_error');
        assert.equal((await listKeys(hosted, ada)).keys.length, before);
      });
    }

    it('accepts expiresInDays 1 and 365', async () => {
      for (const days of [1, 365]) {
        const created = await createKey(hosted, ada, `days-${days}`, days);
        assert.equal(created.expiresAt, new Date(hosted.clock.now() + days * DAY).toISOString());
      }
    });
  });

  describe('CSRF and origin', () => {
    it('refuses writes without the CSRF token, or with a wrong one, with 403 and changes nothing', async () => {
      const key = await createKey(hosted, ada, 'csrf-target');
      const grace = await signIn(hosted, codehost, GRACE);
      const before = (await listKeys(hosted, ada)).keys.length;
      for (const csrf of ['', 'wrong', grace.csrf]) {
        const as = { cookie: ada.cookie, csrf };
        await assertError(await api(hosted, as, 'POST', '/dashboard/api/keys', { name: 'sneaky', expiresInDays: 30 }), 403, 'forbidden');
        await assertError(await api(hosted, as, 'DELETE', `/dashboard/api/keys/${key.id}`), 403, 'forbidden');
        await assertError(await api(hosted, as, 'POST', '/dashboard/logout'), 403, 'forbidden');
      }
      const { keys } = await listKeys(hosted, ada);
      assert.equal(keys.length, before);
      assert.equal(keys.find((k) => k.id === key.id)!.status, 'active');
      assert.equal((await download(hosted, key.key)).status, 200);
      assert.equal((await fetch(`${hosted.url}/dashboard`, { headers: { cookie: ada.cookie } })).status, 200);
      assert.equal((await listKeys(hosted, ada)).keys.length, before, 'still signed in');
    });

    it('refuses writes from a foreign origin with 403, even with the right token', async () => {
      const key = await createKey(hosted, ada, 'origin-target');
      const before = (await listKeys(hosted, ada)).keys.length;
      const foreign: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { origin: hosted.url.replace('127.0.0.1', 'localhost') },
        { origin: '', 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of foreign) {
        const refused = await assertError(await api(hosted, ada, 'POST', '/dashboard/api/keys', { name: 'x', expiresInDays: 30 }, headers), 403, 'forbidden');
        // The server's own origin comes from a setting: the hint names its key, the file and the variable.
        if (headers.origin) assert.match(refused.hint as string, /publicUrl \("publicUrl" in the config file, config\.json.*LOOM_PUBLIC_URL\)/);
        await assertError(await api(hosted, ada, 'DELETE', `/dashboard/api/keys/${key.id}`, undefined, headers), 403, 'forbidden');
        await assertError(await api(hosted, ada, 'POST', '/dashboard/logout', undefined, headers), 403, 'forbidden');
      }
      assert.equal((await listKeys(hosted, ada)).keys.length, before);
      assert.equal((await download(hosted, key.key)).status, 200);
    });

    it('accepts a write without Origin (not a browser) when the CSRF token is right', async () => {
      const res = await api(
        hosted,
        ada,
        'POST',
        '/dashboard/api/keys',
        { name: 'no-origin-2', expiresInDays: 7 },
        { origin: '', 'sec-fetch-site': 'same-origin' },
      );
      assert.equal(res.status, 201);
    });
  });

  describe('without a session', () => {
    for (const [method, path, body] of [
      ['GET', '/dashboard/api/keys', undefined],
      ['POST', '/dashboard/api/keys', { name: 'x', expiresInDays: 30 }],
      ['POST', '/dashboard/api/keys', { name: 'x', expiresInDays: 'abc' }],
      ['DELETE', '/dashboard/api/keys/00000000-0000-4000-8000-000000000000', undefined],
      ['POST', '/dashboard/logout', undefined],
    ] as const) {
      it(`answers ${method} ${path} ${body ? JSON.stringify(body) : ''} with 401 unauthorized`, async () => {
        await assertError(await api(hosted, undefined, method, path, body), 401, 'unauthorized');
        await assertError(await api(hosted, { cookie: 'loom_session=forged', csrf: ada.csrf }, method, path, body), 401, 'unauthorized');
      });
    }
  });

  describe('expired keys and sessions', () => {
    it('lists a key past its expiry as expired, and refuses it', async () => {
      const frank = await signIn(hosted, codehost, { id: 1003, login: 'frank', name: null, email: null });
      const created = await createKey(hosted, frank, 'short', 1);
      hosted.clock.advance(DAY + 1000);
      await assertError(await download(hosted, created.key), 401, 'invalid_token');
      // The session (8 hours) ended too: sign in again to look.
      await assertError(await api(hosted, frank, 'GET', '/dashboard/api/keys'), 401, 'unauthorized');
      const again = await signIn(hosted, codehost, { id: 1003, login: 'frank', name: null, email: null });
      const listed = (await listKeys(hosted, again)).keys.find((k) => k.id === created.id)!;
      assert.equal(listed.status, 'expired');
      const html = await (await fetch(`${hosted.url}/dashboard`, { headers: { cookie: again.cookie } })).text();
      assert.match(html, new RegExp(`<tr data-id="${created.id}" data-status="expired">`));
      ada = await signIn(hosted, codehost, ADA); // later tests need a live session
    });
  });

  describe('sign-out', () => {
    it('deletes the session and clears the cookie; the old cookie no longer works', async () => {
      const session = await signIn(hosted, codehost, ADA);
      const res = await api(hosted, session, 'POST', '/dashboard/logout');
      assert.equal(res.status, 204);
      assert.equal(res.headers.get('set-cookie'), 'loom_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
      await assertError(await api(hosted, session, 'GET', '/dashboard/api/keys'), 401, 'unauthorized');
      await assertError(await api(hosted, session, 'POST', '/dashboard/api/keys', { name: 'x', expiresInDays: 30 }), 401, 'unauthorized');
      const html = await (await fetch(`${hosted.url}/dashboard`, { headers: { cookie: session.cookie } })).text();
      assert.match(html, /Sign in with your code host/);
      // Other sessions of the same user stay signed in.
      assert.equal((await api(hosted, ada, 'GET', '/dashboard/api/keys')).status, 200);
    });
  });
});

describe('dashboard on an https public URL', () => {
  it('marks the cookie Secure and checks the Origin against the public URL', async () => {
    const codehost = await startFakeCodeHost();
    const hosted = await startTestHosted({ codehost: { url: codehost.url, apiUrl: codehost.apiUrl }, publicUrl: 'https://loom.example' });
    try {
      const session = await signIn(hosted, codehost, ADA);
      assert.match(session.setCookie, /; Secure$/);
      const body = { name: 'k', expiresInDays: 30 };
      await assertError(await api(hosted, session, 'POST', '/dashboard/api/keys', body, { origin: hosted.url }), 403, 'forbidden');
      assert.equal((await api(hosted, session, 'POST', '/dashboard/api/keys', body, { origin: 'https://loom.example' })).status, 201);
      const out = await api(hosted, session, 'POST', '/dashboard/logout', undefined, { origin: 'https://loom.example' });
      assert.equal(out.headers.get('set-cookie'), 'loom_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure');
    } finally {
      await hosted.close();
      await codehost.close();
    }
  });
});
