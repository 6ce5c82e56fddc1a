// The hosted MCP server through the SDK's own client over Streamable HTTP: initialize, the
// tools (exactly the operation table's, with the contracts' schemas), and every tool answering
// as its REST operation answers the same request, failures included.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOOM_VERSION } from '../../../src/config/version.ts';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { TSchema } from 'typebox';
import { operations, type AnyOperation } from '../../../src/contracts/operations.ts';
import { plainSchema } from '../../../src/contracts/schema-helpers.ts';
import { parseCatalog } from '../../../src/core/catalog/load.ts';
import { BuiltinModel } from '../../../src/core/completion/builtin/index.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { connectMcp, initializeMessage, postMcp } from '../../support/mcp.ts';
import { bearer, signedInUser } from '../../support/oauth.ts';
import { respond, startUpstream, type Upstream } from '../../support/upstream.ts';

type Json = Record<string, unknown>;

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Json;
  isError?: boolean;
}

/** The tools the table names, in its order. */
const TABLE_TOOLS = (operations as readonly AnyOperation[]).flatMap((o) =>
  (o as { mcpTool?: string }).mcpTool ? [{ name: (o as { mcpTool: string }).mcpTool, operation: o }] : [],
);

function trainedModel(): BuiltinModel {
  const model = new BuiltinModel();
  model.updateFile(
    'lib/loaders.ts',
    ['User', 'Team', 'Project'].map((name) => `export function load${name}(id: string) {\n  return fetchJson(\`/api/${name}/\${id}\`);\n}\n`).join('\n'),
  );
  return model;
}

describe('MCP tools (SDK client, Streamable HTTP)', () => {
  let upstream: Upstream;
  let hosted: TestHosted;
  /** Anonymous, as the tools open to anyone are called; `keyed` sends an API key (tab_complete needs a token). */
  let client: Client;
  let keyed: Client;
  let apiKey: string;

  before(async () => {
    upstream = await startUpstream();
    upstream.behave('/releases/ide-linux', respond(200));
    const asset = (key: string, file: string) => ({ key, name: `Asset ${key}`, platform: 'linux' as const, url: `${upstream.url}/releases/${file}`, size: 10 });
    const catalog = parseCatalog({
      products: [
        { id: 'ide', name: 'Loom Editor', version: '1.0.0', assets: [asset('linux-x64', 'ide-linux'), asset('linux-arm64', 'ide-gone')] },
        { id: 'cli', name: 'Loom CLI', assets: [asset('linux-x64', 'cli-linux')] },
      ],
      models: [{ name: 'Tiny', provider: 'Test', params: '1B', url: 'https://huggingface.co/test/tiny' }],
    });
    hosted = await startTestHosted({ catalog, builtinModel: trainedModel() });
    const { user } = await signedInUser(hosted, 'mcp@example.com');
    apiKey = (await hosted.identity.apiKeys.create(user.id, { name: 'mcp', expiresInDays: 1 })).key;
    ({ client } = await connectMcp(hosted.url));
    ({ client: keyed } = await connectMcp(hosted.url, { token: apiKey }));
  });
  after(async () => {
    await client.close();
    await keyed.close();
    await hosted.close();
    await upstream.close();
  });

  /** The same credentials on both sides: an API key for tab_complete, none for the others. */
  const needsKey = (name: string) => name === 'tab_complete';
  const call = async (name: string, args: Json) => (await (needsKey(name) ? keyed : client).callTool({ name, arguments: args })) as unknown as ToolResult;
  const rest = async (method: string, path: string, body?: Json) => {
    const res = await fetch(`${hosted.url}/api/v1${path}`, {
      method,
      headers: { ...(path.startsWith('/tab/') ? bearer(apiKey) : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  describe('initialize', () => {
    it('names the server, offers tools, and speaks the latest revision', () => {
      assert.deepEqual(client.getServerVersion(), { name: 'loom', title: 'Loom', version: LOOM_VERSION });
      assert.deepEqual(client.getServerCapabilities(), { tools: { listChanged: false } });
      assert.match(client.getInstructions() ?? '', /tab completion/);
    });

    it('negotiates every revision the SDK knows, and offers the latest for an unknown one', async () => {
      for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
        const res = await postMcp(hosted.url, initializeMessage(version));
        assert.equal(res.status, 200, version);
        assert.equal(((await res.json()) as { result: { protocolVersion: string } }).result.protocolVersion, version);
      }
      const res = await postMcp(hosted.url, initializeMessage('2099-01-01'));
      assert.equal(((await res.json()) as { result: { protocolVersion: string } }).result.protocolVersion, LATEST_PROTOCOL_VERSION);
    });

    it('answers in JSON and never names a session', async () => {
      const res = await postMcp(hosted.url, initializeMessage());
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(res.headers.get('mcp-session-id'), null);
    });

    it('answers ping', async () => {
      assert.deepEqual(await client.ping(), {});
    });
  });

  describe('tools/list', () => {
    it('lists exactly the tools of the operation table, in its order', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        TABLE_TOOLS.map((t) => t.name),
      );
      assert.deepEqual(
        TABLE_TOOLS.map((t) => t.name),
        [
          'list_downloads',
          'get_download_asset',
          'list_models',
          'submit_feedback',
          'tab_complete',
          'create_composer_session',
          'get_composer_session',
          'cancel_composer_session',
        ],
      );
    });

    it("gives each tool its operation's request as input schema and its success schema as output schema", async () => {
      const { tools } = await client.listTools();
      for (const { name, operation } of TABLE_TOOLS) {
        const tool = tools.find((t) => t.name === name)!;
        const request = operation.request as { params?: TSchema; query?: TSchema; body?: TSchema };
        const parts = [request.params, request.query, request.body].filter((part): part is TSchema => part !== undefined);
        assert.ok(parts.length <= 1, `${name}: one request part at most in today's table`);
        const expected = parts[0] ? plainSchema(parts[0]) : { type: 'object', properties: {}, additionalProperties: false };
        assert.deepEqual(tool.inputSchema, expected, `${name} input`);
        assert.deepEqual(tool.outputSchema, plainSchema(operation.success.schema), `${name} output`);
        assert.equal(tool.title, operation.summary);
        assert.equal(tool.description, operation.description);
      }
    });

    it('marks the tools that only read as read-only', async () => {
      const { tools } = await client.listTools();
      const readOnly = Object.fromEntries(tools.map((t) => [t.name, t.annotations?.readOnlyHint]));
      assert.deepEqual(readOnly, {
        list_downloads: true,
        get_download_asset: true,
        list_models: true,
        submit_feedback: false,
        tab_complete: true,
        // write:composer is their one scope: reading a session is no less guarded than making one.
        create_composer_session: false,
        get_composer_session: false,
        cancel_composer_session: false,
      });
    });
  });

  describe('tools/call answers as REST answers the same request', () => {
    /** The result carries the REST body twice: as structured content and as JSON text. */
    function assertSame(result: ToolResult, restBody: Json, name: string) {
      assert.equal(result.isError, undefined, `${name}: ${JSON.stringify(result)}`);
      assert.deepEqual(result.structuredContent, restBody, name);
      assert.equal(result.content.length, 1);
      assert.equal(result.content[0]!.type, 'text');
      assert.deepEqual(JSON.parse(result.content[0]!.text), restBody, `${name} text`);
    }

    it('list_downloads, with and without filters', async () => {
      for (const [args, query] of [
        [{}, ''],
        [{ product: 'ide', platform: 'linux' }, '?product=ide&platform=linux'],
        [{ platform: 'all' }, '?platform=all'],
      ] as const) {
        const expected = await rest('GET', `/download${query}`);
        assert.equal(expected.status, 200);
        assertSame(await call('list_downloads', args), expected.body, `list_downloads ${query}`);
      }
    });

    it('get_download_asset, checked upstream as REST checks it', async () => {
      const expected = await rest('GET', '/download/ide/linux-x64');
      assert.equal(expected.status, 200);
      assertSame(await call('get_download_asset', { product: 'ide', asset: 'linux-x64' }), expected.body, 'get_download_asset');
    });

    it('list_models', async () => {
      const expected = await rest('GET', '/models');
      assert.equal(expected.status, 200);
      assertSame(await call('list_models', {}), expected.body, 'list_models');
    });

    it('submit_feedback stores the feedback as REST does', async () => {
      const feedback = { name: 'Ada', email: 'ada@example.com', subject: 'MCP', message: 'Works from my editor.' };
      const expected = await rest('POST', '/feedback', feedback);
      assert.equal(expected.status, 201);
      const result = await call('submit_feedback', feedback);
      assert.deepEqual(Object.keys(result.structuredContent!).sort(), Object.keys(expected.body).sort());
      assert.equal(result.structuredContent!.ok, true);
      assert.notEqual(result.structuredContent!.id, expected.body.id, 'a new record');
      const stored = await hosted.store.feedback.list({ limit: 10 });
      assert.equal(stored.find((record) => record.id === result.structuredContent!.id)?.message, feedback.message);
    });

    it('tab_complete completes from the same engine', async () => {
      const cursor = { language: 'typescript', prefix: 'export function loadOrder(id: string) {\n  return ', suffix: '\n}\n' };
      const expected = await rest('POST', '/tab/complete', cursor);
      assert.equal(expected.status, 200);
      assert.notEqual(expected.body.completion, '', 'the model knows this code');
      const result = await call('tab_complete', cursor);
      assert.equal(result.isError, undefined);
      const { latencyMs, ...answer } = result.structuredContent!;
      const { latencyMs: _restLatency, ...restAnswer } = expected.body;
      assert.deepEqual(answer, restAnswer);
      assert.ok(Number.isInteger(latencyMs));
    });
  });

  describe('tools/call fails as REST fails: isError, and the Error body as text', () => {
    async function assertSameFailure(name: string, args: Json, method: string, path: string, status: number, body?: Json) {
      const expected = await rest(method, path, body);
      assert.equal(expected.status, status, `${name}: ${JSON.stringify(expected.body)}`);
      const result = await call(name, args);
      assert.equal(result.isError, true, name);
      assert.equal(result.structuredContent, undefined, 'no structured content: it would not match the output schema');
      assert.deepEqual(JSON.parse(result.content[0]!.text), expected.body, name);
    }

    it('a value outside its enum', () => assertSameFailure('list_downloads', { product: 'nope' }, 'GET', '/download?product=nope', 400));
    it('an asset that does not exist', () => assertSameFailure('get_download_asset', { product: 'ide', asset: 'nope' }, 'GET', '/download/ide/nope', 404));
    it('a product that does not exist', () =>
      assertSameFailure('get_download_asset', { product: 'nope', asset: 'linux-x64' }, 'GET', '/download/nope/linux-x64', 404));
    it('a release missing upstream', () =>
      assertSameFailure('get_download_asset', { product: 'ide', asset: 'linux-arm64' }, 'GET', '/download/ide/linux-arm64', 404));
    it('feedback that fails validation', () => {
      const feedback = { name: '', email: 'not an email', subject: 'x', message: 'y', extra: 1 };
      return assertSameFailure('submit_feedback', feedback, 'POST', '/feedback', 400, feedback);
    });
    it('a completion request without its required fields', () =>
      assertSameFailure('tab_complete', { language: 'ts' }, 'POST', '/tab/complete', 400, { language: 'ts' }));
    it('a model the server does not serve', () => {
      const cursor = { language: 'ts', prefix: 'a', suffix: '', model: 'gpt-9' };
      return assertSameFailure('tab_complete', cursor, 'POST', '/tab/complete', 400, cursor);
    });

    it('an unknown tool is a JSON-RPC error, not a tool result', async () => {
      await assert.rejects(client.callTool({ name: 'delete_everything', arguments: {} }), /-32602.*Unknown tool: delete_everything/);
    });
  });
});
