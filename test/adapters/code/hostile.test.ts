// A hostile repository (a cloned repository is untrusted code): each case leaves indexing
// bounded, skipped with its reason, never a crash or a hang; what is fine beside it is indexed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { CodeIndex, type CodeIndexOptions } from '../../../src/adapters/code/code-index.ts';
import type { SkipReason } from '../../../src/core/code/model.ts';

function tempDir(t: TestContext, prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function indexOf(t: TestContext, root: string, options: Partial<CodeIndexOptions> = {}): Promise<{ index: CodeIndex; reasons: Map<string, SkipReason> }> {
  const index = CodeIndex.open({ root, dataDir: tempDir(t, 'loom-hostile-data-'), workers: 1, ...options });
  t.after(() => index.close());
  await index.refresh();
  const reasons = new Map((await index.skipped({ limit: 10_000 })).map((entry) => [entry.path, entry.reason]));
  return { index, reasons };
}

describe('a hostile repository', () => {
  it('a 100 MB file is listed, not read; a minified file and a 10 MB line are not parsed', async (t) => {
    const root = tempDir(t, 'loom-hostile-');
    // Sparse: 100 MB by its size, nothing written.
    const huge = fs.openSync(path.join(root, 'bundle.min.js'), 'w');
    fs.ftruncateSync(huge, 100 * 1024 * 1024);
    fs.closeSync(huge);
    fs.writeFileSync(path.join(root, 'app.min.js'), `var a=${'[1,2,3],'.repeat(60_000)}0;`);
    fs.writeFileSync(path.join(root, 'data.js'), `const line = "${'x'.repeat(10 * 1024 * 1024)}";\n`);
    fs.writeFileSync(path.join(root, 'fine.ts'), 'export function fine() {}\n');
    const { index, reasons } = await indexOf(t, root, { maxFileBytes: 12 * 1024 * 1024 });
    assert.equal(reasons.get('bundle.min.js'), 'too-large');
    assert.equal(reasons.get('app.min.js'), 'minified');
    assert.equal(reasons.get('data.js'), 'minified');
    assert.equal((await index.findSymbols('fine'))[0]!.path, 'fine.ts');
    // Listed all the same: Ctrl+P finds them.
    assert.ok((await index.findFiles('bundle')).some((hit) => hit.path === 'bundle.min.js'));
    // With the default limit, the 10 MB file is not even read.
    const { reasons: byDefault } = await indexOf(t, root);
    assert.equal(byDefault.get('data.js'), 'too-large');
  });

  it('binary files and invalid UTF-8', async (t) => {
    const root = tempDir(t, 'loom-hostile-');
    fs.writeFileSync(path.join(root, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]));
    fs.writeFileSync(path.join(root, 'program.js'), Buffer.concat([Buffer.from('function ok() {}\n'), Buffer.from([0]), Buffer.from('more')]));
    fs.writeFileSync(
      path.join(root, 'broken.ts'),
      Buffer.concat([Buffer.from('export const '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' = 1;\nexport function afterBroken() {}\n')]),
    );
    const { index, reasons } = await indexOf(t, root);
    assert.equal(reasons.get('image.png'), 'binary');
    assert.equal(reasons.get('program.js'), 'binary');
    assert.equal(reasons.has('broken.ts'), false);
    const [hit] = await index.findSymbols('afterBroken');
    assert.deepEqual(hit!.nameRange.start, { line: 2, column: 17 });
  });

  it('folders nested past the limit, and source nested deep enough to exhaust a recursive walk', async (t) => {
    const root = tempDir(t, 'loom-hostile-');
    const deep = path.join(root, ...Array.from({ length: 80 }, () => 'd'));
    fs.mkdirSync(deep, { recursive: true });
    fs.writeFileSync(path.join(deep, 'lost.ts'), 'export const lost = 1;\n');
    // 50,000 levels, one per line (a line of 20,000 characters would count as minified).
    fs.writeFileSync(path.join(root, 'nested.js'), `x = ${'[\n'.repeat(50_000)}${']\n'.repeat(50_000)};\nfunction afterNesting() {}\n`);
    fs.writeFileSync(path.join(root, 'functions.js'), `${'function f() {\n'.repeat(10_000)}${'}\n'.repeat(10_000)}`);
    // Time enough to parse whatever the machine's load: the outline, not the time limit, is under test here.
    const { index, reasons } = await indexOf(t, root, { parseTimeoutMs: 120_000 });
    assert.equal(reasons.get(Array.from({ length: 65 }, () => 'd').join('/')), 'too-deep');
    assert.deepEqual(await index.findSymbols('lost'), []);
    assert.equal((await index.findSymbols('afterNesting'))[0]!.path, 'nested.js');
    // Capped per file, and said to be cut.
    const outline = await index.outline('functions.js');
    assert.equal(outline!.definitions.length, 5000);
    assert.equal(outline!.truncated, true);
  });

  it('symbolic links: a loop, one out of the workspace, a dangling one; a link inside is followed once', { skip: process.platform === 'win32' }, async (t) => {
    const root = tempDir(t, 'loom-hostile-');
    const outside = tempDir(t, 'loom-outside-');
    fs.writeFileSync(path.join(outside, 'secret.ts'), 'export const secret = 1;\n');
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src/real.ts'), 'export function realOne() {}\n');
    fs.symlinkSync('..', path.join(root, 'src/up'));
    fs.symlinkSync(outside, path.join(root, 'escape'));
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'secret-link.ts'));
    fs.symlinkSync('self', path.join(root, 'self'));
    fs.symlinkSync('missing.ts', path.join(root, 'dangling.ts'));
    fs.symlinkSync('src', path.join(root, 'alias'));
    fs.symlinkSync('src/real.ts', path.join(root, 'file-link.ts'));
    const { index, reasons } = await indexOf(t, root);
    assert.equal(reasons.get('escape'), 'symlink-outside');
    assert.equal(reasons.get('secret-link.ts'), 'symlink-outside');
    assert.equal(reasons.get('self'), 'symlink-broken');
    assert.equal(reasons.get('dangling.ts'), 'symlink-broken');
    // Both lead to folders walked under their own names already.
    assert.equal(reasons.get('alias'), 'symlink-loop');
    assert.equal(reasons.get('src/up'), 'symlink-loop');
    assert.deepEqual(await index.findSymbols('secret'), []);
    assert.deepEqual(
      (await index.findSymbols('realOne')).map((hit) => hit.path),
      ['file-link.ts', 'src/real.ts'],
    );
  });

  it('more files than the limit: the rest are skipped, once, with the reason', async (t) => {
    const root = tempDir(t, 'loom-hostile-');
    for (let folder = 0; folder < 6; folder++) {
      fs.mkdirSync(path.join(root, `f${folder}`));
      for (let file = 0; file < 50; file++) fs.writeFileSync(path.join(root, `f${folder}`, `m${file}.py`), `def fn_${folder}_${file}(): pass\n`);
    }
    const { index, reasons } = await indexOf(t, root, { maxFiles: 120 });
    assert.equal(index.status().files, 120);
    assert.deepEqual([...reasons.values()], ['file-limit']);
  });

  it('a FIFO in the workspace, even as a .gitignore, is never read', { skip: process.platform === 'win32' }, async (t) => {
    const root = tempDir(t, 'loom-hostile-');
    execFileSync('mkfifo', [path.join(root, 'pipe.ts')]);
    fs.mkdirSync(path.join(root, 'sub'));
    execFileSync('mkfifo', [path.join(root, 'sub/.gitignore')]);
    fs.writeFileSync(path.join(root, 'sub/ok.ts'), 'export const ok = 1;\n');
    const { index, reasons } = await indexOf(t, root);
    assert.equal(reasons.get('pipe.ts'), 'not-regular');
    assert.equal((await index.findSymbols('ok'))[0]!.path, 'sub/ok.ts');
  });

  it('a file tree-sitter cannot parse in its time is indexed as text, with the reason', async (t) => {
    const root = tempDir(t, 'loom-hostile-');
    fs.writeFileSync(
      path.join(root, 'slow.js'),
      Array.from({ length: 12_000 }, (_, i) => `function slowFunction${i}(a, b) { return a + b * ${i}; }`).join('\n'),
    );
    fs.writeFileSync(path.join(root, 'small.js'), 'function small() {}\n');
    const { index, reasons } = await indexOf(t, root, { parseTimeoutMs: 1 });
    assert.equal(reasons.get('slow.js'), 'parse-timeout');
    // Its words are still in the ranked search.
    assert.equal((await index.searchRanked('slowFunction11999'))[0]!.path, 'slow.js');
  });
});
