// No secret reaches the hosted server's log. The real `loom hosted` (startHosted, the production
// wiring) logs at `trace`, every level on, into a destination the test reads; the test signs in
// through the code host (CLI and web) and OpenID Connect, uses and refreshes the tokens, creates
// and uses an API key, gets a client_credentials token, and fails in the ways a client can. Then
// every line is read: none holds any secret used, whole or ten characters of it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import { ClientRegistry } from '../../src/core/identity/clients.ts';
import { pkceChallenge, randomToken } from '../../src/core/identity/secrets.ts';
import { startHosted, type RunningHosted } from '../../src/hosted/server.ts';
import { startFakeCodeHost, type FakeCodeHost } from '../support/codehost.ts';
import { captureLog, requestLines, Secrets, type CapturedLog } from '../support/log-lines.ts';
import { startFakeOidc, type FakeOidc } from '../support/oidc.ts';

const FORM = 'application/x-www-form-urlencoded';

describe('the hosted server log', () => {
  let codehost: FakeCodeHost;
  let oidc: FakeOidc;
  let hosted: RunningHosted;
  let log: CapturedLog;
  let dataDir: string;
  let closed = false;
  const secrets = new Secrets();

  before(async () => {
    codehost = await startFakeCodeHost();
    oidc = await startFakeOidc();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-log-'));
    const configFile = path.join(dataDir, 'config.json');
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        dataDir,
        logLevel: 'trace',
        hosted: { host: '127.0.0.1', port: 0 },
        codehost: { clientId: codehost.clientId, clientSecret: codehost.clientSecret, url: codehost.url, apiUrl: codehost.apiUrl },
        oidc: { issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret },
      }),
    );
    secrets.add(codehost.clientSecret);
    secrets.add(oidc.clientSecret);
    log = captureLog();
    hosted = await startHosted(loadConfig({ env: {}, configFile }), undefined, { logDestination: log });
  });
  after(async () => {
    if (!closed) await hosted?.close();
    await oidc.close();
    await codehost.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** A browser: follows redirects on the hosted server and the providers, keeping cookies per origin. */
  const cookies = new Map<string, Map<string, string>>();
  async function browse(url: string, init: RequestInit = {}): Promise<Response> {
    const origin = new URL(url).origin;
    const jar = cookies.get(origin) ?? new Map<string, string>();
    cookies.set(origin, jar);
    const headers = new Headers(init.headers);
    if (jar.size) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const setCookie of response.headers.getSetCookie()) {
      const [pair = ''] = setCookie.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      secrets.addRandom(pair.slice(eq + 1).trim());
    }
    return response;
  }

  /** Walks a sign-in from its start to the last redirect that leaves the hosted server and the provider. */
  async function signIn(startUrl: string): Promise<URL> {
    let next = startUrl;
    for (let hop = 0; hop < 10; hop++) {
      const url = new URL(next);
      for (const name of ['code', 'state', 'code_challenge', 'nonce']) secrets.addRandom(url.searchParams.get(name));
      if (url.origin !== hosted.url && url.origin !== codehost.url && url.origin !== oidc.issuer) return url;
      const response = await browse(next);
      if (response.status !== 302 && response.status !== 303) return url;
      next = new URL(response.headers.get('location')!, next).toString();
    }
    throw new Error('too many redirects');
  }

  async function token(params: Record<string, string>, headers: Record<string, string> = {}): Promise<Record<string, string>> {
    const response = await fetch(`${hosted.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': FORM, ...headers },
      body: new URLSearchParams(params).toString(),
    });
    const body = await response.json();
    for (const name of ['access_token', 'refresh_token', 'id_token']) secrets.addRandom(body[name]);
    return { status: String(response.status), ...body };
  }

  async function cliSignIn(provider: 'codehost' | 'oidc'): Promise<Record<string, string>> {
    const verifier = randomToken(32);
    const state = randomToken(16);
    secrets.addRandom(verifier);
    secrets.addRandom(state);
    const query = new URLSearchParams({ source: 'cli', callbackPort: '49152', code_challenge: pkceChallenge(verifier), state });
    const loopback = await signIn(`${hosted.url}/api/v1/auth/${provider}?${query}`);
    assert.equal(loopback.origin, 'http://127.0.0.1:49152', `${provider} sign-in ends at the CLI's loopback port`);
    const tokens = await token({
      grant_type: 'authorization_code',
      code: loopback.searchParams.get('code')!,
      redirect_uri: 'http://127.0.0.1:49152/callback',
      client_id: 'loom-cli',
      code_verifier: verifier,
    });
    assert.equal(tokens.status, '200', JSON.stringify(tokens));
    return tokens;
  }

  it('holds no secret after sign-ins, token use, API keys, client credentials and refused requests', async () => {
    // The CLI's sign-in through the code host; the tokens used, refreshed, the old refresh token replayed.
    const cli = await cliSignIn('codehost');
    assert.equal((await fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: `Bearer ${cli.access_token}` } })).status, 200);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: cli.refresh_token!, client_id: 'loom-cli' });
    assert.equal(refreshed.status, '200');
    assert.equal(
      (await token({ grant_type: 'refresh_token', refresh_token: cli.refresh_token!, client_id: 'loom-cli' })).status,
      '400',
      'a replayed refresh token',
    );

    // The same through OpenID Connect.
    const viaOidc = await cliSignIn('oidc');
    assert.equal((await fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: `Bearer ${viaOidc.access_token}` } })).status, 200);

    // The dashboard: a web sign-in (session cookie, CSRF token), an API key created and used.
    const landing = await signIn(`${hosted.url}/api/v1/auth/codehost?source=web&return_to=/dashboard`);
    assert.equal(landing.pathname, '/dashboard');
    const page = await browse(`${hosted.url}/dashboard`);
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())?.[1];
    assert.ok(csrf, 'signed in to the dashboard');
    secrets.addRandom(csrf);
    const created = await browse(`${hosted.url}/dashboard/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, origin: hosted.url },
      body: JSON.stringify({ name: 'laptop', expiresInDays: 30 }),
    });
    assert.equal(created.status, 201);
    const { key } = (await created.json()) as { key: string };
    secrets.addRandom(key);
    assert.equal((await fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: `Bearer ${key}` } })).status, 200);

    // A confidential client and its client_credentials token, with the secret in Basic and in the body.
    const { client, clientSecret } = await new ClientRegistry(hosted.store.clients, hosted.store.grants).register({
      name: 'ci',
      type: 'confidential',
      grantTypes: ['client_credentials'],
      redirectUris: [],
    });
    secrets.addRandom(clientSecret);
    const basic = Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(clientSecret!)}`).toString('base64');
    secrets.addRandom(basic);
    assert.equal((await token({ grant_type: 'client_credentials' }, { authorization: `Basic ${basic}` })).status, '200');
    assert.equal((await token({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: clientSecret! })).status, '200');

    // What a client can get wrong: a forged token, a token in the query string, a used code,
    // a callback with a state nobody issued, an unknown path carrying a secret.
    const forged = `forged.${randomToken(24)}.token`;
    secrets.addRandom(forged);
    assert.equal((await fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: `Bearer ${forged}` } })).status, 401);
    const inQuery = randomToken(24);
    secrets.addRandom(inQuery);
    assert.ok((await fetch(`${hosted.url}/api/v1/download?access_token=${inQuery}`, { headers: { authorization: `Bearer ${inQuery}` } })).status >= 400);
    const usedCode = randomToken(32);
    secrets.addRandom(usedCode);
    const verifier = randomToken(32);
    secrets.addRandom(verifier);
    assert.equal(
      (
        await token({
          grant_type: 'authorization_code',
          code: usedCode,
          redirect_uri: 'http://127.0.0.1:49152/callback',
          client_id: 'loom-cli',
          code_verifier: verifier,
        })
      ).status,
      '400',
    );
    const strayState = randomToken(32);
    const strayCode = randomToken(20);
    secrets.addRandom(strayState);
    secrets.addRandom(strayCode);
    assert.equal((await fetch(`${hosted.url}/auth/codehost/callback?code=${strayCode}&state=${strayState}`)).status, 400);
    const inPath = randomToken(24);
    secrets.addRandom(inPath);
    assert.equal((await fetch(`${hosted.url}/api/v1/keys/${inPath}?ticket=${inPath}`)).status, 404);

    // Closing writes the last lines.
    await hosted.close();
    closed = true;
    assert.ok(secrets.size >= 25, `the test used its secrets (${secrets.size})`);
    secrets.assertAbsentFrom(log.text());
    for (const line of log.text()) assert.doesNotMatch(line, /gho_[0-9a-f]{8}|Bearer |Basic [A-Za-z0-9]/, 'nor the code host token or any credential');
    const requests = requestLines(log.lines());
    assert.ok(requests.length >= 20, `one line per request (${requests.length})`);
    assert.ok(
      requests.some((line) => line.route === '/auth/:provider/callback' && line.status === 302),
      'the callback that carried the code is logged, by its route pattern',
    );
  });
});
