// The tool generator of `loom mcp` on routes the table does not have: a route that names a tool
// becomes one, with the contracts' schemas; what cannot be a tool is refused when the tools are
// built; a failure before the app is asked is still an isError result, never a thrown error.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { LocalApiError } from '../../src/client/local.ts';
import { localRoutes, type AnyLocalRoute, type LocalRoute } from '../../src/contracts/local-routes.ts';
import { buildLocalTools } from '../../src/mcp/local-tools.ts';

function route(overrides: Record<string, unknown>): AnyLocalRoute {
  return {
    id: 'renameSymbol',
    method: 'POST',
    path: '/api/editor/rename/:symbol',
    summary: 'Rename a symbol',
    description: 'Renames a symbol everywhere.',
    tag: 'Editor',
    request: {
      params: Type.Object({ symbol: Type.String({ minLength: 1 }) }),
      body: Type.Object({ to: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    },
    success: { status: 200, description: 'Renamed.', schema: Type.Object({ files: Type.Integer() }) },
    errors: [],
    mcpTool: 'rename_symbol',
    ...overrides,
  } as unknown as AnyLocalRoute;
}

const nowhere = () => ({ url: 'http://127.0.0.1:9', token: 'x' });

describe('loom mcp tool generator', () => {
  it('makes a tool of a route that names one, and of no other; its fields side by side', () => {
    const tools = buildLocalTools(nowhere, [route({}), route({ id: 'other', mcpTool: undefined })]);
    assert.deepEqual([...tools.keys()], ['rename_symbol']);
    const { definition } = tools.get('rename_symbol')!;
    assert.deepEqual(definition.inputSchema, {
      type: 'object',
      properties: { symbol: { type: 'string', minLength: 1 }, to: { type: 'string', minLength: 1 } },
      required: ['symbol', 'to'],
      additionalProperties: false,
    });
    assert.deepEqual(definition.outputSchema, { type: 'object', properties: { files: { type: 'integer' } }, required: ['files'] });
    assert.deepEqual(definition.annotations, { title: 'Rename a symbol', readOnlyHint: false });
  });

  it('refuses what cannot be a tool: a WebSocket, a window-only route, a name used twice, an answer that is no object, a field in two parts', () => {
    assert.throws(() => buildLocalTools(nowhere, [route({ websocket: true })]), /WebSocket/);
    // What runs code is the user's at the keyboard: never a tool (the table's types refuse it as well).
    assert.throws(() => buildLocalTools(nowhere, [route({ access: 'window' })]), /a window-only route cannot be an MCP tool/);
    assert.throws(() => buildLocalTools(nowhere, [route({}), route({ id: 'again' })]), /"rename_symbol" is taken/);
    assert.throws(
      () => buildLocalTools(nowhere, [route({ success: { status: 200, description: 'x', schema: Type.Array(Type.String()) } })]),
      /must be an object schema/,
    );
    const clash = { params: Type.Object({ to: Type.String() }), body: Type.Object({ to: Type.String() }) };
    assert.throws(() => buildLocalTools(nowhere, [route({ request: clash })]), /"to" is in two parts/);
  });

  it('makes no tool of the table’s window-only routes: approving an agent’s command is not a tool', () => {
    const tools = [...buildLocalTools(nowhere).values()];
    const windowOnly = localRoutes.filter((entry) => (entry as LocalRoute).access === 'window').map((entry) => entry.id);
    assert.ok(windowOnly.includes('answerAgentApproval'));
    assert.deepEqual(
      tools.filter((tool) => windowOnly.includes(tool.route.id as never)).map((tool) => tool.definition.name),
      [],
    );
    assert.ok(
      tools.some((tool) => tool.route.id === 'sendAgentMessage'),
      'a follow-up message is a tool, as starting a task is',
    );
  });

  it('a failure before the app is asked is an isError result with the envelope', async () => {
    const unreadable = () => {
      throw new Error('settings.json is not JSON');
    };
    const offline = () => {
      throw new LocalApiError(0, 'UNREACHABLE', 'No settings.json in /x.');
    };
    const signal = new AbortController().signal;
    const broken = await buildLocalTools(unreadable, [route({})])
      .get('rename_symbol')!
      .call({ symbol: 'a', to: 'b' }, signal);
    assert.equal(broken.isError, true);
    assert.deepEqual(JSON.parse((broken.content[0] as { text: string }).text), {
      error: { code: 'INTERNAL_ERROR', message: 'loom mcp failed before it reached the app: settings.json is not JSON' },
    });
    const down = await buildLocalTools(offline, [route({})])
      .get('rename_symbol')!
      .call({ symbol: 'a', to: 'b' }, signal);
    const { error } = JSON.parse((down.content[0] as { text: string }).text);
    assert.deepEqual([down.isError, error.code, error.message], [true, 'UNREACHABLE', 'No settings.json in /x.']);
    assert.match(error.hint, /`loom serve`/);
  });
});
