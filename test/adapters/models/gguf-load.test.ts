// Loading in the gguf provider: the tiny GGUF writer's files as llama.cpp reads them, and every
// way a load fails (model_unavailable, never a hang), retried on the next request; close().
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { getLlama, LlamaLogLevel, type Llama } from 'node-llama-cpp';
import type { ProviderRequest } from '../../../src/core/completion/provider.ts';
import { LoomError } from '../../../src/core/errors.ts';
import { GgufProvider } from '../../../src/adapters/models/gguf.ts';
import { tempModelDir, writeNotGguf, writeTinyGguf } from '../../support/tiny-gguf.ts';

/** A guard against hangs: loading a model on a loaded 2-core machine can take many seconds. */
const TIMEOUT = { timeout: 60_000 };

function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    prefix: 'const x = ',
    suffix: ';\n',
    language: 'typescript',
    mode: 'fim',
    maxTokens: 4,
    stop: () => undefined,
    signal: new AbortController().signal,
    ...overrides,
  };
}

const { dir, remove } = tempModelDir();
after(remove);

/** Asserts a LoomError model_unavailable whose message names the file and which has a hint. */
function unavailable(file: string, pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof LoomError, `not a LoomError: ${String(error)}`);
    assert.equal(error.code, 'model_unavailable');
    assert.match(error.message, pattern);
    assert.ok(error.message.includes(file), `the message does not name ${file}: ${error.message}`);
    assert.ok(error.hint && error.hint.length > 10);
    return true;
  };
}

describe('tiny GGUF files', () => {
  let llama: Llama;
  before(async () => {
    llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
  });
  after(() => llama.dispose());

  for (const fim of ['fim', 'legacy', 'names', false] as const) {
    it(`load in llama.cpp with fim: ${fim}`, TIMEOUT, async () => {
      const written = writeTinyGguf(`${dir}/fim-${fim}.gguf`, { fim, nEmbd: 32, nHead: 2, nLayer: 1, contextLength: 2048 });
      const model = await llama.loadModel({ modelPath: written.file });
      try {
        assert.equal(model.trainContextSize, 2048);
        assert.equal(model.fileInfo.metadata.general.architecture, 'llama');
        assert.equal(model.tokens.bos, 1);
        assert.equal(model.tokens.eos, 2);
        const { prefix, suffix, middle } = model.tokens.infill;
        if (fim) assert.deepEqual({ prefix, suffix, middle }, written.fimTokens);
        else assert.deepEqual({ prefix, suffix, middle }, { prefix: null, suffix: null, middle: null });
        // Code tokenizes into words, not bytes; the rest falls back to byte tokens.
        const tokens = model.tokenize('  return value;\n', false);
        assert.ok(tokens.length <= 8, `${tokens.length} tokens`);
        assert.equal(model.detokenize(tokens), '  return value;\n');
        assert.equal(model.detokenize(model.tokenize('é ✓', false)), 'é ✓');
      } finally {
        await model.dispose();
      }
    });
  }

  it('are the same bytes for the same seed', () => {
    const a = writeTinyGguf(`${dir}/seed-a.gguf`, { nEmbd: 16, nHead: 2, nLayer: 1, seed: 3 });
    const b = writeTinyGguf(`${dir}/seed-b.gguf`, { nEmbd: 16, nHead: 2, nLayer: 1, seed: 3 });
    assert.ok(fs.readFileSync(a.file).equals(fs.readFileSync(b.file)));
  });
});

describe('gguf provider load failures', () => {
  const provider = (file: string, extra: Partial<ConstructorParameters<typeof GgufProvider>[0]> = {}) =>
    new GgufProvider({ file, name: 'broken', gpu: 'off', contextSize: 256, threads: 1, sequences: 1, ...extra });

  it('a missing file: model_unavailable on every request, loaded once it appears', TIMEOUT, async () => {
    const file = `${dir}/later.gguf`;
    const gguf = provider(file);
    try {
      await assert.rejects(gguf.complete(request()), unavailable(file, /does not exist/));
      await assert.rejects(gguf.complete(request()), unavailable(file, /does not exist/));
      assert.equal(gguf.stats().state, 'idle');
      writeTinyGguf(file, { nEmbd: 32, nHead: 2, nLayer: 1 });
      const result = await gguf.complete(request());
      assert.ok(result.tokens <= 4);
    } finally {
      await gguf.close();
    }
  });

  for (const kind of ['text', 'empty', 'truncated'] as const) {
    it(`a file that is not a GGUF model (${kind}): model_unavailable`, TIMEOUT, async () => {
      const file = writeNotGguf(`${dir}/not-${kind}.gguf`, kind);
      const gguf = provider(file);
      try {
        const pattern = kind === 'truncated' ? /cannot load/ : /not a GGUF model file/;
        await assert.rejects(gguf.complete(request()), unavailable(file, pattern));
        await assert.rejects(gguf.load(), unavailable(file, pattern));
      } finally {
        await gguf.close();
      }
    });
  }

  it('a folder: model_unavailable', TIMEOUT, async () => {
    const gguf = provider(dir);
    await assert.rejects(gguf.complete(request()), unavailable(dir, /folder/));
    await gguf.close();
  });

  it('concurrent requests share one load and its failure', TIMEOUT, async () => {
    const file = writeNotGguf(`${dir}/shared.gguf`, 'truncated');
    let imports = 0;
    const gguf = provider(file, {
      importRuntime: () => {
        imports++;
        return import('node-llama-cpp');
      },
    });
    const results = await Promise.allSettled([gguf.complete(request()), gguf.complete(request()), gguf.complete(request())]);
    assert.ok(results.every((result) => result.status === 'rejected' && unavailable(file, /cannot load/)(result.reason)));
    assert.equal(imports, 1);
    await assert.rejects(gguf.complete(request()));
    assert.equal(imports, 2, 'a failed load is tried again');
    await gguf.close();
  });

  it('node-llama-cpp failing to import: model_unavailable', TIMEOUT, async () => {
    const file = writeTinyGguf(`${dir}/ok.gguf`, { nEmbd: 16, nHead: 2, nLayer: 1 }).file;
    const gguf = provider(file, { importRuntime: () => Promise.reject(new Error('Cannot find module node-llama-cpp')) });
    await assert.rejects(gguf.complete(request()), unavailable(file, /node-llama-cpp failed to load.*Cannot find module/));
    await gguf.close();
  });

  it('a GPU backend that is not installed: model_unavailable, never a CPU fallback', TIMEOUT, async () => {
    const file = writeTinyGguf(`${dir}/gpu.gguf`, { nEmbd: 16, nHead: 2, nLayer: 1 }).file;
    for (const gpu of ['cuda', 'vulkan'] as const) {
      const gguf = provider(file, { gpu });
      await assert.rejects(gguf.complete(request()), unavailable(file, new RegExp(gpu)));
      await gguf.close();
    }
  });

  it('an abort while loading rejects at once, without waiting for the load', TIMEOUT, async () => {
    const file = writeTinyGguf(`${dir}/abort-load.gguf`, { nEmbd: 16, nHead: 2, nLayer: 1 }).file;
    const gguf = provider(file);
    const controller = new AbortController();
    const pending = gguf.complete(request({ signal: controller.signal }));
    controller.abort(new Error('client went away'));
    await assert.rejects(pending, /client went away/);
    assert.equal(gguf.stats().state, 'loading', 'the request ended while the model was still loading');
    await gguf.close();
  });

  it('rejects bad options', () => {
    assert.throws(() => provider('x.gguf', { contextSize: 10 }), RangeError);
    assert.throws(() => provider('x.gguf', { sequences: 0 }), RangeError);
    assert.throws(() => provider('x.gguf', { threads: 1.5 }), RangeError);
  });
});

describe('gguf provider close', () => {
  it('stops a request under way and refuses the next ones', TIMEOUT, async () => {
    const file = writeTinyGguf(`${dir}/close.gguf`, { nEmbd: 32, nHead: 2, nLayer: 1 }).file;
    const gguf = new GgufProvider({ file, name: 'closing', gpu: 'off', contextSize: 512, threads: 1 });
    await gguf.load();
    let closing: Promise<void> | undefined;
    const running = gguf.complete(
      request({
        maxTokens: 400,
        stop: () => {
          closing ??= gguf.close();
          return undefined;
        },
      }),
    );
    await assert.rejects(running, (error) => error instanceof LoomError && error.code === 'model_unavailable' && /closed/.test(error.message));
    await closing;
    assert.equal(gguf.stats().state, 'closed');
    await assert.rejects(gguf.complete(request()), (error) => error instanceof LoomError && error.code === 'model_unavailable');
    await gguf.close(); // twice is fine
  });
});
