// The whole sign-in of the CLI through the code host, from the outside: start, code host,
// callback to the loopback port, token exchange, a protected call, refresh.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pkceChallenge, randomToken } from '../../../src/core/identity/secrets.ts';
import { startFakeCodeHost, type FakeCodeHost } from '../../support/codehost.ts';
import { post, startTestHosted, type TestHosted } from '../../support/hosted.ts';

const form = 'application/x-www-form-urlencoded';

describe('CLI sign-in through the code host', () => {
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

  /** Follows the redirects a browser would, up to the CLI's loopback callback. */
  async function signIn(scope?: string) {
    const verifier = randomToken(32);
    const query = new URLSearchParams({ source: 'cli', callbackPort: '54321', code_challenge: pkceChallenge(verifier), state: 'cli-state' });
    if (scope) query.set('scope', scope);
    const start = await fetch(`${hosted.url}/api/v1/auth/codehost?${query}`, { redirect: 'manual' });
    assert.equal(start.status, 302);
    const atCodeHost = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    assert.equal(atCodeHost.status, 302);
    const callback = await fetch(atCodeHost.headers.get('location')!, { redirect: 'manual' });
    assert.equal(callback.status, 302, await callback.text());
    const loopback = new URL(callback.headers.get('location')!);
    return { verifier, loopback };
  }

  it('ends at http://127.0.0.1:<callbackPort>/callback with a code, the state and iss', async () => {
    const { loopback } = await signIn();
    assert.equal(loopback.origin, 'http://127.0.0.1:54321');
    assert.equal(loopback.pathname, '/callback');
    assert.ok(loopback.searchParams.get('code'));
    assert.equal(loopback.searchParams.get('state'), 'cli-state');
    assert.equal(loopback.searchParams.get('iss'), hosted.url);
  });

  it('exchanges the code for tokens, calls a protected operation, refreshes', async () => {
    const { verifier, loopback } = await signIn('openid profile email read:downloads write:feedback');
    const exchanged = await post(
      `${hosted.url}/api/v1/auth/token`,
      new URLSearchParams({
        grant_type: 'authorization_code',
        code: loopback.searchParams.get('code')!,
        redirect_uri: 'http://127.0.0.1:54321/callback',
        client_id: 'loom-cli',
        code_verifier: verifier,
      }).toString(),
      form,
    );
    assert.equal(exchanged.status, 200);
    assert.equal(exchanged.headers.get('cache-control'), 'no-store');
    const tokens = await exchanged.json();
    assert.deepEqual(Object.keys(tokens).sort(), ['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(tokens.scope, 'openid profile email read:downloads write:feedback');

    const downloads = await fetch(`${hosted.url}/api/v1/download`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(downloads.status, 200);
    const feedback = await post(`${hosted.url}/api/v1/feedback`, { name: 'Ada', subject: 'Hi', message: 'from the CLI' }, 'application/json', {
      authorization: `Bearer ${tokens.access_token}`,
    });
    assert.equal(feedback.status, 201, 'email taken from the signed-in user');
    const [stored] = await hosted.store.feedback.list({ limit: 1 });
    assert.equal(stored!.email, 'ada@example.com');

    const refreshed = await post(
      `${hosted.url}/auth/token`,
      new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'loom-cli' }).toString(),
      form,
    );
    assert.equal(refreshed.status, 200);
    const next = await refreshed.json();
    assert.notEqual(next.refresh_token, tokens.refresh_token);
    // Not widened: the grant's scopes, and an operation needing another is still refused.
    assert.equal(next.scope, tokens.scope);
    const tab = await post(`${hosted.url}/api/v1/tab/complete`, { language: 'typescript', prefix: 'const a = ', suffix: '' }, 'application/json', {
      authorization: `Bearer ${next.access_token}`,
    });
    assert.equal(tab.status, 403, 'no read:tab');
  });
});
