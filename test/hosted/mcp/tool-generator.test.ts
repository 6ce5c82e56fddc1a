// The tool generator on operations the table does not have yet (a composer session's get and
// create take path parameters and a body): a new operation with an `mcpTool` name becomes a tool
// with no other code; its request's parts become one object of arguments, split back and each
// checked as REST checks it; what cannot be a tool is refused when the server is built.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import type { AnyOperation } from '../../../src/contracts/operations.ts';
import type { HandlerContext, Handlers } from '../../../src/hosted/handlers/index.ts';
import { buildTools } from '../../../src/hosted/mcp/tools.ts';

const context = { client: { ip: '127.0.0.1' }, signal: new AbortController().signal };

function operation(overrides: Record<string, unknown>): AnyOperation {
  return {
    operationId: 'editSession',
    method: 'POST',
    path: '/sessions/:sessionId/edits',
    summary: 'Edit a session',
    description: 'Adds an edit to a session.',
    tag: 'Sessions',
    versions: ['v1'],
    auth: { oauth2: ['write:composer'] },
    request: {
      params: Type.Object({ sessionId: Type.String({ format: 'uuid' }) }),
      query: Type.Object({ dryRun: Type.Optional(Type.Boolean()) }),
      body: Type.Object({ prompt: Type.String({ minLength: 1 }), files: Type.Array(Type.String()) }, { additionalProperties: false }),
    },
    success: { status: 201, description: 'Added.', schema: Type.Object({ editId: Type.String() }) },
    errors: [],
    mcpTool: 'edit_session',
    ...overrides,
  } as unknown as AnyOperation;
}

/** A handler that answers with what it was given. */
const answerInput = async (input: unknown, given: HandlerContext) => ({ editId: 'e1', input, version: given.version });
const echo = { editSession: answerInput } as unknown as Handlers;

describe('MCP tool generator', () => {
  it('makes a tool of an operation that names one, and of no other', () => {
    const tools = buildTools(echo, [operation({}), operation({ operationId: 'other', mcpTool: undefined })]);
    assert.deepEqual([...tools.keys()], ['edit_session']);
    const { definition, auth } = tools.get('edit_session')!;
    assert.equal(definition.title, 'Edit a session');
    assert.deepEqual(auth, { oauth2: ['write:composer'] });
    assert.deepEqual(definition.annotations, { title: 'Edit a session', readOnlyHint: false });
  });

  it("puts the fields of every part side by side, required ones and the body's closedness kept", () => {
    const { definition } = buildTools(echo, [operation({})]).get('edit_session')!;
    assert.deepEqual(definition.inputSchema, {
      type: 'object',
      properties: {
        sessionId: { type: 'string', format: 'uuid' },
        dryRun: { type: 'boolean' },
        prompt: { type: 'string', minLength: 1 },
        files: { type: 'array', items: { type: 'string' } },
      },
      required: ['sessionId', 'prompt', 'files'],
      additionalProperties: false,
    });
    assert.deepEqual(definition.outputSchema, { type: 'object', required: ['editId'], properties: { editId: { type: 'string' } } });
  });

  it("splits the arguments back into the handler's parts, at the operation's default version", async () => {
    const tool = buildTools(echo, [operation({})]).get('edit_session')!;
    const sessionId = '3f2b8c1e-9d4a-4c7b-8e21-5a6f0d9b1c2e';
    const result = await tool.call({ sessionId, dryRun: true, prompt: 'Rename it', files: ['a.ts'] }, context);
    assert.equal(result.isError, undefined, JSON.stringify(result));
    assert.deepEqual(result.structuredContent, {
      editId: 'e1',
      input: { params: { sessionId }, query: { dryRun: true }, body: { prompt: 'Rename it', files: ['a.ts'] } },
      version: 'v1',
    });
  });

  it('checks each part as REST does: a bad path parameter is not_found, a bad body validation_error, an unknown field goes to the body', async () => {
    const tool = buildTools(echo, [operation({})]).get('edit_session')!;
    const bodyOf = async (args: Record<string, unknown>) => {
      const result = await tool.call(args, context);
      assert.equal(result.isError, true);
      return JSON.parse((result.content[0] as { text: string }).text) as { error: string; message: string };
    };
    assert.equal((await bodyOf({ sessionId: 'nope', prompt: 'x', files: [] })).error, 'not_found');
    const invalid = await bodyOf({ sessionId: '3f2b8c1e-9d4a-4c7b-8e21-5a6f0d9b1c2e', prompt: '', files: [] });
    assert.equal(invalid.error, 'validation_error');
    assert.match(invalid.message, /body\.prompt/);
    const unknown = await bodyOf({ sessionId: '3f2b8c1e-9d4a-4c7b-8e21-5a6f0d9b1c2e', prompt: 'x', files: [], extra: 1 });
    assert.match(unknown.message, /body\.extra is not a known field/);
  });

  it('takes a lone part as it is, and no part as an empty object', () => {
    const single = operation({ request: { body: Type.Object({ text: Type.String() }) } });
    const none = operation({ operationId: 'listThings', mcpTool: 'list_things', request: {} });
    const tools = buildTools({ editSession: answerInput, listThings: answerInput } as unknown as Handlers, [single, none]);
    assert.deepEqual(tools.get('edit_session')!.definition.inputSchema, { type: 'object', required: ['text'], properties: { text: { type: 'string' } } });
    assert.deepEqual(tools.get('list_things')!.definition.inputSchema, { type: 'object', properties: {}, additionalProperties: false });
  });

  it('refuses, when the server is built, what no MCP client could call', () => {
    const clash = operation({ request: { params: Type.Object({ id: Type.String() }), body: Type.Object({ id: Type.String() }) } });
    assert.throws(() => buildTools(echo, [clash]), /"id" is in two parts/);
    const notObject = operation({ success: { status: 200, description: '', schema: Type.Array(Type.String()) } });
    assert.throws(() => buildTools(echo, [notObject]), /must be an object schema/);
  });
});
