import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BuiltinModel, acceptsFile, skipsDirectory, trainOnFolder } from '../../../../src/core/completion/builtin/index.ts';
import { walk } from '../../../../src/core/completion/builtin/corpus.ts';
import { WorkspacePaths } from '../../../../src/core/workspace/paths.ts';

/** A model that records what it is fed. */
class RecordingModel extends BuiltinModel {
  readonly fed = new Map<string, string>();
  override updateFile(filePath: string, text: string): void {
    this.fed.set(filePath, text);
    super.updateFile(filePath, text);
  }
}

const CODE = 'export function add(a, b) {\n  return a + b;\n}\n';

describe('trainOnFolder', () => {
  let root: string;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-builtin-corpus-'));
    const write = (relative: string, content: string | Buffer) => {
      fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
      fs.writeFileSync(path.join(root, relative), content);
    };
    write('src/add.js', CODE);
    write('src/deep/more.ts', CODE.replace('add', 'sub'));
    write('README.md', '# A project\n');
    write('.git/config', '[core]\n');
    write('.cache/x.js', CODE);
    write('node_modules/lib/index.js', CODE);
    write('dist/bundle.js', CODE);
    write('build/out.js', CODE);
    write('coverage/lcov.js', CODE);
    write('src/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    write('src/data.bin', Buffer.from('text then a NUL \u0000 byte'));
    write('src/huge.js', 'x'.repeat(1024 * 1024 + 1));
    write('src/app.min.js', CODE);
    write('package-lock.json', '{}');
    write('src/minified.js', 'a'.repeat(9000) + '\n' + 'b'.repeat(9000)); // long lines: a bundle
  });

  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('feeds the code and skips .git, dot-folders, node_modules, build output, binaries, big and minified files', async () => {
    const model = new RecordingModel();
    const result = await trainOnFolder(model, new WorkspacePaths(root));
    assert.deepEqual([...model.fed.keys()].sort(), ['README.md', 'src/add.js', 'src/deep/more.ts']);
    assert.equal(result.files, 3);
    assert.equal(result.bytes, CODE.length * 2 + '# A project\n'.length);
    assert.equal(model.fed.get('src/add.js'), CODE);
    // Indexed, not just recorded: the model knows the code.
    assert.equal(model.stats().files, 3);
  });

  it('stops at maxBytes', async () => {
    const model = new RecordingModel();
    const result = await trainOnFolder(model, new WorkspacePaths(root), { maxBytes: CODE.length + 20 });
    // README.md (12 bytes) and src/add.js fit; the next file would not.
    assert.deepEqual([...model.fed.keys()], ['README.md', 'src/add.js']);
    assert.equal(result.files, 2);
    assert.ok(result.bytes <= CODE.length + 20);
  });

  it('rejects with the reason when aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    await assert.rejects(trainOnFolder(new BuiltinModel(), new WorkspacePaths(root), { signal: controller.signal }), /shutting down/);
  });

  it('yields to the event loop while it trains', async () => {
    const many = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-builtin-many-'));
    try {
      for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(many, `f${i}.js`), CODE.replace('add', `add${i}`));
      // Counts turns of the event loop: each runs this immediate again.
      let ticks = 0;
      let counting = true;
      const tick = () => {
        ticks++;
        if (counting) setImmediate(tick);
      };
      setImmediate(tick);
      const interleaved: number[] = [];
      const model = new (class extends BuiltinModel {
        override updateFile(filePath: string, text: string): void {
          interleaved.push(ticks);
          super.updateFile(filePath, text);
        }
      })();
      await trainOnFolder(model, new WorkspacePaths(many));
      counting = false;
      assert.equal(interleaved.length, 60);
      // The loop turned between the first and the last file: it was not held.
      assert.ok(interleaved[59]! > interleaved[0]!, `ticks seen: ${interleaved[0]} … ${interleaved[59]}`);
    } finally {
      fs.rmSync(many, { recursive: true, force: true });
    }
  });

  it('aborts midway through a folder', async () => {
    const controller = new AbortController();
    const model = new (class extends BuiltinModel {
      fed = 0;
      override updateFile(filePath: string, text: string): void {
        if (++this.fed === 1) controller.abort(new Error('stop'));
        super.updateFile(filePath, text);
      }
    })();
    await assert.rejects(trainOnFolder(model, new WorkspacePaths(root), { signal: controller.signal }), /stop/);
    assert.equal(model.fed, 1);
  });

  it('walks in a stable order, files under their folders', async () => {
    const seen: string[] = [];
    for await (const file of walk(new WorkspacePaths(root))) seen.push(file.path);
    assert.deepEqual(seen, [...seen].sort());
    assert.ok(!seen.some((f) => f.startsWith('.git/') || f.startsWith('node_modules/')));
  });
});

describe('trainOnFolder through the workspace gate', () => {
  it("follows links only inside the folder, never round a loop, and never learns Loom's own folders", async (t) => {
    const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-builtin-links-')));
    t.after(() => fs.rmSync(top, { recursive: true, force: true }));
    const root = path.join(top, 'home');
    const write = (relative: string, content: string) => {
      fs.mkdirSync(path.dirname(path.join(top, relative)), { recursive: true });
      fs.writeFileSync(path.join(top, relative), content);
    };
    write('home/src/add.js', CODE);
    // Where macOS keeps Loom's settings: not a dot-folder, so only the gate keeps it out.
    write('home/Library/Preferences/Loom/settings.json', '{"apiToken": "loom_secret_token"}\n');
    write('outside/secret.js', 'const secret = "outside";\n');
    fs.symlinkSync(path.join(top, 'outside'), path.join(root, 'out'));
    fs.symlinkSync(path.join(top, 'outside', 'secret.js'), path.join(root, 'leak.js'));
    fs.symlinkSync('src', path.join(root, 'lib'));
    fs.symlinkSync('..', path.join(root, 'src', 'up'));
    const model = new RecordingModel();
    await trainOnFolder(
      model,
      new WorkspacePaths(root, { loomFolders: [{ path: path.join(root, 'Library/Preferences/Loom'), what: "Loom's config folder" }] }),
    );
    assert.deepEqual([...model.fed.keys()], ['lib/add.js', 'src/add.js']);
  });
});

describe('acceptsFile and skipsDirectory', () => {
  it('follow the walker rules for files heard of one at a time', () => {
    assert.equal(skipsDirectory('.git'), true);
    assert.equal(skipsDirectory('node_modules'), true);
    assert.equal(skipsDirectory('dist'), true);
    assert.equal(skipsDirectory('src'), false);
    assert.equal(acceptsFile('src/a.ts', 100), true);
    assert.equal(acceptsFile('src/a.ts', 2 * 1024 * 1024), false);
    assert.equal(acceptsFile('node_modules/x/a.js', 100), false);
    assert.equal(acceptsFile('src/.hidden/a.js', 100), false);
    assert.equal(acceptsFile('img/logo.png', 100), false);
    assert.equal(acceptsFile('web/app.min.js', 100), false);
    assert.equal(acceptsFile('package-lock.json', 100), false);
  });
});
