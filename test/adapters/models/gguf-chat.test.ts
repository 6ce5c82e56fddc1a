// Chat with function calling on the gguf provider, against real llama.cpp (node-llama-cpp, CPU)
// and tiny random-weight models written by the test, with a chat template and without: a turn
// with tools answers text or well-formed calls within maxTokens, the conversation's KV cache is
// reused by its next turn and never costs tab completion its own, abort, errors, instructions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GeneralChatWrapper, getLlama, LlamaLogLevel, type Llama } from 'node-llama-cpp';
import type { ChatMessage, ChatRequest, ChatResult, ChatTool } from '../../../src/core/completion/chat.ts';
import type { ProviderRequest } from '../../../src/core/completion/provider.ts';
import { createProviderSet } from '../../../src/compose/completion.ts';
import type { Clock } from '../../../src/core/clock.ts';
import { LoomError } from '../../../src/core/errors.ts';
import { GgufProvider, type GgufProviderOptions } from '../../../src/adapters/models/gguf.ts';
import { chatWrapperOf, toChatHistory, toFunctions } from '../../../src/adapters/models/gguf/chat.ts';
import { tempModelDir, writeNotGguf, writeTinyGguf, type TinyGguf } from '../../support/tiny-gguf.ts';
import { waitFor } from '../../support/wait.ts';

const TIMEOUT = { timeout: 60_000 };

const TOOLS: ChatTool[] = [
  {
    name: 'read_file',
    description: 'Read a file of the workspace.',
    parameters: { type: 'object', properties: { path: { type: 'string' }, fromLine: { type: 'integer' } }, required: ['path'] },
  },
  {
    name: 'set_mode',
    description: 'Switch the editor mode.',
    parameters: { type: 'object', properties: { mode: { enum: ['insert', 'normal'] }, sticky: { type: 'boolean' } }, required: ['mode', 'sticky'] },
  },
];

const CONVERSATION: ChatMessage[] = [
  { role: 'system', content: 'You are a coding agent. Call tools to read files.' },
  { role: 'user', content: 'What does src/math.ts export?' },
];

function chatRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return { messages: CONVERSATION, tools: TOOLS, maxTokens: 24, signal: new AbortController().signal, ...overrides };
}

/** A turn's calls are well-formed: a declared tool, arguments that fit its schema. */
function assertWellFormed(result: ChatResult, maxTokens: number): void {
  assert.ok(result.usage.completionTokens <= maxTokens, `${result.usage.completionTokens} tokens for a limit of ${maxTokens}`);
  assert.equal(result.usage.source, 'tokenizer');
  if (result.toolCalls.length === 0) {
    assert.equal(typeof result.text, 'string');
    assert.ok(['stop', 'length'].includes(result.finishReason), result.finishReason);
    return;
  }
  assert.equal(result.finishReason, 'tool_calls');
  for (const call of result.toolCalls) {
    assert.equal(call.error, undefined);
    assert.match(call.id, /^call_[0-9a-f]{24}$/);
    const args = call.arguments!;
    if (call.name === 'read_file') {
      assert.equal(typeof args.path, 'string');
      assert.ok(!('fromLine' in args) || Number.isInteger(args.fromLine), 'an optional argument is absent or fits');
    } else {
      assert.equal(call.name, 'set_mode');
      assert.ok(['insert', 'normal'].includes(args.mode as string));
      assert.equal(typeof args.sticky, 'boolean');
    }
    assert.deepEqual(JSON.parse(call.argumentsText) === null ? null : typeof JSON.parse(call.argumentsText), 'object');
  }
}

const { dir, remove } = tempModelDir();
let chatModel: TinyGguf;
let plainModel: TinyGguf;
let fimChatModel: TinyGguf;
let callingModel: TinyGguf;
let llama: Llama;
const providers: GgufProvider[] = [];

function provider(model: TinyGguf, options: Partial<GgufProviderOptions> = {}): GgufProvider {
  const made = new GgufProvider({
    file: model.file,
    name: 'tiny-chat',
    gpu: 'off',
    contextSize: 512,
    threads: 1,
    sequences: 2,
    chatContextSize: 1024,
    ...options,
  });
  providers.push(made);
  return made;
}

/** Tokens of `history` as `wrapper` renders it for the model's turn: what a turn's usage says. */
async function renderedTokens(model: TinyGguf, messages: ChatMessage[], tools: ChatTool[] | undefined, general: boolean): Promise<number> {
  const loaded = await llama.loadModel({ modelPath: model.file });
  try {
    const wrapper = general ? new GeneralChatWrapper() : chatWrapperOf(await import('node-llama-cpp'), loaded).wrapper;
    // A model turn that called tools goes on after their results; otherwise a new one opens.
    const history = toChatHistory(messages);
    if (history.at(-1)?.type !== 'model') history.push({ type: 'model', response: [] });
    return wrapper
      .generateContextState({ chatHistory: history, availableFunctions: tools ? toFunctions(tools) : undefined })
      .contextText.tokenize(loaded.tokenizer).length;
  } finally {
    await loaded.dispose();
  }
}

before(async () => {
  chatModel = writeTinyGguf(`${dir}/chat.gguf`, { seed: 7, chatTemplate: 'chatml' });
  plainModel = writeTinyGguf(`${dir}/plain.gguf`, { seed: 7 });
  fimChatModel = writeTinyGguf(`${dir}/fim-chat.gguf`, { seed: 11, fim: 'fim', chatTemplate: 'chatml', neverEnd: true });
  // Greedy decoding writes the template's tool-call opener wherever it may: it always calls.
  callingModel = writeTinyGguf(`${dir}/calling.gguf`, { seed: 7, chatTemplate: 'chatml', favouredToken: '<tool_call>\n{"name": "' });
  llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
});

after(async () => {
  await Promise.all(providers.map((p) => p.close()));
  await llama.dispose();
  remove();
});

describe('gguf chat with a chat template', () => {
  it('is a chat model once loaded, and answers a turn with tools in text or well-formed calls within maxTokens', TIMEOUT, async () => {
    const gguf = provider(chatModel);
    assert.deepEqual(gguf.capabilities, { fim: true, chat: false, tools: false }, 'unknown before loading');
    const result = await gguf.chat(chatRequest({ maxTokens: 24 }));
    assert.deepEqual(gguf.capabilities, { fim: false, chat: true, tools: true });
    assertWellFormed(result, 24);
    assert.equal(result.toolMode, 'native');
    assert.equal(result.model, 'tiny-chat');
    assert.equal(result.usage.promptTokens, await renderedTokens(chatModel, CONVERSATION, TOOLS, false), 'the prompt as the template renders it');
    assert.ok(result.timing.totalMs >= 0 && (result.timing.firstTokenMs ?? 0) <= result.timing.totalMs);
    const stats = gguf.stats();
    assert.equal(stats.chat, true);
    assert.equal(stats.chatContextSize, 1024);
    assert.equal(stats.chatTurns, 1);
    assert.equal(stats.chatCompletionTokens, result.usage.completionTokens);
    assert.equal(stats.requests, 0, 'no completion ran');
  });

  it('sends earlier calls with their results, and reuses the conversation KV cache on its next turn', TIMEOUT, async () => {
    const gguf = provider(chatModel);
    const first = await gguf.chat(chatRequest({ conversation: 'task-1', maxTokens: 8 }));
    const before = gguf.stats();
    const next: ChatMessage[] = [
      ...CONVERSATION,
      { role: 'assistant', content: first.text, toolCalls: [{ id: 'call_1', name: 'read_file', argumentsText: '{"path":"src/math.ts"}' }] },
      { role: 'tool', toolCallId: 'call_1', content: 'export function add(a: number, b: number) {\n  return a + b;\n}\n' },
    ];
    const second = await gguf.chat(chatRequest({ conversation: 'task-1', messages: next, maxTokens: 8 }));
    const after = gguf.stats();
    assertWellFormed(second, 8);
    assert.equal(second.usage.promptTokens, await renderedTokens(chatModel, next, TOOLS, false));
    assert.ok(second.usage.promptTokens > first.usage.promptTokens + 20, 'the call and its result are in the prompt');
    const evaluated = after.chatPromptTokensEvaluated - before.chatPromptTokensEvaluated;
    assert.ok(evaluated < second.usage.promptTokens - first.usage.promptTokens + 16, `evaluated ${evaluated} of ${second.usage.promptTokens} prompt tokens`);
  });

  it('never evicts the KV cache a document keeps for tab completion', TIMEOUT, async () => {
    const gguf = provider(fimChatModel, { sequences: 1 });
    const prefix = 'export function total(items) {\n' + '  const count = items.length;\n'.repeat(20) + '  let sum';
    await gguf.complete(completion({ prefix }));
    await gguf.chat(chatRequest({ maxTokens: 4 }));
    const before = gguf.stats();
    await gguf.complete(completion({ prefix: prefix + ' =' }));
    const warm = gguf.stats().promptTokensEvaluated - before.promptTokensEvaluated;
    assert.ok(warm <= 4, `the keystroke after a chat evaluated ${warm} tokens`);
    assert.equal(gguf.capabilities.fim, true);
  });

  it('answers an instruction as a chat turn, applying the stop rule as it streams', TIMEOUT, async () => {
    const gguf = provider(fimChatModel);
    await gguf.load();
    const before = gguf.stats();
    const result = await gguf.complete(
      completion({ mode: 'instruct', prefix: 'Write a function that adds two numbers.', suffix: 'const x = 1;\n', maxTokens: 12 }),
    );
    const after = gguf.stats();
    assert.equal(after.chatTurns - before.chatTurns, 1);
    assert.equal(after.requests - before.requests, 0, 'not a completion of the prefix');
    assert.ok(result.tokens <= 12);

    const seen: string[] = [];
    const cut = await gguf.complete(
      completion({ mode: 'instruct', prefix: 'Write a loop.', maxTokens: 40, stop: (text) => (seen.push(text), text.length > 0 ? 1 : undefined) }),
    );
    assert.ok(cut.text.length <= 1, JSON.stringify(cut.text));
    assert.ok(gguf.stats().chatCompletionTokens - after.chatCompletionTokens < 40, 'generation ended when the stop rule cut');

    const failure = new Error('stop rule broke');
    await assert.rejects(
      gguf.complete(
        completion({
          mode: 'instruct',
          prefix: 'Write a loop.',
          stop: () => {
            throw failure;
          },
        }),
      ),
      (error) => error === failure,
    );
  });

  it('refuses a conversation its chat window cannot hold, evaluating nothing', TIMEOUT, async () => {
    const gguf = provider(chatModel, { chatContextSize: 128 });
    const before = gguf.stats();
    await assert.rejects(gguf.chat(chatRequest({ messages: [{ role: 'user', content: 'const value = items.length;\n'.repeat(40) }] })), (error: unknown) => {
      assert.ok(error instanceof LoomError);
      assert.equal(error.code, 'bad_request');
      // llama.cpp pads a context to 256 tokens at least.
      assert.match(error.message, new RegExp(`is \\d+ tokens long; the chat window of the GGUF model tiny-chat holds ${gguf.stats().chatContextSize}`));
      return true;
    });
    assert.equal(gguf.stats().chatPromptTokensEvaluated, before.chatPromptTokensEvaluated);
    await assert.rejects(gguf.chat(chatRequest({ messages: [] })), /at least one message/);
  });
});

describe('gguf chat with a model that calls functions', () => {
  const SET_MODE: ChatTool[] = [
    {
      name: 'set_mode',
      description: 'Switch the editor mode.',
      // Every value bounded, so that a call ends within a few dozen tokens whatever greedy picks.
      parameters: {
        type: 'object',
        properties: { mode: { enum: ['insert', 'normal'] }, sticky: { type: 'boolean' }, note: { type: 'string', maxLength: 8 } },
        required: ['mode', 'sticky'],
      },
    },
  ];

  it('returns the calls, never run: their arguments as written and parsed, unset optional ones removed', TIMEOUT, async () => {
    const gguf = provider(callingModel, { chatContextSize: 2048 });
    const messages: ChatMessage[] = [{ role: 'user', content: 'Switch to insert mode.' }];
    const result = await gguf.chat(chatRequest({ messages, tools: SET_MODE, maxTokens: 200 }));
    assert.ok(result.toolCalls.length >= 1, JSON.stringify(result));
    assert.equal(result.finishReason, 'tool_calls');
    assert.ok(result.usage.completionTokens <= 200);
    for (const call of result.toolCalls) {
      assert.equal(call.name, 'set_mode');
      assert.equal(call.error, undefined);
      const written = JSON.parse(call.argumentsText);
      assert.ok('note' in written, 'the grammar writes every property');
      const args = call.arguments!;
      assert.ok(['insert', 'normal'].includes(args.mode as string));
      assert.equal(typeof args.sticky, 'boolean');
      if (written.note === null) assert.ok(!('note' in args), 'an optional argument left null is removed');
    }
    assert.equal(new Set(result.toolCalls.map((call) => call.id)).size, result.toolCalls.length);

    // The loop runs them and sends the results: the next turn reads them.
    const next: ChatMessage[] = [
      ...messages,
      { role: 'assistant', content: result.text, toolCalls: result.toolCalls.map(({ id, name, argumentsText }) => ({ id, name, argumentsText })) },
      ...result.toolCalls.map((call): ChatMessage => ({ role: 'tool', toolCallId: call.id, content: 'ok' })),
    ];
    const after = await gguf.chat(chatRequest({ messages: next, tools: SET_MODE, maxTokens: 200 }));
    assert.equal(after.usage.promptTokens, await renderedTokens(callingModel, next, SET_MODE, false));
    assertWellFormed(after, 200);
  });

  it('ends a turn near the end of its window within it, as length', TIMEOUT, async () => {
    // The turn above in a window of 1024 tokens: three calls and their results leave little room.
    const gguf = provider(callingModel);
    const messages: ChatMessage[] = [{ role: 'user', content: 'Switch to insert mode.' }];
    const first = await gguf.chat(chatRequest({ messages, tools: SET_MODE, maxTokens: 200 }));
    const next: ChatMessage[] = [
      ...messages,
      { role: 'assistant', content: first.text, toolCalls: first.toolCalls.map(({ id, name, argumentsText }) => ({ id, name, argumentsText })) },
      ...first.toolCalls.map((call): ChatMessage => ({ role: 'tool', toolCallId: call.id, content: 'ok' })),
    ];
    const result = await gguf.chat(chatRequest({ messages: next, tools: SET_MODE, maxTokens: 1000 }));
    assert.ok(result.usage.promptTokens + result.usage.completionTokens < 1024, JSON.stringify(result.usage));
    assert.ok(['length', 'tool_calls'].includes(result.finishReason));
  });

  it('drops a call that maxTokens cuts in the middle: no half call is returned', TIMEOUT, async () => {
    const gguf = provider(callingModel);
    const result = await gguf.chat(chatRequest({ messages: [{ role: 'user', content: 'Switch.' }], tools: SET_MODE, maxTokens: 6 }));
    assert.deepEqual(result.toolCalls, []);
    assert.equal(result.finishReason, 'length');
    assert.ok(result.usage.completionTokens <= 6);
  });
});

describe('gguf chat without a chat template', () => {
  it('says it is not a chat model, and chats in the general format', TIMEOUT, async () => {
    const gguf = provider(plainModel);
    const result = await gguf.chat(chatRequest({ maxTokens: 16 }));
    assert.deepEqual(gguf.capabilities, { fim: false, chat: false, tools: false });
    assertWellFormed(result, 16);
    assert.equal(result.usage.promptTokens, await renderedTokens(plainModel, CONVERSATION, TOOLS, true));
    assert.equal(gguf.stats().chat, false);

    const plain = await gguf.chat(chatRequest({ tools: undefined, maxTokens: 4 }));
    assert.equal(plain.toolMode, 'none');
    assert.deepEqual(plain.toolCalls, []);
    assert.ok(plain.usage.completionTokens <= 4);
  });
});

describe('gguf chat: abort, close and failures', () => {
  it('stops generating at the next token when aborted, rejecting with the reason; the conversation goes on', TIMEOUT, async () => {
    const controller = new AbortController();
    const reason = new Error('the agent was cancelled');
    // A turn reads its clock when it starts, then at its first generated token: abort there.
    let reads = 0;
    const clock: Clock = { now: () => (++reads === 2 && controller.abort(reason), 0) };
    const gguf = provider(chatModel, { chatClock: clock });
    await assert.rejects(gguf.chat(chatRequest({ maxTokens: 400, signal: controller.signal })), (error) => error === reason);
    // The caller hears at once; the turn itself ends at its next token.
    await waitFor(() => gguf.stats().chatTurns === 1, 10_000);
    const generated = gguf.stats().chatCompletionTokens;
    assert.ok(generated >= 1 && generated <= 4, `went on for ${generated} tokens after the abort`);

    const gone = new AbortController();
    gone.abort(reason);
    await assert.rejects(gguf.chat(chatRequest({ signal: gone.signal })), (error) => error === reason);
    const next = await gguf.chat(chatRequest({ maxTokens: 3 }));
    assert.ok(next.usage.completionTokens <= 3);
  });

  it('a turn waiting for the conversation slot rejects at once when aborted', TIMEOUT, async () => {
    const gguf = provider(chatModel);
    await gguf.load();
    const long = gguf.chat(chatRequest({ maxTokens: 200 }));
    const controller = new AbortController();
    const queued = gguf.chat(chatRequest({ signal: controller.signal }));
    let longDone = false;
    void long.then(() => (longDone = true));
    controller.abort(new Error('superseded'));
    await assert.rejects(queued, /superseded/);
    assert.equal(longDone, false);
    assertWellFormed(await long, 200);
  });

  it('closing the provider ends its chats with model_unavailable', TIMEOUT, async () => {
    const gguf = provider(chatModel);
    await gguf.load();
    const turn = assert.rejects(
      gguf.chat(chatRequest({ maxTokens: 400 })),
      (error: unknown) => error instanceof LoomError && error.code === 'model_unavailable',
    );
    await gguf.close();
    await turn;
    await assert.rejects(gguf.chat(chatRequest()), /was closed/);
  });

  it('reports a model that cannot be loaded as model_unavailable', TIMEOUT, async () => {
    const unavailable = (pattern: RegExp) => (error: unknown) => {
      assert.ok(error instanceof LoomError, String(error));
      assert.equal(error.code, 'model_unavailable');
      assert.match(error.message, pattern);
      return true;
    };
    await assert.rejects(new GgufProvider({ file: `${dir}/missing.gguf`, name: 'missing' }).chat(chatRequest()), unavailable(/does not exist/));
    const text = writeNotGguf(`${dir}/not-a-model.gguf`, 'text');
    await assert.rejects(new GgufProvider({ file: text, name: 'text' }).chat(chatRequest()), unavailable(/not a GGUF model file/));
    const broken = new GgufProvider({
      file: chatModel.file,
      name: 'no-runtime',
      importRuntime: () => Promise.reject(new Error('Cannot find module node-llama-cpp')),
    });
    await assert.rejects(broken.chat(chatRequest()), unavailable(/node-llama-cpp failed to load/));

    // Through the server's provider set: a catalog model that is not installed.
    const set = createProviderSet(
      {
        builtin: {
          kind: 'builtin',
          name: 'builtin',
          capabilities: { fim: true, chat: false, tools: false },
          complete: async () => ({ text: '', tokens: 0 }),
          close: async () => {},
        },
        catalog: { models: [] },
        modelsDir: dir,
      },
      {
        provider: 'gguf',
        timeoutMs: 10_000,
        maxTokens: 64,
        prefixChars: 8192,
        suffixChars: 2048,
        gguf: { model: `${dir}/nowhere.gguf`, gpu: 'off', contextSize: 512 },
      },
    );
    try {
      await assert.rejects(set.selectChat().chat(chatRequest()), unavailable(/nowhere\.gguf/));
    } finally {
      await set.close();
    }
  });
});

function completion(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    prefix: 'function add(a, b) {\n  return',
    suffix: '\n}\n',
    language: 'typescript',
    filePath: 'src/add.ts',
    mode: 'fim',
    maxTokens: 4,
    stop: () => undefined,
    signal: new AbortController().signal,
    ...overrides,
  };
}
