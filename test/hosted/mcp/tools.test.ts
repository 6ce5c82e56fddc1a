// The hosted MCP server through the SDK's own client over Streamable HTTP: initialize, the
// tools (exactly the operation table's, with the contracts' schemas), and every tool answering
// as its REST operation answers the same request, failures included: the catalog's and
// completion's tools against one server, the composer's against one whose model is a scripted
// OpenAI-compatible fake. The last test checks that every tool of the table was compared.
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
import { connectMcp, initializeMessage, MCP_HEADERS, postMcp, rpc } from '../../support/mcp.ts';
import { assertError, bearer, signedInUser } from '../../support/oauth.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../support/openai-fake.ts';
import { respond, startUpstream, type Upstream } from '../../support/upstream.ts';
import { waitFor } from '../../support/wait.ts';

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

/** The tools whose answers (success and failure) were compared with REST's, by the tests below. */
const compared = new Set<string>();

/** The result carries the REST body twice: as structured content and as JSON text. */
function assertSame(result: ToolResult, restBody: Json, name: string) {
  assert.equal(result.isError, undefined, `${name}: ${JSON.stringify(result)}`);
  assert.deepEqual(result.structuredContent, restBody, name);
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0]!.type, 'text');
  assert.deepEqual(JSON.parse(result.content[0]!.text), restBody, `${name} text`);
  compared.add(name.split(' ')[0]!);
}

/** A failure is `isError` with the REST Error body as its one text block, and no structured content. */
function assertSameFailure(result: ToolResult, restBody: Json, name: string) {
  assert.equal(result.isError, true, name);
  assert.equal(result.structuredContent, undefined, 'no structured content: it would not match the output schema');
  assert.deepEqual(JSON.parse(result.content[0]!.text), restBody, name);
}

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
          'continue_composer_session',
        ],
      );
    });

    it("gives each tool its operation's request as input schema and its success schema as output schema", async () => {
      const { tools } = await client.listTools();
      for (const { name, operation } of TABLE_TOOLS) {
        const tool = tools.find((t) => t.name === name)!;
        const request = operation.request as { params?: TSchema; query?: TSchema; body?: TSchema };
        const parts = [request.params, request.query, request.body].filter((part): part is TSchema => part !== undefined);
        if (parts.length <= 1) {
          const expected = parts[0] ? plainSchema(parts[0]) : { type: 'object', properties: {}, additionalProperties: false };
          assert.deepEqual(tool.inputSchema, expected, `${name} input`);
        } else {
          // Path parameters and a body: their fields side by side, each required as in its part, nothing else taken.
          const fields = parts.map((part) => plainSchema(part) as { properties: Record<string, unknown>; required?: string[] });
          assert.deepEqual(tool.inputSchema.properties, Object.assign({}, ...fields.map((part) => part.properties)), `${name} input`);
          assert.deepEqual(
            tool.inputSchema.required,
            fields.flatMap((part) => part.required ?? []),
            `${name} required`,
          );
          assert.equal(tool.inputSchema.additionalProperties, false, `${name} takes nothing else`);
        }
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
        continue_composer_session: false,
      });
    });
  });

  describe('tools/call answers as REST answers the same request', () => {
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
      compared.add('submit_feedback');
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
      compared.add('tab_complete');
    });
  });

  describe('tools/call fails as REST fails: isError, and the Error body as text', () => {
    async function assertSameFailureAsRest(name: string, args: Json, method: string, path: string, status: number, body?: Json) {
      const expected = await rest(method, path, body);
      assert.equal(expected.status, status, `${name}: ${JSON.stringify(expected.body)}`);
      assertSameFailure(await call(name, args), expected.body, name);
    }

    it('a value outside its enum', () => assertSameFailureAsRest('list_downloads', { product: 'nope' }, 'GET', '/download?product=nope', 400));
    it('an asset that does not exist', () =>
      assertSameFailureAsRest('get_download_asset', { product: 'ide', asset: 'nope' }, 'GET', '/download/ide/nope', 404));
    it('a product that does not exist', () =>
      assertSameFailureAsRest('get_download_asset', { product: 'nope', asset: 'linux-x64' }, 'GET', '/download/nope/linux-x64', 404));
    it('a release missing upstream', () =>
      assertSameFailureAsRest('get_download_asset', { product: 'ide', asset: 'linux-arm64' }, 'GET', '/download/ide/linux-arm64', 404));
    it('feedback that fails validation', () => {
      const feedback = { name: '', email: 'not an email', subject: 'x', message: 'y', extra: 1 };
      return assertSameFailureAsRest('submit_feedback', feedback, 'POST', '/feedback', 400, feedback);
    });
    it('a completion request without its required fields', () =>
      assertSameFailureAsRest('tab_complete', { language: 'ts' }, 'POST', '/tab/complete', 400, { language: 'ts' }));
    it('a model the server does not serve', () => {
      const cursor = { language: 'ts', prefix: 'a', suffix: '', model: 'gpt-9' };
      return assertSameFailureAsRest('tab_complete', cursor, 'POST', '/tab/complete', 400, cursor);
    });

    it('an unknown tool is a JSON-RPC error, not a tool result', async () => {
      await assert.rejects(client.callTool({ name: 'delete_everything', arguments: {} }), /-32602.*Unknown tool: delete_everything/);
    });

    it('params a method does not take are a JSON-RPC -32602 Invalid params naming them, not an internal error', async () => {
      for (const [message, field] of [
        [rpc('tools/call', { name: 'list_models', arguments: '{}' }), 'params.arguments'],
        [rpc('tools/call', { arguments: {} }), 'params.name'],
        [rpc('initialize', {}), 'params.protocolVersion'],
        [rpc('tools/list', { cursor: 5 }), 'params.cursor'],
      ] as const) {
        const res = await postMcp(hosted.url, message);
        assert.equal(res.status, 200);
        const answer = (await res.json()) as { id: number; error: { code: number; message: string } };
        assert.equal(answer.id, message.id);
        assert.equal(answer.error.code, -32602, answer.error.message);
        assert.ok(answer.error.message.startsWith(`Invalid params of ${message.method}: ${field}: `), answer.error.message);
      }
    });
  });
});

describe('MCP composer tools (SDK client, Streamable HTTP, a scripted model)', () => {
  const SESSION = '/api/v1/composer/session';
  /** Small, so that a session with attachments passes it, as composer's REST route lets it. */
  const BODY_LIMIT = 16 * 1024;
  let fake: FakeOpenAi;
  let hosted: TestHosted;
  let key: string;
  let otherKey: string;
  let client: Client;

  before(async () => {
    fake = await startFakeOpenAi();
    hosted = await startTestHosted({
      completion: { provider: 'openai', openai: { baseUrl: fake.baseUrl, model: 'fake-coder', fim: 'off' } },
      composer: { concurrency: 1 },
      bodyLimit: BODY_LIMIT,
    });
    const create = async (email: string) =>
      (await hosted.identity.apiKeys.create((await signedInUser(hosted, email)).user.id, { name: 'mcp', expiresInDays: 1 })).key;
    key = await create('composer-mcp@example.com');
    otherKey = await create('someone-else@example.com');
    ({ client } = await connectMcp(hosted.url, { token: key }));
  });
  after(async () => {
    await client.close();
    await hosted.close();
    await fake.close();
  });

  const call = async (name: string, args: Json) => (await client.callTool({ name, arguments: args })) as unknown as ToolResult;
  const rest = async (method: string, path: string, body?: Json, token = key) => {
    const res = await fetch(`${hosted.url}${path}`, {
      method,
      headers: { ...bearer(token), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  /** The session once it has ended, as REST reads it. */
  const ended = async (sessionId: string, token = key) => {
    let session: Json = {};
    await waitFor(
      async () =>
        ['completed', 'failed', 'cancelled'].includes((session = (await rest('GET', `${SESSION}/${sessionId}`, undefined, token)).body).status as string),
      undefined,
      `the end of ${sessionId}`,
    );
    return session;
  };
  const ADD = 'export const add = (a, b) => a - b;\n';
  const request = (prompt: string, content = ADD) => ({ prompt, files: ['src/**'], attachments: [{ path: 'src/add.ts', content }] });
  /** The model's turns for a session that fixes add: one edit, then its last words. */
  const fixesAdd = () =>
    fake.chat.queue(
      {
        kind: 'tools',
        calls: [
          {
            id: 'call_1',
            name: 'edit_file',
            arguments: JSON.stringify({ path: 'src/add.ts', search: ADD.trimEnd(), replace: ADD.trimEnd().replace('-', '+') }),
          },
        ],
      },
      { kind: 'text', text: 'Fixed the sign.' },
    );

  it('create_composer_session starts a session as POST /composer/session does; get_composer_session reads it as GET does', async () => {
    fixesAdd();
    const viaRest = await rest('POST', SESSION, request('Fix add'));
    assert.equal(viaRest.status, 201);
    assert.equal((await ended(viaRest.body.sessionId as string)).status, 'completed');

    fixesAdd();
    const created = await call('create_composer_session', request('Fix add'));
    assert.equal(created.isError, undefined, JSON.stringify(created));
    // Another session than REST's: the same answer but for its own id and how far it got.
    const { sessionId, status, ...answer } = created.structuredContent!;
    const { sessionId: _restId, status: _restStatus, ...restAnswer } = viaRest.body;
    assert.deepEqual(answer, restAnswer);
    assert.match(sessionId as string, /^[0-9a-f-]{36}$/);
    assert.ok(['queued', 'running'].includes(status as string));
    assert.deepEqual(JSON.parse(created.content[0]!.text), created.structuredContent);
    compared.add('create_composer_session');

    const session = await ended(sessionId as string);
    assert.equal(session.status, 'completed', session.error as string);
    assert.equal((session.edits as { content: string }[])[0]?.content, 'export const add = (a, b) => a + b;\n', JSON.stringify(session));
    assertSame(await call('get_composer_session', { sessionId }), session, 'get_composer_session');
  });

  it('cancel_composer_session stops a running session; on an ended one it answers as POST …/cancel does', async () => {
    fake.chat.queue({ kind: 'text', text: 'thinking…', hold: true });
    const held = fake.chat.held();
    const created = await call('create_composer_session', request('Take your time'));
    const sessionId = created.structuredContent!.sessionId as string;
    await held;
    const cancelled = await call('cancel_composer_session', { sessionId });
    assert.equal(cancelled.isError, undefined, JSON.stringify(cancelled));
    assert.equal(cancelled.structuredContent!.sessionId, sessionId);
    assert.equal(cancelled.structuredContent!.cancelRequested, true);
    assert.equal((await ended(sessionId)).status, 'cancelled');
    fake.chat.release();
    assertSame(await call('cancel_composer_session', { sessionId }), (await rest('POST', `${SESSION}/${sessionId}/cancel`)).body, 'cancel_composer_session');
  });

  it('continue_composer_session continues an ended session as POST …/message does', async () => {
    fixesAdd();
    const created = await call('create_composer_session', request('Fix add'));
    const sessionId = created.structuredContent!.sessionId as string;
    assert.equal((await ended(sessionId)).status, 'completed');
    fake.chat.queue({ kind: 'text', text: 'Nothing more to do.' });
    const continued = await call('continue_composer_session', { sessionId, message: 'Check it once more.' });
    assert.equal(continued.isError, undefined, JSON.stringify(continued));
    compared.add('continue_composer_session');
    assert.equal(continued.structuredContent!.sessionId, sessionId);
    assert.deepEqual(
      (continued.structuredContent!.messages as { message: string }[]).map((m) => m.message),
      ['Check it once more.'],
    );
    const session = await ended(sessionId);
    assert.equal(session.status, 'completed');
    assert.equal(session.summary, 'Nothing more to do.');
    // Running or not, an empty message is refused as REST refuses it.
    const refused = await call('continue_composer_session', { sessionId, message: '  ' });
    assert.equal(refused.isError, true);
    assert.deepEqual(JSON.parse(refused.content[0]!.text), (await rest('POST', `${SESSION}/${sessionId}/message`, { message: '  ' })).body);
  });

  it('takes a session as large as REST does, past the server body limit, from a caller with a token; without one such a message is 413 unread', async () => {
    const large = request('Fix add in a long file', ADD + '// padding\n'.repeat(3 * 1024));
    assert.ok(JSON.stringify(large).length > 2 * BODY_LIMIT);
    fixesAdd();
    const viaRest = await rest('POST', SESSION, large);
    assert.equal(viaRest.status, 201, JSON.stringify(viaRest.body));
    await ended(viaRest.body.sessionId as string);
    fixesAdd();
    const created = await call('create_composer_session', large);
    assert.equal(created.isError, undefined, JSON.stringify(created));
    assert.equal((await ended(created.structuredContent!.sessionId as string)).status, 'completed');

    const message = rpc('tools/call', { name: 'create_composer_session', arguments: large });
    await assertError(await postMcp(hosted.url, message), 413, 'payload_too_large');
    // Sent in chunks, with no Content-Length to judge it by beforehand.
    const body = new Blob([JSON.stringify(message)]).stream();
    const chunked = await fetch(`${hosted.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body, duplex: 'half' } as RequestInit);
    await assertError(chunked, 413, 'payload_too_large');
    // A small one is judged by the tool's rule: it needs a token.
    await assertError(await postMcp(hosted.url, rpc('tools/call', { name: 'create_composer_session', arguments: request('Fix add') })), 401, 'unauthorized');
  });

  describe('fails as REST fails: isError, and the Error body as text', () => {
    const sameFailure = async (name: string, args: Json, method: string, path: string, status: number, body?: Json) => {
      const expected = await rest(method, path, body);
      assert.equal(expected.status, status, `${name}: ${JSON.stringify(expected.body)}`);
      assertSameFailure(await call(name, args), expected.body, name);
    };
    const unknown = '00000000-0000-4000-8000-000000000000';

    it('a session that does not exist, or an id that is none', async () => {
      await sameFailure('get_composer_session', { sessionId: unknown }, 'GET', `${SESSION}/${unknown}`, 404);
      await sameFailure('get_composer_session', { sessionId: 'not-a-uuid' }, 'GET', `${SESSION}/not-a-uuid`, 404);
      await sameFailure('cancel_composer_session', { sessionId: unknown }, 'POST', `${SESSION}/${unknown}/cancel`, 404);
    });

    it("another user's session: 404, as if it did not exist", async () => {
      fixesAdd();
      const theirs = await rest('POST', SESSION, request('Theirs'), otherKey);
      assert.equal(theirs.status, 201);
      const sessionId = theirs.body.sessionId as string;
      await sameFailure('get_composer_session', { sessionId }, 'GET', `${SESSION}/${sessionId}`, 404);
      await sameFailure('cancel_composer_session', { sessionId }, 'POST', `${SESSION}/${sessionId}/cancel`, 404);
      // The attempt to cancel it changed nothing.
      assert.equal((await ended(sessionId, otherKey)).status, 'completed');
    });

    it('a request that fails validation', async () => {
      const bad = { prompt: '', files: [], extra: true };
      await sameFailure('create_composer_session', bad, 'POST', SESSION, 400, bad);
    });
  });
});

describe('every tool of the table', () => {
  it('was compared with its REST operation above', () => {
    assert.deepEqual([...compared].sort(), TABLE_TOOLS.map((t) => t.name).sort());
  });
});
