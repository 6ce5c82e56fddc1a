// The text form of tool calls (servers without native tools): what the system prompt declares,
// how earlier calls and results are written, and reading calls out of a model's answer,
// including the broken ones a small model writes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseToolArguments, type ChatTool } from '../../../src/core/completion/chat.ts';
import { describeToolsInText, readTextToolCalls, toolCallText, toolResultText } from '../../../src/core/completion/tool-text.ts';

const TOOL: ChatTool = { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } };

describe('tool calls in text', () => {
  it('declares the tools with their schemas and the form of a call', () => {
    const text = describeToolsInText([TOOL]);
    assert.ok(text.startsWith('# Tools\n'));
    assert.ok(text.includes('<tool_call>\n{"name": "tool_name", "arguments": {"argument": "value"}}\n</tool_call>'));
    assert.ok(text.includes(`<tools>\n${JSON.stringify({ name: TOOL.name, description: TOOL.description, parameters: TOOL.parameters })}\n</tools>`));
  });

  it('writes earlier calls and results the way they are read', () => {
    const written = toolCallText({ id: 'call_1', name: 'read_file', argumentsText: '{"path": "a.ts"}' });
    assert.equal(written, '<tool_call>\n{"name":"read_file","arguments":{"path":"a.ts"}}\n</tool_call>');
    const read = readTextToolCalls(written);
    assert.deepEqual(
      read.calls.map(({ name, arguments: args }) => ({ name, args })),
      [{ name: 'read_file', args: { path: 'a.ts' } }],
    );
    // A malformed call of an earlier turn is written as the text it was, in a JSON string.
    assert.equal(
      toolCallText({ id: 'c', name: 'read_file', argumentsText: '{"path": ' }),
      '<tool_call>\n{"name":"read_file","arguments":"{\\"path\\": "}\n</tool_call>',
    );
    assert.equal(toolResultText('read_file', 'line 1\nline 2'), '<tool_response name="read_file">\nline 1\nline 2\n</tool_response>');
  });

  it('reads several calls and the text around them', () => {
    const answer = [
      'First the file, then a search.',
      '<tool_call>',
      '{"name": "read_file", "arguments": {"path": "src/math.ts"}}',
      '</tool_call>',
      '<tool_call>',
      '```json',
      '{"name": "search", "parameters": {"query": "add("}}',
      '```',
      '</tool_call>',
      '<tool_call>{"name": "search", "arguments": "{\\"query\\": \\"sum\\"}"}</tool_call>',
      'Then I will edit.',
    ].join('\n');
    const { text, calls } = readTextToolCalls(answer);
    assert.equal(text, 'First the file, then a search.\n\nThen I will edit.');
    assert.deepEqual(
      calls.map(({ name, arguments: args, error }) => ({ name, args, error })),
      [
        { name: 'read_file', args: { path: 'src/math.ts' }, error: undefined },
        { name: 'search', args: { query: 'add(' }, error: undefined },
        { name: 'search', args: { query: 'sum' }, error: undefined },
      ],
    );
    assert.equal(new Set(calls.map((call) => call.id)).size, 3, 'each call has its own id');
    assert.ok(calls.every((call) => /^call_[0-9a-f]{24}$/.test(call.id)));
  });

  it('returns broken calls with their error, never throwing', () => {
    const { calls } = readTextToolCalls(
      [
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}</tool_call>',
        '<tool_call>["read_file"]</tool_call>',
        '<tool_call>{"arguments": {}}</tool_call>',
        '<tool_call>{"name": "read_file", "arguments": [1]}</tool_call>',
        '<tool_call>\n{"name": "search", "arguments": {"query": "unfinished',
      ].join('\n'),
    );
    assert.deepEqual(
      calls.map(({ name, error }) => [name, error?.replace(/:.*/s, '')]),
      [
        ['read_file', 'The call is not valid JSON'],
        ['', 'The call must be a JSON object {"name"'],
        ['', 'The call has no "name".'],
        ['read_file', 'The arguments must be a JSON object, not an array.'],
        ['search', 'The call was cut off before </tool_call>.'],
      ],
    );
    assert.equal(calls[0]!.argumentsText, '{"name": "read_file", "arguments": {"path": "a.ts"}', 'the raw text of what could not be read');
  });

  it('refuses arguments nested deeper than tools take, in every form, never running out of stack', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const deepObject = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    assert.match(parseToolArguments(`{"path":${deep}}`).error!, /nested more than 64 deep/);
    assert.match(parseToolArguments(deepObject).error!, /nested more than 64 deep/);
    assert.deepEqual(parseToolArguments(`{"a":${'['.repeat(63)}${']'.repeat(63)}}`).error, undefined, '64 deep is taken');
    const { calls } = readTextToolCalls(
      [
        `<tool_call>{"name": "read_file", "arguments": ${deepObject}}</tool_call>`,
        `<tool_call>{"name": "search", "arguments": {"query": ${deep}}}</tool_call>`,
      ].join('\n'),
    );
    assert.deepEqual(
      calls.map(({ name, error }) => [name, error]),
      [
        ['read_file', 'The arguments are nested more than 64 deep; a tool takes an object of plain values.'],
        ['search', 'The arguments are nested more than 64 deep; a tool takes an object of plain values.'],
      ],
    );
    // An earlier call written back for a server without tools: its raw text, not its parse.
    const written = toolCallText({ id: 'call_1', name: 'read_file', argumentsText: deepObject });
    assert.ok(written.startsWith('<tool_call>\n{"name":"read_file","arguments":"{\\"a\\":'));
  });

  it('leaves an answer without calls as it is', () => {
    const answer = '  Nothing to call here.\n\n\n';
    assert.deepEqual(readTextToolCalls(answer), { text: answer, calls: [] });
  });

  it('parses arguments: an object, or the reason it is not one', () => {
    assert.deepEqual(parseToolArguments('{"a": 1}'), { arguments: { a: 1 } });
    assert.deepEqual(parseToolArguments('  '), { arguments: {} });
    assert.match(parseToolArguments('null').error!, /not null/);
    assert.match(parseToolArguments('"text"').error!, /not string/);
    assert.match(parseToolArguments('{').error!, /not valid JSON/);
  });
});
