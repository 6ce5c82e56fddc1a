// Authorization of the MCP endpoint as the MCP specification asks: anonymous tools need no
// token; a tool that needs one is a 401 whose challenge points at the MCP resource's metadata
// (RFC 9728, at the path-suffixed well-known URL) and names the scopes to ask for; a token
// without the scope is a 403 insufficient_scope; a valid API key on a tool anyone may call is
// served as no credentials; tokens are bound to their audience (RFC 8707):
// one for the API is refused at /mcp and the other way round.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import type { ClientRecord } from '../../../src/core/identity/records.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { connectMcp, mcpTokens, postMcp, rpc } from '../../support/mcp.ts';
import {
  assertError,
  authorize,
  authorizeParams,
  bearer,
  bearerChallenge,
  exchangeCode,
  getCode,
  pkce,
  redeem,
  refresh,
  registerClient,
  signedInUser,
  signInWithCode,
  tokenRequest,
} from '../../support/oauth.ts';

const MCP_SCOPES = 'read:downloads read:models write:feedback write:composer read:tab';
const cursor = { language: 'typescript', prefix: 'const a = ', suffix: '' };
const tabComplete = rpc('tools/call', { name: 'tab_complete', arguments: cursor });
const listModels = rpc('tools/call', { name: 'list_models', arguments: {} });

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

describe('MCP authorization', () => {
  let hosted: TestHosted;
  let client: ClientRecord;
  let cookie: string;
  let mcpToken: string;
  let apiToken: string;
  before(async () => {
    hosted = await startTestHosted();
    ({ client } = await registerClient(hosted));
    ({ cookie } = await signedInUser(hosted));
    mcpToken = (await mcpTokens(hosted, MCP_SCOPES, cookie)).access_token;
    apiToken = (await signInWithCode(hosted, client, MCP_SCOPES, cookie)).access_token;
  });
  after(() => hosted.close());

  const metadataUrl = () => `${hosted.url}/.well-known/oauth-protected-resource/mcp`;

  describe('without a token', () => {
    it('initializes, lists tools and calls the anonymous ones', async () => {
      assert.equal((await postMcp(hosted.url, rpc('tools/list'))).status, 200);
      const res = await postMcp(hosted.url, listModels);
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { result: { isError?: boolean } }).result.isError, undefined);
    });

    it('answers a tool that needs a token with 401 and a challenge naming the MCP metadata and the scopes to ask for', async () => {
      const res = await postMcp(hosted.url, tabComplete);
      await assertError(res, 401, 'unauthorized');
      const challenge = bearerChallenge(res);
      assert.equal(challenge.resource_metadata, metadataUrl());
      assert.equal(challenge.scope, MCP_SCOPES);
    });
  });

  describe('protected resource metadata (RFC 9728)', () => {
    it('is served at the path-suffixed well-known URL of the MCP endpoint', async () => {
      const res = await fetch(metadataUrl());
      assert.equal(res.status, 200);
      const metadata = (await res.json()) as Record<string, unknown>;
      assert.equal(metadata.resource, `${hosted.url}/mcp`);
      assert.deepEqual(metadata.authorization_servers, [hosted.url]);
      assert.deepEqual(metadata.scopes_supported, MCP_SCOPES.split(' '));
      assert.deepEqual(metadata.bearer_methods_supported, ['header']);
      assert.equal(metadata.resource_documentation, `${hosted.url}/.well-known/mcp.json`);
    });

    it('leaves the root document to the API', async () => {
      const metadata = (await (await fetch(`${hosted.url}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
      assert.equal(metadata.resource, hosted.url);
    });

    it('names an authorization server whose metadata offers registration and S256', async () => {
      const metadata = (await (await fetch(`${hosted.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      assert.equal(metadata.registration_endpoint, `${hosted.url}/auth/register`);
      assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    });
  });

  describe('tokens for the MCP endpoint', () => {
    it('name it as their audience', () => {
      assert.equal(decodeJwt(mcpToken).aud, `${hosted.url}/mcp`);
      assert.equal(decodeJwt(apiToken).aud, hosted.url);
    });

    it('call the tools that need one', async () => {
      const res = await postMcp(hosted.url, tabComplete, bearer(mcpToken));
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { result: { isError?: boolean } }).result.isError, undefined);
    });

    it('are refused by the API', async () => {
      const res = await fetch(`${hosted.url}/api/v1/models`, { headers: bearer(mcpToken) });
      const error = await assertError(res, 401, 'invalid_token');
      assert.match(String(error.message), /another resource/);
    });

    it('and tokens for the API are refused at /mcp, on every message, with the MCP challenge', async () => {
      for (const message of [rpc('tools/list'), listModels, tabComplete]) {
        const res = await postMcp(hosted.url, message, bearer(apiToken));
        await assertError(res, 401, 'invalid_token');
        const challenge = bearerChallenge(res);
        assert.equal(challenge.error, 'invalid_token');
        assert.equal(challenge.resource_metadata, metadataUrl());
      }
    });

    it('are checked whenever sent: a bad one is a 401 even where none is needed', async () => {
      for (const token of ['nope', mcpToken.slice(0, -4) + 'AAAA']) {
        await assertError(await postMcp(hosted.url, rpc('tools/list'), bearer(token)), 401, 'invalid_token');
      }
    });

    it('without the scope a tool needs are a 403 insufficient_scope naming it', async () => {
      const modelsOnly = (await mcpTokens(hosted, 'read:models', cookie)).access_token;
      assert.equal((await postMcp(hosted.url, listModels, bearer(modelsOnly))).status, 200);
      const res = await postMcp(hosted.url, tabComplete, bearer(modelsOnly));
      await assertError(res, 403, 'insufficient_scope');
      const challenge = bearerChallenge(res);
      assert.equal(challenge.error, 'insufficient_scope');
      assert.equal(challenge.scope, 'read:tab');
      assert.equal(challenge.resource_metadata, metadataUrl());
    });

    it('stop working once their sign-in is revoked', async () => {
      const tokens = await mcpTokens(hosted, MCP_SCOPES, cookie);
      const grant = String(decodeJwt(tokens.access_token).gid);
      await hosted.store.grants.revokeGrant(grant, new Date(hosted.clock.now()).toISOString());
      await assertError(await postMcp(hosted.url, tabComplete, bearer(tokens.access_token)), 401, 'invalid_token');
    });
  });

  describe('API keys', () => {
    it('name both resources, and work where the operation takes them: the API and the MCP endpoint', async () => {
      const { user } = await signedInUser(hosted, 'keys@example.com');
      const { key } = await hosted.identity.apiKeys.create(user.id, { name: 'mcp', expiresInDays: 1 });
      assert.deepEqual(decodeJwt(key).aud, [hosted.url, `${hosted.url}/mcp`]);
      assert.equal((await postMcp(hosted.url, tabComplete, bearer(key))).status, 200);
      assert.equal(
        (
          await fetch(`${hosted.url}/api/v1/tab/complete`, {
            method: 'POST',
            headers: { ...bearer(key), 'content-type': 'application/json' },
            body: JSON.stringify(cursor),
          })
        ).status,
        200,
      );
    });

    it('sent with every call, as a client configured with a key header sends it, are served as no credentials by the tools anyone may call', async () => {
      const { user } = await signedInUser(hosted, 'key-header@example.com');
      const { key } = await hosted.identity.apiKeys.create(user.id, { name: 'header', expiresInDays: 1 });
      const { client } = await connectMcp(hosted.url, { token: key });
      try {
        const models = (await client.callTool({ name: 'list_models', arguments: {} })) as ToolResult;
        assert.equal(models.isError, undefined, JSON.stringify(models));
        assert.ok(models.structuredContent);
        // Answered by the operation (its 404 for an unknown product), not refused for the key.
        const asset = (await client.callTool({ name: 'get_download_asset', arguments: { product: 'nope', asset: 'linux-x64' } })) as ToolResult;
        assert.equal(JSON.parse(asset.content[0]!.text).error, 'not_found');
        const feedback = { name: 'Ada', email: 'given@example.com', subject: 'Keys', message: 'sent with an API key header' };
        const sent = (await client.callTool({ name: 'submit_feedback', arguments: feedback })) as ToolResult;
        assert.equal(sent.isError, undefined, JSON.stringify(sent));
        const stored = (await hosted.store.feedback.list({ limit: 1000 })).find((f) => f.message === feedback.message);
        assert.equal(stored?.email, 'given@example.com');
      } finally {
        await client.close();
      }
      // The same over the wire: 200, no challenge.
      const res = await postMcp(hosted.url, listModels, bearer(key));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('www-authenticate'), null);
    });
  });

  describe('resource indicators (RFC 8707) at the authorization server', () => {
    it('refuses a resource that is not one of this server with invalid_target, back at the client', async () => {
      for (const resource of ['https://evil.example.com/mcp', `${hosted.url}/mcp/`, `${hosted.url}/api/v1`, `${hosted.url}/mcp#x`]) {
        const res = await authorize(hosted, authorizeParams(client, pkce().challenge, { scope: 'read:tab', resource }), cookie);
        assert.equal(res.status, 302, resource);
        const location = new URL(res.headers.get('location')!);
        assert.equal(location.searchParams.get('error'), 'invalid_target', resource);
        assert.equal(location.searchParams.get('code'), null);
      }
    });

    it('takes the API with or without the slash a URL parser adds', async () => {
      for (const resource of [hosted.url, `${hosted.url}/`]) {
        const grant = await getCode(hosted, client, cookie, { scope: 'read:models', resource });
        assert.equal(decodeJwt((await redeem(hosted, client, grant)).access_token).aud, hosted.url);
      }
    });

    /** A code authorized for the MCP endpoint, exchanged with `resource` on the token request. */
    const exchangeFor = async (resource: string) =>
      exchangeCode(hosted, client, await getCode(hosted, client, cookie, { scope: 'read:tab', resource: `${hosted.url}/mcp` }), { resource });

    it('refuses a token request that names another resource than the authorization did', async () => {
      await assertError(await exchangeFor(hosted.url), 400, 'invalid_target');
    });

    it('accepts the same resource again on the token request', async () => {
      const res = await exchangeFor(`${hosted.url}/mcp`);
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(decodeJwt(((await res.json()) as { access_token: string }).access_token).aud, `${hosted.url}/mcp`);
    });

    it('keeps the resource across refreshes, and refuses a refresh for another one', async () => {
      const { client: mcpClient, ...tokens } = await mcpTokens(hosted, 'read:tab', cookie);
      const refreshed = await refresh(hosted, mcpClient, tokens.refresh_token!);
      assert.equal(refreshed.status, 200);
      const next = (await refreshed.json()) as { access_token: string; refresh_token: string };
      assert.equal(decodeJwt(next.access_token).aud, `${hosted.url}/mcp`);
      await assertError(await refresh(hosted, mcpClient, next.refresh_token, { resource: hosted.url }), 400, 'invalid_target');
    });

    it('issues client credentials for the resource asked for', async () => {
      const { client: service, clientSecret } = await registerClient(hosted, { type: 'confidential', grantTypes: ['client_credentials'], redirectUris: [] });
      const asked = async (resource?: string) =>
        tokenRequest(hosted, { grant_type: 'client_credentials', scope: 'read:models', resource }, { clientId: service.clientId, secret: clientSecret! });
      const forMcp = (await (await asked(`${hosted.url}/mcp`)).json()) as { access_token: string };
      assert.equal(decodeJwt(forMcp.access_token).aud, `${hosted.url}/mcp`);
      assert.equal((await postMcp(hosted.url, listModels, bearer(forMcp.access_token))).status, 200);
      const byDefault = (await (await asked()).json()) as { access_token: string };
      assert.equal(decodeJwt(byDefault.access_token).aud, hosted.url);
      await assertError(await asked('https://elsewhere.example'), 400, 'invalid_target');
    });
  });
});
