// A seeded property-based fuzz of /mcp: JSON-RPC messages of every shape (known and unknown
// methods, tool calls with arguments of any JSON type, odd ids and versions), with and without
// credentials and protocol headers. Every answer is a 2xx or a 4xx, never a 5xx; a JSON-RPC
// answer names the request's id. Client registration, open to anyone, is fuzzed the same way.
// Replay a failure with LOOM_FUZZ_SEED=<seed>.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { fuzzSeed } from '../../support/fuzz/run.ts';
import { startTestHosted, type TestHosted } from '../../support/hosted.ts';
import { postMcp } from '../../support/mcp.ts';
import { signedInUser } from '../../support/oauth.ts';

const TOOLS = ['list_downloads', 'get_download_asset', 'list_models', 'submit_feedback', 'tab_complete'];

describe('MCP fuzz', () => {
  let hosted: TestHosted;
  let headerSets: Record<string, string>[];
  before(async () => {
    hosted = await startTestHosted({ rateLimit: { max: 1_000_000, windowSeconds: 60 }, bodyLimit: 64 * 1024 });
    const { user } = await signedInUser(hosted, 'fuzz@example.com');
    const { key } = await hosted.identity.apiKeys.create(user.id, { name: 'fuzz', expiresInDays: 1 });
    headerSets = [
      {},
      { authorization: `Bearer ${key}` },
      { authorization: `Bearer ${key.slice(0, -4)}AAAA` },
      { authorization: 'Basic !!!' },
      { 'mcp-protocol-version': '2025-11-25' },
      { 'mcp-protocol-version': '2025-03-26', authorization: `Bearer ${key}` },
    ];
  });
  after(() => hosted.close());

  const id = fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.jsonValue({ maxDepth: 1 }));
  const toolCall = fc.record(
    {
      jsonrpc: fc.constantFrom('2.0', '1.0', 2),
      id,
      method: fc.constant('tools/call'),
      params: fc.oneof(
        fc.record(
          {
            name: fc.oneof(fc.constantFrom(...TOOLS), fc.string({ maxLength: 30 })),
            arguments: fc.oneof(
              fc.jsonValue({ maxDepth: 3 }),
              fc.dictionary(
                fc.constantFrom(
                  'product',
                  'asset',
                  'platform',
                  'name',
                  'email',
                  'subject',
                  'message',
                  'language',
                  'prefix',
                  'suffix',
                  'filePath',
                  'model',
                  '__proto__',
                  'constructor',
                ),
                fc.jsonValue({ maxDepth: 2 }),
              ),
            ),
          },
          { requiredKeys: ['name'] },
        ),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  );
  const other = fc.record(
    {
      jsonrpc: fc.constant('2.0'),
      id,
      method: fc.oneof(
        fc.constantFrom(
          'initialize',
          'ping',
          'tools/list',
          'notifications/initialized',
          'notifications/cancelled',
          'resources/list',
          'prompts/get',
          'logging/setLevel',
          'completion/complete',
        ),
        fc.string({ maxLength: 30 }),
      ),
      params: fc.jsonValue({ maxDepth: 3 }),
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  );
  const message = fc.oneof({ weight: 3, arbitrary: toolCall }, { weight: 2, arbitrary: other }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) });

  it('answers every message with a 2xx or a 4xx, never a 5xx', async () => {
    const seed = fuzzSeed();
    await fc.assert(
      fc.asyncProperty(message, fc.nat({ max: 5 }), async (sent, headerIndex) => {
        const res = await postMcp(hosted.url, sent, headerSets[headerIndex]!);
        const text = await res.text();
        const where = `seed ${seed}: ${JSON.stringify(sent).slice(0, 300)} → ${res.status} ${text.slice(0, 300)}`;
        assert.ok(res.status < 500, where);
        if (res.status === 202) return;
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/, where);
        const body = JSON.parse(text) as { jsonrpc?: string; id?: unknown };
        const request = sent as { id?: unknown } | null;
        if (res.status === 200 && body.jsonrpc === '2.0' && request && typeof request === 'object' && 'id' in request && request.id !== null) {
          assert.deepEqual(body.id, request.id, where);
        }
      }),
      { seed, numRuns: 300 },
    );
  });

  it('answers every client registration with a 201 or a 4xx in the Error shape', async () => {
    const seed = fuzzSeed();
    const uri = fc.oneof(
      fc.constantFrom(
        'https://app.example.com/cb',
        'http://127.0.0.1:1/cb',
        'http://localhost/cb',
        'http://[::1]:9/x',
        'cursor://a/b',
        'javascript:alert(1)',
        'https://a.example/cb#x',
      ),
      fc.webUrl(),
      fc.string({ maxLength: 40 }),
    );
    const metadata = fc.oneof(
      fc.record(
        {
          redirect_uris: fc.oneof(fc.array(uri, { maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })),
          client_name: fc.oneof(fc.string({ maxLength: 120 }), fc.jsonValue({ maxDepth: 1 })),
          grant_types: fc.oneof(
            fc.array(fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials', 'implicit')),
            fc.jsonValue({ maxDepth: 1 }),
          ),
          response_types: fc.oneof(fc.array(fc.constantFrom('code', 'token')), fc.jsonValue({ maxDepth: 1 })),
          token_endpoint_auth_method: fc.jsonValue({ maxDepth: 1 }),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(metadata, async (sent) => {
        const res = await fetch(`${hosted.url}/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sent) });
        const body = (await res.json()) as { error?: string; message?: string; client_id?: string };
        const where = `seed ${seed}: ${JSON.stringify(sent).slice(0, 300)} → ${res.status} ${JSON.stringify(body).slice(0, 300)}`;
        if (res.status === 201) assert.ok(body.client_id, where);
        else assert.ok(res.status >= 400 && res.status < 500 && typeof body.error === 'string' && typeof body.message === 'string', where);
      }),
      { seed, numRuns: 200 },
    );
  });
});
