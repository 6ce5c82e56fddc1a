// The engine's own rules, over a scripted provider: these tests pin what the engine does
// (selection, budgets, type-ahead, supersession, time limit, stop rules); the real providers
// have their own tests under test/core/completion/builtin and test/adapters/models.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CompletionConfig } from '../../../src/core/completion/config.ts';
import { CompletionEngine, type EngineLimits } from '../../../src/core/completion/engine.ts';
import type { CompletionProvider, ProviderKind, ProviderRequest } from '../../../src/core/completion/provider.ts';
import { ProviderSet } from '../../../src/core/completion/providers.ts';
import { LoomError } from '../../../src/core/errors.ts';
import { Gate } from '../../support/wait.ts';

/**
 * Types `answer` one character at a time, honouring stop and abort like a real token stream.
 * Before each character it waits at the gate `holdAt` gives for the request, if any: a test
 * holds a request there to act while it is provably still running.
 */
class ScriptedProvider implements CompletionProvider {
  readonly requests: ProviderRequest[] = [];
  closed = false;
  constructor(
    readonly kind: ProviderKind,
    readonly name: string,
    private readonly answer: (request: ProviderRequest) => string,
    private readonly holdAt: (request: ProviderRequest) => Gate | undefined = () => undefined,
    readonly capabilities = { fim: true, chat: false, tools: false },
    private readonly ignoresAbort = false,
  ) {}
  async complete(request: ProviderRequest) {
    this.requests.push(request);
    const full = this.answer(request);
    let text = '';
    for (const ch of full) {
      await this.holdAt(request)?.pass(this.ignoresAbort ? undefined : request.signal);
      if (request.signal.aborted && !this.ignoresAbort) throw request.signal.reason;
      text += ch;
      const keep = request.stop(text);
      if (keep !== undefined) return { text: text.slice(0, keep), tokens: keep };
    }
    if (this.ignoresAbort) await new Promise(() => {});
    return { text, tokens: text.length };
  }
  async close() {
    this.closed = true;
  }
}

const limits: EngineLimits = { timeoutMs: 2000, maxTokens: 64, prefixChars: 100, suffixChars: 50 };
const config = (over: Partial<CompletionConfig> = {}): CompletionConfig => ({ provider: 'builtin', ...limits, ...over });

function engineWith(
  builtin: CompletionProvider,
  options: { limits?: Partial<EngineLimits>; config?: CompletionConfig; gguf?: CompletionProvider; openai?: CompletionProvider } = {},
) {
  const set = new ProviderSet(
    builtin,
    { gguf: () => options.gguf ?? assert.fail('no gguf'), openai: () => options.openai ?? assert.fail('no openai') },
    options.config ?? config(),
  );
  return new CompletionEngine(set, () => ({ ...limits, ...options.limits }));
}

const request = { prefix: 'const total = ', suffix: '\n', language: 'typescript', caller: 'u1' };

describe('completion engine', () => {
  it('answers from the default provider, cut by the stop rules, with an honest latency', async () => {
    const builtin = new ScriptedProvider('builtin', 'builtin', () => 'sum(items);\nconsole.log(total);');
    const result = await engineWith(builtin).complete(request);
    assert.equal(result.completion, 'sum(items);');
    assert.equal(result.model, 'builtin');
    assert.equal(result.cached, false);
    assert.ok(Number.isInteger(result.latencyMs) && result.latencyMs >= 0);
    assert.equal(builtin.requests[0]!.mode, 'fim');
  });

  it('picks a provider by name or kind, and refuses a model it does not serve', async () => {
    const builtin = new ScriptedProvider('builtin', 'builtin', () => 'a');
    const openai = new ScriptedProvider('openai', 'gpt-coder', () => 'b', undefined, { fim: true, chat: true, tools: false });
    const engine = engineWith(builtin, { openai, config: config({ openai: { baseUrl: 'http://x/v1', model: 'gpt-coder', fim: 'auto' } }) });
    assert.equal((await engine.complete({ ...request, model: 'gpt-coder' })).completion, 'b');
    assert.equal((await engine.complete({ ...request, model: 'openai' })).completion, 'b');
    assert.equal((await engine.complete({ ...request, model: 'builtin' })).completion, 'a');
    assert.deepEqual(engine.models(), ['builtin', 'gpt-coder']);
    await assert.rejects(
      engine.complete({ ...request, model: 'gpt-9' }),
      (error: LoomError) => error.code === 'unknown_model' && /builtin, gpt-coder/.test(error.hint ?? ''),
    );
  });

  it('sends a provider only the budgeted text around the cursor', async () => {
    const builtin = new ScriptedProvider('builtin', 'builtin', () => 'x');
    const prefix = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n') + '\nconst a = ';
    await engineWith(builtin).complete({ ...request, prefix, suffix: '\n' + 'tail\n'.repeat(40) });
    const seen = builtin.requests[0]!;
    assert.ok(seen.prefix.length <= 100 && prefix.endsWith(seen.prefix) && /^line \d+\n/.test(seen.prefix));
    assert.ok(seen.suffix.length <= 50 && seen.suffix.endsWith('\n'));
  });

  it('answers a user typing the suggestion from the type-ahead cache, without a model call', async () => {
    const builtin = new ScriptedProvider('builtin', 'builtin', () => 'computeTotal(items);');
    const engine = engineWith(builtin);
    const doc = { ...request, filePath: 'src/a.ts' };
    assert.equal((await engine.complete(doc)).completion, 'computeTotal(items);');
    const typed = await engine.complete({ ...doc, prefix: doc.prefix + 'compute' });
    assert.deepEqual([typed.completion, typed.cached], ['Total(items);', true]);
    assert.equal(builtin.requests.length, 1);
    // Another caller never gets this caller's suggestion.
    await engine.complete({ ...doc, prefix: doc.prefix + 'compute', caller: 'u2' });
    assert.equal(builtin.requests.length, 2);
  });

  it('a newer request for the same document supersedes the older one', async () => {
    const slow = new Gate();
    const builtin = new ScriptedProvider(
      'builtin',
      'builtin',
      (r) => (r.prefix.endsWith('= ') ? 'slowAnswer();' : 'fast();'),
      (r) => (r.prefix.endsWith('= ') ? slow : undefined),
    );
    const engine = engineWith(builtin);
    const older = engine.complete({ ...request, filePath: 'a.ts' });
    await slow.reached(); // the older request is under way at the provider
    const newer = await engine.complete({ ...request, prefix: 'const total = f', filePath: 'a.ts' });
    const first = await older;
    assert.deepEqual([first.completion, first.superseded], ['', true]);
    assert.equal(newer.completion, 'fast();');
    // Requests without a document, or for another one, do not cancel each other: both are held
    // under way at once, then both answer.
    const both = Promise.all([engine.complete(request), engine.complete({ ...request, filePath: 'b.ts' })]);
    await slow.reached(3);
    slow.open();
    const [a, b] = await both;
    assert.equal(a.completion, 'slowAnswer();');
    assert.equal(b.completion, 'slowAnswer();');
  });

  it('stops a provider that runs past the time limit, even one that ignores the abort', async () => {
    const stuck = new ScriptedProvider('builtin', 'builtin', () => 'x', undefined, undefined, true);
    await assert.rejects(engineWith(stuck, { limits: { timeoutMs: 50 } }).complete(request), (error: LoomError) => error.code === 'model_timeout');
  });

  it('a caller that goes away ends its request', async () => {
    const held = new Gate();
    const slow = new ScriptedProvider(
      'builtin',
      'builtin',
      () => 'abcdefghijklmnop',
      () => held,
    );
    const gone = new AbortController();
    const pending = engineWith(slow).complete({ ...request, signal: gone.signal });
    await held.reached(); // the provider is generating
    gone.abort();
    const result = await pending;
    assert.equal(result.completion, '');
    assert.equal(held.isOpen, false, 'ended while the provider was still held, not when it finished');
  });

  it('passes provider errors through', async () => {
    const failing: CompletionProvider = {
      kind: 'builtin',
      name: 'builtin',
      capabilities: { fim: true, chat: false, tools: false },
      complete: async () => {
        throw new LoomError('model_unavailable', 'gone');
      },
      close: async () => {},
    };
    await assert.rejects(engineWith(failing).complete(request), (error: LoomError) => error.code === 'model_unavailable');
  });

  it('instructions need a chat-capable model', async () => {
    const builtin = new ScriptedProvider('builtin', 'builtin', () => 'x');
    await assert.rejects(engineWith(builtin).complete({ ...request, mode: 'instruct' }), (error: LoomError) => error.code === 'bad_request');
  });

  it('reconfiguring swaps providers in place and closes the replaced one', async () => {
    const builtin = new ScriptedProvider('builtin', 'builtin', () => 'b');
    const made: ScriptedProvider[] = [];
    const set = new ProviderSet(builtin, {
      gguf: (s) => {
        const p = new ScriptedProvider('gguf', s.model, () => 'g');
        made.push(p);
        return p;
      },
      openai: () => assert.fail('no openai'),
    });
    const gguf = { model: 'one.gguf', gpu: 'off' as const, contextSize: 512 };
    set.configure(config({ provider: 'gguf', gguf }));
    assert.equal(set.select().name, 'one.gguf');
    set.configure(config({ provider: 'gguf', gguf, timeoutMs: 5 }));
    assert.equal(made.length, 1, 'unchanged gguf settings keep the loaded model');
    set.configure(config({ provider: 'gguf', gguf: { ...gguf, model: 'two.gguf' } }));
    assert.equal(set.select().name, 'two.gguf');
    assert.equal(made[0]!.closed, true);
    set.configure(config({ provider: 'builtin' }));
    assert.equal(set.select().name, 'builtin');
    assert.equal(made[1]!.closed, true);
    assert.throws(
      () => set.select('gguf'),
      (error: LoomError) => error.code === 'unknown_model',
    );
  });
});
