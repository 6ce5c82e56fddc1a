// The models folder: file names of catalog models, `installed`, and resolving a gguf.model
// setting (a catalog name or a path) into a file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { CatalogModel } from '../../../src/core/catalog/schema.ts';
import { LoomError } from '../../../src/core/errors.ts';
import { ModelLibrary, findCatalogModel, modelFileName, resolveGgufModel } from '../../../src/adapters/models/library.ts';

const GGUF = Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(60, 1)]);

const tiny: CatalogModel = {
  name: 'Tiny-Coder-1M',
  provider: 'Test',
  params: '1M',
  url: 'https://example.com/tiny',
  file: { url: 'https://huggingface.co/o/r/resolve/main/tiny-coder.Q4_K_M.gguf?download=true', size: GGUF.length, quantization: 'Q4_K_M' },
};
const noFile: CatalogModel = { name: 'No-File', provider: 'Test', params: '1M', url: 'https://example.com/nofile' };
const catalog = { models: [tiny, noFile] };

function modelsDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-library-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function rejectsWith(fn: () => unknown, message: RegExp, hint?: RegExp) {
  assert.throws(fn, (error: LoomError) => {
    assert.ok(error instanceof LoomError);
    assert.equal(error.code, 'model_unavailable');
    assert.match(error.message, message);
    if (hint) assert.match(error.hint ?? '', hint);
    return true;
  });
}

describe('model library', () => {
  it('names a model file after its URL, its explicit name, or the model', () => {
    assert.equal(modelFileName(tiny), 'tiny-coder.Q4_K_M.gguf');
    assert.equal(modelFileName({ ...tiny, file: { ...tiny.file!, name: 'other.gguf' } }), 'other.gguf');
    assert.equal(modelFileName({ ...tiny, file: { ...tiny.file!, url: 'https://example.com/download?id=3' } }), 'Tiny-Coder-1M.gguf');
    assert.equal(modelFileName({ ...tiny, file: { ...tiny.file!, url: 'https://example.com/..%2F..%2Fetc%2Fx.gguf' } }), 'Tiny-Coder-1M.gguf');
    assert.equal(modelFileName(noFile), undefined);
  });

  it('finds catalog models by exact name, else by name in any case', () => {
    assert.equal(findCatalogModel(catalog.models, 'Tiny-Coder-1M'), tiny);
    assert.equal(findCatalogModel(catalog.models, ' tiny-coder-1m '), tiny);
    assert.equal(findCatalogModel(catalog.models, 'tiny'), undefined);
  });

  it('reports installed only for a complete file under the final name', (t) => {
    const dir = modelsDir(t);
    const library = new ModelLibrary(catalog, dir);
    const file = path.join(dir, 'tiny-coder.Q4_K_M.gguf');
    assert.deepEqual(library.status(tiny), { model: tiny, path: file, installed: false, size: GGUF.length });
    fs.writeFileSync(`${file}.partial`, GGUF);
    assert.equal(library.status(tiny).installed, false);
    fs.writeFileSync(file, GGUF.subarray(0, 10));
    assert.equal(library.status(tiny).installed, false);
    fs.writeFileSync(file, GGUF);
    assert.equal(library.status(tiny).installed, true);
    assert.deepEqual(library.status(noFile), { model: noFile, installed: false });
    assert.deepEqual(library.listing()[1], { name: 'No-File', provider: 'Test', params: '1M', url: 'https://example.com/nofile', installed: false });
  });

  it('resolves an installed catalog model by name', (t) => {
    const dir = modelsDir(t);
    fs.writeFileSync(path.join(dir, 'tiny-coder.Q4_K_M.gguf'), GGUF);
    assert.deepEqual(resolveGgufModel('tiny-coder-1m', catalog, dir), { file: path.join(dir, 'tiny-coder.Q4_K_M.gguf'), name: 'Tiny-Coder-1M' });
  });

  it('says how to install a catalog model that is not installed', (t) => {
    const dir = modelsDir(t);
    rejectsWith(
      () => resolveGgufModel('Tiny-Coder-1M', catalog, dir),
      /The model Tiny-Coder-1M is not installed: .*tiny-coder\.Q4_K_M\.gguf is missing\.$/,
      /^Run: loom models pull Tiny-Coder-1M$/,
    );
    fs.writeFileSync(path.join(dir, 'tiny-coder.Q4_K_M.gguf.partial'), GGUF.subarray(0, 8));
    rejectsWith(() => resolveGgufModel('Tiny-Coder-1M', catalog, dir), /a download was started but is not complete/, /loom models pull Tiny-Coder-1M/);
    rejectsWith(() => resolveGgufModel('No-File', catalog, dir), /has no GGUF file/);
  });

  it('resolves a path, or a bare file name in the models folder', (t) => {
    const dir = modelsDir(t);
    const elsewhere = path.join(modelsDir(t), 'my-model.Q8_0.gguf');
    fs.writeFileSync(elsewhere, GGUF);
    assert.deepEqual(resolveGgufModel(elsewhere, catalog, dir), { file: elsewhere, name: 'my-model.Q8_0' });
    fs.writeFileSync(path.join(dir, 'local.gguf'), GGUF);
    assert.deepEqual(resolveGgufModel('local.gguf', catalog, dir), { file: path.join(dir, 'local.gguf'), name: 'local' });
  });

  it('refuses a missing file, a folder and a file that is not GGUF', (t) => {
    const dir = modelsDir(t);
    rejectsWith(
      () => resolveGgufModel('/nonexistent/model.gguf', catalog, dir),
      /The GGUF model file \/nonexistent\/model\.gguf does not exist\./,
      /Tiny-Coder-1M.*loom models pull NAME/,
    );
    rejectsWith(() => resolveGgufModel('Some-Other-Model', catalog, dir), /neither a catalog model nor an existing file/);
    rejectsWith(() => resolveGgufModel(dir + '/', catalog, dir), /is not a file/);
    const text = path.join(dir, 'notes.gguf');
    fs.writeFileSync(text, 'hello, not a model');
    rejectsWith(() => resolveGgufModel(text, catalog, dir), /is not a GGUF model file/);
  });
});
