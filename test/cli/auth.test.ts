// `loom login`, `loom whoami` and `loom logout` as a user runs them: the real command in a
// child process against a real hosted server (in-process) and the fake code host; this test
// plays the browser, following the redirects up to the CLI's loopback callback.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { startFakeCodeHost, type FakeCodeHost } from '../support/codehost.ts';
import { cleanEnv, hasStackTrace, runLoom, tempDir } from '../support/cli.ts';
import { browse, startLogin, type LoginRun } from '../support/login.ts';
import { post, startTestHosted, type TestHosted } from '../support/hosted.ts';

function callbackUrl(run: LoginRun, params: Record<string, string>): string {
  return `http://127.0.0.1:${run.url.searchParams.get('callbackPort')}/callback?${new URLSearchParams(params)}`;
}

describe('loom login, whoami, logout', () => {
  let hosted: TestHosted;
  let codehost: FakeCodeHost;
  before(async () => {
    codehost = await startFakeCodeHost();
    hosted = await startTestHosted({ codehost: { url: codehost.url, apiUrl: codehost.apiUrl } });
  });
  after(async () => {
    await hosted.close();
    await codehost.close();
  });

  /** A user with an empty config folder, and how to read their credentials file. */
  function user(t: TestContext, extra: Record<string, string> = {}) {
    const home = tempDir(t);
    const env = cleanEnv(home, { LOOM_LOGIN_TIMEOUT_MS: '20000', ...extra });
    const configDir = path.join(home, 'config', 'loom');
    const file = path.join(configDir, 'credentials.json');
    const read = () => JSON.parse(fs.readFileSync(file, 'utf8'));
    const loom = (...args: string[]) => runLoom(args, env);
    return { home, env, configDir, file, read, loom };
  }

  async function signIn(t: TestContext, u: ReturnType<typeof user>, args: string[] = []) {
    const run = await startLogin(t, ['--server', hosted.url, ...args], u.env);
    const { page } = await browse(run.url);
    const result = await run.exited;
    return { run, page, result };
  }

  it('signs in through the browser, stores the tokens 0600, shows the user, refreshes, signs out', async (t) => {
    const u = user(t);
    // The CLI's clock is the system's: what it stores lies between these two readings of it.
    const beforeSignIn = Date.now();
    const { run, page, result } = await signIn(t, u);
    const afterSignIn = Date.now();

    // The URL the user is sent to.
    assert.equal(run.url.origin + run.url.pathname, `${hosted.url}/api/v1/auth/codehost`);
    assert.equal(run.url.searchParams.get('source'), 'cli');
    assert.match(run.url.searchParams.get('callbackPort')!, /^[0-9]{4,5}$/);
    assert.match(run.url.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
    assert.ok((run.url.searchParams.get('state') ?? '').length >= 16);

    // The browser's page, then the process.
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.match(await page.text(), /Signed in/);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `Signed in to ${hosted.url} as ada (Ada Lovelace <ada@example.com>).\n`);
    assert.ok(!hasStackTrace(result.stderr));

    // The credentials file.
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(u.file).mode & 0o777, 0o600);
      assert.equal(fs.statSync(u.configDir).mode & 0o777, 0o700);
    }
    assert.deepEqual(fs.readdirSync(u.configDir), ['credentials.json'], 'no temp or lock file left behind');
    const stored = u.read().servers[hosted.url];
    assert.deepEqual(Object.keys(stored).sort(), ['access_token', 'expires_at', 'id_token', 'issuer', 'refresh_token', 'scope', 'token_endpoint']);
    assert.equal(stored.issuer, hosted.url);
    assert.equal(stored.token_endpoint, `${hosted.url}/auth/token`);
    assert.match(stored.scope, /\bopenid profile email\b/);
    const expiresAt = Date.parse(stored.expires_at);
    assert.ok(expiresAt >= beforeSignIn + 3_600_000 && expiresAt <= afterSignIn + 3_600_000, `expires_at ${stored.expires_at}: an hour after the sign-in`);
    const downloads = await fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: `Bearer ${stored.access_token}` } });
    assert.equal(downloads.status, 200, 'the stored access token works');

    // whoami, JSON and text; LOOM_SERVER picks the server as --server does.
    const whoami = await runLoom(['whoami', '--json'], { ...u.env, LOOM_SERVER: `${hosted.url}/` });
    assert.equal(whoami.code, 0, whoami.stderr);
    const me = JSON.parse(whoami.stdout);
    assert.equal(me.server, hosted.url);
    assert.equal(me.login, 'ada');
    assert.equal(me.name, 'Ada Lovelace');
    assert.equal(me.email, 'ada@example.com');
    assert.equal(me.verified, true);
    assert.equal(me.expires_at, stored.expires_at);
    assert.ok(me.scopes.includes('read:downloads'));
    assert.equal(u.read().servers[hosted.url].refresh_token, stored.refresh_token, 'no refresh while the token is fresh');
    const text = await u.loom('whoami', '--server', hosted.url);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^Signed in to ${hosted.url} as ada \\(Ada Lovelace <ada@example.com>\\)\\n  subject  \\S+\\n  scopes   openid`));

    // Expiry by the CLI's clock: whoami refreshes first, and stores the rotated tokens.
    const beforeRefresh = Date.now();
    fs.writeFileSync(u.file, JSON.stringify({ servers: { [hosted.url]: { ...stored, expires_at: new Date(beforeRefresh + 30_000).toISOString() } } }));
    const refreshed = await u.loom('whoami', '--server', hosted.url, '--json');
    assert.equal(refreshed.code, 0, refreshed.stderr);
    const afterRefresh = u.read().servers[hosted.url];
    assert.notEqual(afterRefresh.refresh_token, stored.refresh_token);
    assert.notEqual(afterRefresh.access_token, stored.access_token);
    assert.ok(Date.parse(afterRefresh.expires_at) >= beforeRefresh + 3_600_000, 'an hour after the refresh');
    assert.equal(JSON.parse(refreshed.stdout).expires_at, afterRefresh.expires_at);
    if (process.platform !== 'win32') assert.equal(fs.statSync(u.file).mode & 0o777, 0o600, 'still 0600 after a rewrite');

    // Expiry by the server's clock: the token is refused (401), so whoami refreshes and retries.
    hosted.clock.advance(3_601_000);
    const afterServerExpiry = await u.loom('whoami', '--server', hosted.url, '--json');
    assert.equal(afterServerExpiry.code, 0, afterServerExpiry.stderr);
    assert.equal(JSON.parse(afterServerExpiry.stdout).verified, true);
    assert.notEqual(u.read().servers[hosted.url].refresh_token, afterRefresh.refresh_token);

    // Two processes that both find the token expired refresh it once between them: spending
    // the same refresh token twice would make the server revoke the whole sign-in.
    fs.writeFileSync(u.file, JSON.stringify({ servers: { [hosted.url]: { ...u.read().servers[hosted.url], expires_at: '2000-01-01T00:00:00.000Z' } } }));
    const both = await Promise.all([u.loom('whoami', '--server', hosted.url), u.loom('whoami', '--server', hosted.url)]);
    for (const run of both) assert.equal(run.code, 0, run.stderr);
    const stillValid = await u.loom('whoami', '--server', hosted.url, '--json');
    assert.equal(stillValid.code, 0, stillValid.stderr);
    assert.equal(JSON.parse(stillValid.stdout).verified, true);

    // logout, idempotent; then whoami has nobody to show.
    assert.deepEqual(await u.loom('logout', '--server', hosted.url), { code: 0, signal: null, stdout: `Signed out of ${hosted.url}.\n`, stderr: '' });
    assert.deepEqual(u.read().servers, {});
    assert.deepEqual(await u.loom('logout', '--server', hosted.url), { code: 0, signal: null, stdout: `Not signed in to ${hosted.url}.\n`, stderr: '' });
    const nobody = await u.loom('whoami', '--server', hosted.url);
    assert.equal(nobody.code, 4, 'sign-in needed');
    assert.equal(nobody.stdout, '');
    assert.equal(nobody.stderr, `loom: not signed in to ${hosted.url}; run loom login --server ${hosted.url}\n`);
  });

  it('refuses a callback with the wrong state and keeps waiting for the real one', async (t) => {
    const u = user(t);
    const run = await startLogin(t, ['--server', hosted.url, '--scope', 'openid,profile read:downloads'], u.env);
    assert.equal(run.url.searchParams.get('scope'), 'openid profile read:downloads');

    const forged = await fetch(callbackUrl(run, { code: 'forged-code', state: 'not-the-state', iss: hosted.url }));
    assert.equal(forged.status, 400);
    assert.match(await forged.text(), /state mismatch/);
    const noState = await fetch(callbackUrl(run, { code: 'forged-code' }));
    assert.equal(noState.status, 400);
    assert.equal((await fetch(`http://127.0.0.1:${run.url.searchParams.get('callbackPort')}/other`)).status, 404);
    assert.ok(run.running(), 'still waiting');
    assert.ok(!fs.existsSync(u.file), 'nothing stored');

    const { page } = await browse(run.url);
    assert.equal(page.status, 200);
    const result = await run.exited;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /Refused a callback whose state does not match this sign-in; still waiting\./);
    assert.equal(result.stdout, `Signed in to ${hosted.url} as ada (Ada Lovelace).\n`, 'no email scope, no email');
    assert.equal(u.read().servers[hosted.url].scope, 'openid profile read:downloads');
  });

  it('shows a sign-in without read:downloads or profile: the subject, still checked with the server; --json as whoami', async (t) => {
    const u = user(t);
    const { result } = await signIn(t, u, ['--scope', 'openid read:tab', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const signedIn = JSON.parse(result.stdout);
    const whoami = await u.loom('whoami', '--server', hosted.url, '--json');
    assert.equal(whoami.code, 0, whoami.stderr);
    const me = JSON.parse(whoami.stdout);
    assert.deepEqual([me.login, me.name, me.email, me.verified, me.scopes], [null, null, null, true, ['openid', 'read:tab']]);
    assert.ok(me.sub);
    assert.deepEqual(signedIn, me, 'login --json prints the user as whoami --json does');
    const out = await u.loom('logout', '--server', hosted.url, '--json');
    assert.deepEqual(JSON.parse(out.stdout), { server: hosted.url, signedOut: true });
  });

  it('refuses an answer from another issuer (RFC 9207) and exits 1', async (t) => {
    const u = user(t);
    const run = await startLogin(t, ['--server', hosted.url], u.env);
    const state = run.url.searchParams.get('state')!;
    const mixedUp = await fetch(callbackUrl(run, { code: 'some-code', state, iss: 'https://evil.example' }));
    assert.equal(mixedUp.status, 400);
    const result = await run.exited;
    assert.equal(result.code, 1);
    assert.equal(result.stderr.split('\n').filter((line) => line.startsWith('loom: ')).length, 1);
    assert.match(result.stderr, new RegExp(`loom: the sign-in answer comes from issuer https://evil.example, not ${hosted.url}; it was refused\\n$`));
    assert.ok(!fs.existsSync(u.file));
  });

  it('exits 1 with a message when no sign-in arrives in time', async (t) => {
    const u = user(t, { LOOM_LOGIN_TIMEOUT_MS: '300' });
    const result = await u.loom('login', '--server', hosted.url, '--no-browser');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^Open this URL to sign in: http:\/\/127\.0\.0\.1:\d+\/api\/v1\/auth\/codehost\?/);
    assert.match(result.stderr, /\nloom: no sign-in arrived within 300 ms; run loom login again\n$/);
    assert.ok(!hasStackTrace(result.stderr));
  });

  it('forgets a sign-in the server has revoked, and says so', async (t) => {
    const u = user(t);
    const { result } = await signIn(t, u);
    assert.equal(result.code, 0, result.stderr);
    const stored = u.read().servers[hosted.url];
    // Someone spends the refresh token: the server revokes every token of this sign-in.
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: stored.refresh_token, client_id: 'loom-cli' }).toString();
    assert.equal((await post(`${hosted.url}/auth/token`, form, 'application/x-www-form-urlencoded')).status, 200);
    fs.writeFileSync(u.file, JSON.stringify({ servers: { [hosted.url]: { ...stored, expires_at: '2000-01-01T00:00:00.000Z' } } }));

    const whoami = await u.loom('whoami', '--server', hosted.url);
    assert.equal(whoami.code, 4, 'sign-in needed');
    assert.match(
      whoami.stderr,
      new RegExp(`^loom: your sign-in to ${hosted.url} has expired or was revoked \\(invalid_grant: .+\\); run loom login --server ${hosted.url}\\n$`),
    );
    assert.deepEqual(u.read().servers, {}, 'the dead sign-in is removed');
  });

  it('listens on --port, and exits 1 when that port is taken', async (t) => {
    const u = user(t, { LOOM_LOGIN_TIMEOUT_MS: '300' });
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = String((taken.address() as AddressInfo).port);
    const busy = await u.loom('login', '--server', hosted.url, '--no-browser', '--port', port);
    assert.deepEqual(busy, {
      code: 1,
      signal: null,
      stdout: '',
      stderr: `loom: cannot listen on 127.0.0.1:${port} (EADDRINUSE); pick another --port or leave it out\n`,
    });
    const low = await u.loom('login', '--server', hosted.url, '--port', '80');
    assert.equal(low.code, 2, 'a usage error');
    assert.match(low.stderr, /--port <n>.*a port from 1024 to 65535/);
  });

  it('rejects a bad server address: --server and LOOM_SERVER (exit 2); an unreachable one is exit 3, signed in or not', async (t) => {
    const u = user(t);
    const flag = await u.loom('whoami', '--server', 'ftp://example.com');
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /--server <url>.*an http or https URL/);
    const env = await runLoom(['logout'], { ...u.env, LOOM_SERVER: 'not a url' });
    assert.deepEqual(env, { code: 2, signal: null, stdout: '', stderr: 'loom: LOOM_SERVER: "not a url" is not an http or https URL\n' });
    const unreachable = await runLoom(['login', '--server', 'http://127.0.0.1:9', '--no-browser'], u.env);
    assert.equal(unreachable.code, 3);
    assert.match(
      unreachable.stderr,
      /^loom: cannot reach http:\/\/127\.0\.0\.1:9\/\.well-known\/oauth-authorization-server: .+; is `loom hosted` \(or `loom up`\) running there\? --server or LOOM_SERVER names another\n$/,
    );
    // Not signed in there either: what stops whoami is the server that does not answer (3), not the sign-in (4).
    const whoami = await u.loom('whoami', '--server', 'http://127.0.0.1:9');
    assert.equal(whoami.code, 3, whoami.stderr);
    assert.match(whoami.stderr, /^loom: Cannot reach the hosted API at http:\/\/127\.0\.0\.1:9: .+ Is `loom hosted` \(or `loom up`\) running there\?/);
  });
});
