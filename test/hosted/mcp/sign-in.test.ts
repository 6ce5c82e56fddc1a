// The whole sign-in as an MCP client does it, with the SDK's own client and its OAuth support:
// a tool that needs a token answers 401; from its challenge the client finds the resource's
// metadata, then the authorization server's, registers itself (RFC 7591), and sends the user
// to authorize with PKCE and the resource indicator; the user signs in at the code host (a
// fake one) and allows the client; the client exchanges the code and calls the tool.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import { startFakeCodeHost, type FakeCodeHost } from '../../support/codehost.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { connectMcp, consentFields, MemoryOAuthProvider } from '../../support/mcp.ts';
import { Browser, FORM } from '../../support/oauth.ts';

const REDIRECT = 'http://localhost:45123/callback';
const cursor = { language: 'typescript', prefix: 'const total = ', suffix: '' };

describe('signing in as an MCP client does', () => {
  let codehost: FakeCodeHost;
  let hosted: TestHosted;
  before(async () => {
    codehost = await startFakeCodeHost();
    hosted = await startTestHosted({ codehost: { url: codehost.url, apiUrl: codehost.apiUrl } });
  });
  after(async () => {
    await hosted.close();
    await codehost.close();
  });

  /**
   * The browser's part: from the authorization URL through sign-in at the code host to the
   * consent page, and the user's answer; returns where the browser is sent then.
   */
  async function inTheBrowser(authorizationUrl: URL, decision: 'approve' | 'deny'): Promise<URL> {
    const browser = new Browser(hosted.url);
    let res = await browser.get(authorizationUrl);
    for (let hops = 0; res.status === 302 && hops < 6; hops++) res = await browser.follow(res, hosted.url);
    const page = await res.text();
    assert.equal(res.status, 200, page);
    assert.match(page, /<h1>Allow Test MCP client\?<\/h1>/);
    const answer = await fetch(`${hosted.url}/auth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': FORM, cookie: `loom_session=${browser.cookie('loom_session')}`, origin: hosted.url, 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ ...consentFields(page), decision }).toString(),
    });
    assert.equal(answer.status, 302, await answer.clone().text());
    return new URL(answer.headers.get('location')!);
  }

  it('discovers, registers, authorizes with PKCE and the resource, and then calls the protected tool', async () => {
    const provider = new MemoryOAuthProvider(REDIRECT);
    const { client, transport } = await connectMcp(hosted.url, { authProvider: provider });
    try {
      // Anonymous tools need no sign-in.
      assert.equal((await client.callTool({ name: 'list_models', arguments: {} })).isError, undefined);
      await assert.rejects(client.callTool({ name: 'tab_complete', arguments: cursor }), UnauthorizedError);

      // Registered itself: a public client of its redirect URI.
      const registered = provider.clientInformation() as { client_id: string; client_secret?: string; token_endpoint_auth_method?: string };
      assert.ok(registered.client_id.startsWith('loom_'));
      assert.equal(registered.client_secret, undefined);
      assert.equal(registered.token_endpoint_auth_method, 'none');
      const record = await hosted.identity.clients.get(registered.client_id);
      assert.equal(record?.registration, 'dynamic');
      assert.deepEqual(record?.redirectUris, [REDIRECT]);

      // Sent the user to authorize with PKCE (S256), the resource and the scopes the challenge named.
      const url = provider.authorizationUrl!;
      assert.equal(`${url.origin}${url.pathname}`, `${hosted.url}/auth/authorize`);
      assert.equal(url.searchParams.get('client_id'), registered.client_id);
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      assert.match(url.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.equal(url.searchParams.get('resource'), `${hosted.url}/mcp`);
      assert.equal(url.searchParams.get('scope'), 'read:downloads read:models write:feedback write:composer read:tab');
      assert.equal(url.searchParams.get('redirect_uri'), REDIRECT);

      const back = await inTheBrowser(url, 'approve');
      assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
      assert.equal(back.searchParams.get('iss'), hosted.url);
      await transport.finishAuth(back.searchParams.get('code')!);

      const tokens = provider.tokens()!;
      assert.equal(decodeJwt(tokens.access_token).aud, `${hosted.url}/mcp`);
      assert.ok(tokens.refresh_token);
      const result = (await client.callTool({ name: 'tab_complete', arguments: cursor })) as { isError?: boolean; structuredContent?: { completion: string } };
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.equal(typeof result.structuredContent?.completion, 'string');
    } finally {
      await client.close();
    }
  });

  it('tells the client when the user does not allow it, and issues nothing', async () => {
    const provider = new MemoryOAuthProvider(REDIRECT);
    const { client } = await connectMcp(hosted.url, { authProvider: provider });
    try {
      await assert.rejects(client.callTool({ name: 'tab_complete', arguments: cursor }), UnauthorizedError);
      const back = await inTheBrowser(provider.authorizationUrl!, 'deny');
      assert.equal(back.searchParams.get('error'), 'access_denied');
      assert.equal(back.searchParams.get('code'), null);
      assert.equal(back.searchParams.get('iss'), hosted.url);
    } finally {
      await client.close();
    }
  });
});
