// The server card at /.well-known/mcp.json and /mcp.json: what a client or a registry learns
// before it connects, made from the same tools the endpoint serves; and where the index files
// point at it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOOM_VERSION } from '../../../src/config/version.ts';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { connectMcp } from '../../support/mcp.ts';

interface Card {
  name: string;
  title: string;
  version: string;
  description: string;
  endpoint: string;
  transport: { type: string; sessions: boolean; methods: string[] };
  protocolVersions: string[];
  capabilities: Record<string, unknown>;
  authorization: {
    required: boolean;
    schemes: string[];
    protectedResourceMetadata: string;
    authorizationServers: string[];
    scopes: string[];
    clientRegistration: Record<string, unknown>;
  };
  documentation: string;
  tools: Array<Record<string, unknown> & { name: string; authorization: { anonymous: boolean; scopes: string[]; apiKeys: boolean } }>;
}

describe('MCP server card', () => {
  let hosted: TestHosted;
  let card: Card;
  before(async () => {
    hosted = await startTestHosted({ publicUrl: 'https://loom.example.com' });
    const res = await fetch(`${hosted.url}/.well-known/mcp.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    card = (await res.json()) as Card;
  });
  after(() => hosted.close());

  it('is the same document at /mcp.json', async () => {
    assert.deepEqual(await (await fetch(`${hosted.url}/mcp.json`)).json(), card);
  });

  it('names the server, its version, the endpoint, the transport and the revisions it speaks', () => {
    assert.equal(card.name, 'loom');
    assert.equal(card.version, LOOM_VERSION);
    assert.match(card.description, /tab completion/);
    assert.equal(card.endpoint, 'https://loom.example.com/mcp');
    assert.deepEqual(card.transport, { type: 'streamable-http', sessions: false, methods: ['POST'] });
    assert.deepEqual(card.protocolVersions, SUPPORTED_PROTOCOL_VERSIONS);
    assert.equal(card.protocolVersions[0], '2025-11-25');
    assert.deepEqual(card.capabilities, { tools: { listChanged: false } });
  });

  it('says how to authorize: the resource metadata, the authorization server, the scopes, dynamic registration', async () => {
    assert.equal(card.authorization.required, false);
    assert.equal(card.authorization.protectedResourceMetadata, 'https://loom.example.com/.well-known/oauth-protected-resource/mcp');
    assert.deepEqual(card.authorization.authorizationServers, ['https://loom.example.com']);
    assert.deepEqual(card.authorization.scopes, ['read:downloads', 'read:models', 'write:feedback', 'write:composer', 'read:tab']);
    assert.deepEqual(card.authorization.clientRegistration, { dynamic: 'https://loom.example.com/auth/register', clientIdMetadataDocuments: false });
    const metadata = (await (await fetch(`${hosted.url}/.well-known/oauth-protected-resource/mcp`)).json()) as { scopes_supported: string[] };
    assert.deepEqual(card.authorization.scopes, metadata.scopes_supported);
  });

  it('lists the tools as tools/list does, with who may call each', async () => {
    const { client } = await connectMcp(hosted.url);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        card.tools.map(({ authorization: _authorization, ...tool }) => tool),
        tools,
      );
    } finally {
      await client.close();
    }
    const who = Object.fromEntries(card.tools.map((tool) => [tool.name, tool.authorization]));
    assert.deepEqual(who.tab_complete, { anonymous: false, scopes: ['read:tab'], apiKeys: true });
    assert.deepEqual(who.list_models, { anonymous: true, scopes: ['read:models'], apiKeys: false });
    assert.deepEqual(who.list_downloads, { anonymous: true, scopes: ['read:downloads'], apiKeys: true });
  });

  it('is listed in llms.txt, with the endpoint and the tools, and in sitemap.xml', async () => {
    const llms = await (await fetch(`${hosted.url}/llms.txt`)).text();
    assert.match(llms, /^## MCP$/m);
    assert.ok(llms.includes('https://loom.example.com/mcp.'), 'the endpoint');
    for (const tool of card.tools) assert.ok(llms.includes(`- ${tool.name}: `), tool.name);
    assert.ok(llms.includes('(https://loom.example.com/.well-known/mcp.json)'));
    const sitemap = await (await fetch(`${hosted.url}/sitemap.xml`)).text();
    assert.ok(sitemap.includes('<loc>https://loom.example.com/.well-known/mcp.json</loc>'));
    assert.ok(sitemap.includes('<loc>https://loom.example.com/mcp.json</loc>'));
  });
});
