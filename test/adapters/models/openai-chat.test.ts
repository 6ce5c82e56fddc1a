// The openai provider's chat with tools against the scripted fake server: what each request
// carries, tool calls streamed in pieces and their results sent back, malformed arguments as
// data, the fallback to tools described in text for servers that refuse them, abort, errors,
// usage and timing.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { ChatMessage, ChatRequest, ChatTool } from '../../../src/core/completion/chat.ts';
import { readTextToolCalls } from '../../../src/core/completion/tool-text.ts';
import { ManualClock } from '../../../src/core/clock.ts';
import { LoomError } from '../../../src/core/errors.ts';
import { OpenAiProvider, type OpenAiProviderOptions } from '../../../src/adapters/models/openai.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../support/openai-fake.ts';

const KEY = 'sk-test-chat-0123456789';

const TOOLS: ChatTool[] = [
  {
    name: 'read_file',
    description: 'Read a file of the workspace.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'search',
    description: 'Search the workspace for a text.',
    parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query'] },
  },
];

const SYSTEM = 'You are a coding agent working in a TypeScript project.';

function request(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'Rename add to sum in src/math.ts.' },
    ],
    tools: TOOLS,
    maxTokens: 256,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** The conversation after the model called read_file and the loop ran it. */
function afterToolCall(): ChatMessage[] {
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: 'Rename add to sum in src/math.ts.' },
    { role: 'assistant', content: 'Let me read it.', toolCalls: [{ id: 'call_1', name: 'read_file', argumentsText: '{"path":"src/math.ts"}' }] },
    { role: 'tool', toolCallId: 'call_1', content: 'export function add(a: number, b: number) {\n  return a + b;\n}\n' },
  ];
}

function failsWith(code: string, pattern?: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof LoomError, `not a LoomError: ${String(error)}`);
    assert.equal(error.code, code);
    if (pattern) assert.match(error.message, pattern);
    assert.ok(!error.message.includes(KEY) && !(error.hint ?? '').includes(KEY), 'the key is never quoted');
    return true;
  };
}

describe('OpenAiProvider chat', () => {
  let fake: FakeOpenAi;
  before(async () => {
    fake = await startFakeOpenAi();
  });
  after(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.chat.reset();
    fake.set({ fail: undefined, requireKey: undefined });
  });
  const provider = (options: Partial<OpenAiProviderOptions> = {}) =>
    new OpenAiProvider({ baseUrl: fake.baseUrl, model: 'qwen2.5-coder:7b-instruct', fim: 'off', apiKey: KEY, ...options });

  it('sends the conversation with native tools and reads tool calls streamed in pieces', async () => {
    const openai = provider();
    assert.deepEqual(openai.capabilities, { fim: false, chat: true, tools: true });
    fake.chat.queue({
      kind: 'tools',
      text: 'Let me look.',
      calls: [
        { id: 'call_a', name: 'read_file', arguments: '{"path": "src/math.ts"}' },
        { id: 'call_b', name: 'search', arguments: '{"query": "add(", "limit": 20}' },
      ],
      usage: { prompt: 412, completion: 31 },
    });
    const result = await openai.chat(request());

    assert.equal(fake.requests.length, 1);
    const sent = fake.requests[0]!;
    assert.equal(sent.path, '/v1/chat/completions');
    assert.equal(sent.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(sent.body, {
      model: 'qwen2.5-coder:7b-instruct',
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'Rename add to sum in src/math.ts.' },
      ],
      tools: TOOLS.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
      max_tokens: 256,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });

    assert.equal(result.text, 'Let me look.');
    assert.deepEqual(result.toolCalls, [
      { id: 'call_a', name: 'read_file', argumentsText: '{"path": "src/math.ts"}', arguments: { path: 'src/math.ts' } },
      { id: 'call_b', name: 'search', argumentsText: '{"query": "add(", "limit": 20}', arguments: { query: 'add(', limit: 20 } },
    ]);
    assert.equal(result.finishReason, 'tool_calls');
    assert.deepEqual(result.usage, { promptTokens: 412, completionTokens: 31, source: 'server' });
    assert.equal(result.toolMode, 'native');
    assert.equal(result.model, 'qwen2.5-coder:7b-instruct');
  });

  it('sends tool results back tied to their call ids, and reads the final answer', async () => {
    fake.chat.queue({ kind: 'text', text: 'Renamed: use sum(a, b) from now on.', usage: { prompt: 520, completion: 12 } });
    const result = await provider().chat(request({ messages: afterToolCall(), temperature: 0.2 }));
    const sent = fake.requests[0]!.body;
    assert.equal(sent.temperature, 0.2);
    assert.deepEqual(sent.messages.slice(2), [
      {
        role: 'assistant',
        content: 'Let me read it.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/math.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'export function add(a: number, b: number) {\n  return a + b;\n}\n' },
    ]);
    assert.equal(result.text, 'Renamed: use sum(a, b) from now on.');
    assert.deepEqual(result.toolCalls, []);
    assert.equal(result.finishReason, 'stop');
  });

  it('returns malformed arguments as data: the raw text and why it does not parse', async () => {
    fake.chat.queue({
      kind: 'tools',
      calls: [
        { id: 'call_x', name: 'read_file', arguments: '{"path": "src/math.ts"' },
        { id: 'call_y', name: 'search', arguments: '["add"]' },
        { id: 'call_z', name: 'read_file', arguments: '' },
      ],
    });
    const result = await provider().chat(request());
    assert.equal(result.toolCalls.length, 3);
    const [broken, array, empty] = result.toolCalls;
    assert.equal(broken!.argumentsText, '{"path": "src/math.ts"');
    assert.equal(broken!.arguments, undefined);
    assert.match(broken!.error!, /not valid JSON/);
    assert.match(array!.error!, /must be a JSON object, not an array/);
    assert.deepEqual(empty!.arguments, {}, 'no arguments at all is an empty object');
  });

  it('reads calls from a server that sends whole calls without index, or no ids, or one JSON body', async () => {
    fake.chat.queue(
      {
        kind: 'tools',
        noIndex: true,
        calls: [
          { id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' },
          { id: 'c2', name: 'read_file', arguments: '{"path":"b.ts"}' },
        ],
      },
      {
        kind: 'tools',
        calls: [
          { name: 'read_file', arguments: '{"path":"a.ts"}' },
          { name: 'read_file', arguments: '{"path":"b.ts"}' },
        ],
      },
      {
        kind: 'tools',
        json: true,
        text: 'Two files.',
        calls: [
          { id: 'j1', name: 'read_file', arguments: '{"path":"a.ts"}' },
          { name: 'search', arguments: '{"query":"x"}' },
        ],
        usage: { prompt: 40, completion: 9 },
      },
    );
    const whole = await provider().chat(request());
    assert.deepEqual(
      whole.toolCalls.map((call) => [call.id, call.arguments]),
      [
        ['c1', { path: 'a.ts' }],
        ['c2', { path: 'b.ts' }],
      ],
    );

    const unnamed = await provider().chat(request());
    assert.equal(unnamed.toolCalls.length, 2);
    assert.ok(
      unnamed.toolCalls.every((call) => /^call_[0-9a-f]{24}$/.test(call.id)),
      'calls without an id get one',
    );
    assert.notEqual(unnamed.toolCalls[0]!.id, unnamed.toolCalls[1]!.id);

    const json = await provider().chat(request());
    assert.equal(json.text, 'Two files.');
    assert.equal(json.toolCalls[0]!.id, 'j1');
    assert.deepEqual(json.toolCalls[1]!.arguments, { query: 'x' });
    assert.deepEqual(json.usage, { promptTokens: 40, completionTokens: 9, source: 'server' });
    assert.equal(json.finishReason, 'tool_calls');
  });

  it('falls back to tools described in the system prompt when the server refuses them, and stays there', async () => {
    const openai = provider();
    // Ollama's answer for a model whose template has no tools.
    fake.chat.refuseTools({ status: 400, message: 'registry.ollama.ai/library/starcoder2:3b does not support tools' });
    const answer = 'I will read the file.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "src/math.ts"}}\n</tool_call>';
    fake.chat.queue({ kind: 'text', text: answer });
    const first = await openai.chat(request());

    assert.equal(fake.requests.length, 2);
    assert.ok(Array.isArray(fake.requests[0]!.body.tools), 'asked with tools first');
    const retry = fake.requests[1]!.body;
    assert.equal(retry.tools, undefined);
    assert.equal(retry.messages.length, 2);
    assert.equal(retry.messages[0].role, 'system');
    assert.ok(retry.messages[0].content.startsWith(`${SYSTEM}\n\n# Tools`), retry.messages[0].content);
    assert.ok(retry.messages[0].content.includes('<tool_call>'));
    for (const tool of TOOLS)
      assert.ok(retry.messages[0].content.includes(JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters })));

    assert.equal(first.toolMode, 'text');
    assert.equal(first.text, answer);
    assert.deepEqual(first.toolCalls, [], 'the calls stay in the text');
    const read = readTextToolCalls(first.text);
    assert.equal(read.text, 'I will read the file.');
    assert.equal(read.calls[0]!.name, 'read_file');
    assert.deepEqual(read.calls[0]!.arguments, { path: 'src/math.ts' });
    assert.equal(openai.capabilities.tools, false);

    // From now on: no tools in the request; earlier calls and results in the text form.
    fake.requests.length = 0;
    fake.chat.queue({ kind: 'text', text: 'Done.' });
    const second = await openai.chat(request({ messages: afterToolCall() }));
    assert.equal(fake.requests.length, 1);
    const sent = fake.requests[0]!.body;
    assert.equal(sent.tools, undefined);
    assert.deepEqual(sent.messages.slice(2), [
      { role: 'assistant', content: 'Let me read it.\n<tool_call>\n{"name":"read_file","arguments":{"path":"src/math.ts"}}\n</tool_call>' },
      { role: 'user', content: '<tool_response name="read_file">\nexport function add(a: number, b: number) {\n  return a + b;\n}\n\n</tool_response>' },
    ]);
    assert.equal(second.text, 'Done.');
    assert.equal(second.toolMode, 'text');
  });

  it('counts a 500 that mentions tools as a refusal (llama.cpp without --jinja), and adds a system turn when there is none', async () => {
    const openai = provider();
    fake.chat.refuseTools({ status: 500, message: 'tools param requires --jinja flag' });
    fake.chat.queue({ kind: 'text', text: 'ok' });
    await openai.chat(request({ messages: [{ role: 'user', content: 'Find add.' }] }));
    const retry = fake.requests[1]!.body;
    assert.equal(retry.messages[0].role, 'system');
    assert.ok(retry.messages[0].content.startsWith('# Tools'));
    assert.deepEqual(retry.messages[1], { role: 'user', content: 'Find add.' });
    assert.equal(openai.capabilities.tools, false);
  });

  it('does not take other errors for a refusal of tools', async () => {
    const openai = provider();
    // A 400 about something else fails without tools too: not remembered, the error reported.
    fake.chat.queue(
      { kind: 'error', status: 400, message: "This model's maximum context length is 8192 tokens." },
      { kind: 'error', status: 400, message: "This model's maximum context length is 8192 tokens." },
    );
    await assert.rejects(openai.chat(request()), failsWith('model_failed', /HTTP 400: This model's maximum context length is 8192 tokens\./));
    assert.equal(fake.requests.length, 2);
    assert.equal(openai.capabilities.tools, true);

    // A refused key, a missing model, a rate limit, a gateway, or a server that could not read
    // the model's own call is never retried without tools.
    for (const [status, message] of [
      [401, 'Incorrect API key provided.'],
      [404, 'model "x" not found, try pulling it first'],
      [429, 'Rate limit reached for tool calls'],
      [502, 'upstream does not support tools right now'],
      [500, 'Failed to parse tool call arguments as JSON'],
    ] as const) {
      fake.requests.length = 0;
      fake.chat.queue({ kind: 'error', status, message });
      await assert.rejects(openai.chat(request()), failsWith('model_failed', new RegExp(`HTTP ${status}`)));
      assert.equal(fake.requests.length, 1, `HTTP ${status} is not retried`);
    }
    assert.equal(openai.capabilities.tools, true);
  });

  it('asks without tools only when the request involves some', async () => {
    fake.chat.refuseTools({ status: 400, message: 'does not support tools' });
    fake.chat.queue({ kind: 'text', text: 'Hello.' });
    const result = await provider().chat(request({ tools: [], messages: [{ role: 'user', content: 'Hi' }] }));
    assert.equal(result.toolMode, 'none');
    assert.equal(fake.requests.length, 1);
    assert.equal(fake.requests[0]!.body.tools, undefined);
    assert.deepEqual(fake.requests[0]!.body.messages, [{ role: 'user', content: 'Hi' }]);
  });

  it('closes the connection when aborted mid-answer, rejecting with the reason', async () => {
    fake.chat.queue({ kind: 'text', text: 'A long answer that never finishes in time.', hold: true });
    const controller = new AbortController();
    const reason = new LoomError('model_timeout', 'the agent step ran out of time');
    const held = fake.chat.held();
    const hangUp = fake.chat.nextHangUp();
    const turn = provider().chat(request({ signal: controller.signal }));
    await held;
    controller.abort(reason);
    await assert.rejects(turn, (error) => error === reason);
    await hangUp;
    assert.equal(fake.chat.hangUps, 1, 'the server saw the client hang up');

    const gone = new AbortController();
    gone.abort(new Error('already gone'));
    fake.requests.length = 0;
    await assert.rejects(provider().chat(request({ signal: gone.signal })), /already gone/);
    assert.equal(fake.requests.length, 0, 'an aborted request sends nothing');
  });

  it('closing the provider ends its chats with model_unavailable', async () => {
    fake.chat.queue({ kind: 'text', text: 'Held until closed.', hold: true });
    const openai = provider();
    const held = fake.chat.held();
    const turn = openai.chat(request());
    await held;
    await openai.close();
    await assert.rejects(turn, failsWith('model_unavailable', /was closed/));
  });

  it('maps failures: unreachable, server errors with the key masked, unreadable answers', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await assert.rejects(
      provider({ baseUrl: `http://127.0.0.1:${port}/v1` }).chat(request()),
      failsWith('model_unavailable', /cannot be reached: .*ECONNREFUSED/),
    );

    fake.chat.queue({ kind: 'error', status: 503, message: `overloaded while serving ${KEY}` });
    await assert.rejects(provider().chat(request()), failsWith('model_failed', /HTTP 503: overloaded while serving \*\*\*/));

    fake.set({ fail: { status: 200, body: 'data: {not json\n\n', contentType: 'text/event-stream' } });
    await assert.rejects(provider().chat(request()), failsWith('model_failed', /not JSON/));
    fake.set({ fail: { status: 200, body: JSON.stringify({ id: 'x', choices: [] }) } });
    await assert.rejects(provider().chat(request()), failsWith('model_failed', /without choices/));
    fake.set({ fail: { status: 200, body: `data: ${JSON.stringify({ error: { message: 'out of memory' } })}\n\n`, contentType: 'text/event-stream' } });
    await assert.rejects(provider().chat(request()), failsWith('model_failed', /out of memory/));
  });

  it('ends an answer past its limits with model_failed "too long", hanging up: the stream, one event, the calls, the text', async () => {
    const tooLong = (what: RegExp) => failsWith('model_failed', new RegExp(`^The answer of the OpenAI-compatible server at .* was too long: ${what.source}`));
    // Keep-alive comments without end carry no text, but count against the stream.
    fake.set({ fail: { status: 200, body: ': keep-alive\n'.repeat(200), contentType: 'text/event-stream' } });
    await assert.rejects(provider({ limits: { streamBytes: 1000 } }).chat(request()), tooLong(/a stream of more than 1000 bytes/));
    // data: lines that never end their event.
    fake.set({ fail: { status: 200, body: 'data: 0123456789\n'.repeat(20), contentType: 'text/event-stream' } });
    await assert.rejects(provider({ limits: { eventBytes: 100 } }).chat(request()), tooLong(/an event of more than 100 bytes/));
    fake.set({ fail: undefined });

    const three = { kind: 'tools', calls: ['a', 'b', 'c'].map((path) => ({ name: 'read_file', arguments: JSON.stringify({ path }) })) } as const;
    fake.chat.queue(three);
    await assert.rejects(provider({ limits: { toolCalls: 2 } }).chat(request()), tooLong(/more than 2 tool calls/));
    fake.chat.queue(three, three);
    assert.equal((await provider({ limits: { toolCalls: 3 } }).chat(request())).toolCalls.length, 3);
    await assert.rejects(provider({ limits: { answerChars: 30 } }).chat(request()), tooLong(/more than 30 characters of text and tool-call arguments/));
    fake.chat.queue({ kind: 'text', text: 'x'.repeat(31), json: true });
    await assert.rejects(provider({ limits: { answerChars: 30 } }).chat(request()), tooLong(/more than 30 characters/));
  });

  it('takes what no model sends as data: arguments as an object nested 100,000 deep, absurd token counts, ids of 100,000 characters', async () => {
    const stream = (...events: string[]) =>
      fake.set({ fail: { status: 200, body: `${events.map((event) => `data: ${event}\n\n`).join('')}data: [DONE]\n\n`, contentType: 'text/event-stream' } });
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const call = (index: number, id: string, args: string) =>
      `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":${index},"id":${JSON.stringify(id)},"type":"function","function":{"name":"read_file","arguments":${args}}}]}}]}`;
    stream(call(0, 'call_deep', deep), call(1, `call_${'i'.repeat(100_000)}`, '"{\\"path\\":\\"a.ts\\"}"'));
    const result = await provider().chat(request());
    assert.deepEqual(
      result.toolCalls.map(({ name, error }) => [name, error]),
      [
        ['read_file', 'The arguments are nested more than 64 deep; a tool takes an object of plain values.'],
        ['read_file', undefined],
      ],
    );
    assert.equal(result.toolCalls[0]!.id, 'call_deep');
    assert.match(result.toolCalls[1]!.id, /^call_[0-9a-f]{24}$/, 'an id no server makes is replaced by one of ours');

    for (const usage of [
      '{"prompt_tokens":1e400,"completion_tokens":1}',
      '{"prompt_tokens":-5,"completion_tokens":1}',
      '{"prompt_tokens":0.5,"completion_tokens":1}',
      '{"prompt_tokens":10,"completion_tokens":99999999999999999999}',
    ]) {
      stream('{"choices":[{"index":0,"delta":{"content":"ok"}}]}', `{"choices":[],"usage":${usage}}`);
      const answer = await provider().chat(request());
      assert.equal(answer.usage.source, 'estimate', `${usage} is no count: estimated instead`);
      assert.ok(Number.isSafeInteger(answer.usage.promptTokens) && answer.usage.promptTokens > 0);
    }
    fake.set({ fail: undefined });
  });

  it('refuses a malformed conversation with bad_request before sending anything', async () => {
    const openai = provider();
    const cases: [Partial<ChatRequest>, RegExp][] = [
      [{ messages: [] }, /at least one message/],
      [{ maxTokens: 0 }, /maxTokens/],
      [{ temperature: 3 }, /temperature/],
      [
        {
          messages: [
            { role: 'user', content: 'x' },
            { role: 'tool', toolCallId: 'nope', content: 'r' },
          ],
        },
        /no earlier assistant turn called/,
      ],
      [{ messages: afterToolCall().slice(0, 3) }, /ends before the results of the tool calls "call_1"/],
      [{ messages: [...afterToolCall().slice(0, 3), { role: 'user', content: 'and?' }] }, /comes before the results/],
      [
        {
          messages: [
            { role: 'user', content: 'x' },
            { role: 'system', content: 'late' },
          ],
        },
        /only the first message/,
      ],
      [{ tools: [{ name: 'read file', description: '', parameters: { type: 'object' } }] }, /not 1 to 64 letters/],
      [{ tools: [TOOLS[0]!, TOOLS[0]!] }, /declared twice/],
      [{ tools: [{ name: 'x', description: '', parameters: { type: 'string' } }] }, /type "object"/],
      // Shapes a request decoded from JSON may have.
      [{ messages: [{ role: 'user', content: 42 }] as never }, /a role .* and a text content/],
      [{ messages: [{ role: 'robot', content: 'x' }] as never }, /a role/],
      [{ messages: 'hello' as never }, /at least one message/],
      [{ tools: [{ name: 'x', parameters: { type: 'object' } }] as never }, /no description/],
      [{ tools: [{ name: 'x', description: '' }] as never }, /type "object"/],
      [{ tools: {} as never }, /must be a list/],
      [
        {
          messages: [
            { role: 'user', content: 'x' },
            { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'x' }] },
          ] as never,
        },
        /without a name or an argumentsText/,
      ],
      [{ maxTokens: '5' as never }, /maxTokens/],
    ];
    for (const [overrides, pattern] of cases) await assert.rejects(openai.chat(request(overrides)), failsWith('bad_request', pattern));
    assert.equal(fake.requests.length, 0);
  });

  it('estimates usage when the server reports none, and asks without stream_options once it is refused', async () => {
    const openai = provider();
    fake.chat.queue({ kind: 'text', text: 'abcdefghijklmnopqrstuvwxy', chunkChars: 5 });
    const estimated = await openai.chat(request({ tools: [] }));
    assert.equal(estimated.usage.source, 'estimate');
    assert.equal(estimated.usage.completionTokens, 5, 'one per streamed piece');
    const sentChars = JSON.stringify([fake.requests[0]!.body.messages, []]).length;
    assert.equal(estimated.usage.promptTokens, Math.ceil(sentChars / 4));

    fake.requests.length = 0;
    fake.chat.refuseStreamOptions();
    fake.chat.queue({ kind: 'text', text: 'ok', usage: { prompt: 10, completion: 1 } }, { kind: 'text', text: 'ok again' });
    const result = await openai.chat(request());
    assert.equal(result.text, 'ok');
    assert.deepEqual(
      fake.requests.map((r) => r.body.stream_options),
      [{ include_usage: true }, undefined],
    );
    assert.equal(result.usage.source, 'estimate', 'a stream without stream_options carries no usage');
    assert.equal(result.toolMode, 'native', 'a refusal of stream_options is not one of tools');
    fake.requests.length = 0;
    await openai.chat(request());
    assert.deepEqual(
      fake.requests.map((r) => r.body.stream_options),
      [undefined],
      'remembered',
    );
  });

  it('times the turn with its clock: total and first token', async () => {
    const clock = new ManualClock();
    const openai = provider({ chatClock: clock });
    fake.chat.queue({ kind: 'text', text: 'Slow model.', hold: true, finishReason: 'length' });
    const held = fake.chat.held();
    const turn = openai.chat(request());
    await held;
    clock.advance(1500);
    fake.chat.release();
    const result = await turn;
    assert.deepEqual(result.timing, { totalMs: 1500, firstTokenMs: 1500 });
    assert.equal(result.finishReason, 'length');

    fake.chat.queue({ kind: 'text', text: '' });
    const empty = await openai.chat(request());
    assert.deepEqual(empty.timing, { totalMs: 0 }, 'no first token when nothing was generated');
    assert.equal(empty.text, '');
  });
});
