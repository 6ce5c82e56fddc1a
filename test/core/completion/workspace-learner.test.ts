// The learner keeps the builtin model in step with the workspace: real folders, real fs.watch.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { acceptsFile, skipsDirectory } from '../../../src/core/completion/builtin/index.ts';
import { WorkspaceLearner, type LearningModel } from '../../../src/core/completion/workspace-learner.ts';
import { WorkspacePaths } from '../../../src/core/workspace/paths.ts';
import { waitFor } from '../../support/wait.ts';

class RecordingModel implements LearningModel {
  readonly files = new Map<string, string>();
  readonly updates: string[] = [];
  updateFile(filePath: string, text: string): void {
    this.files.set(filePath, text);
    this.updates.push(filePath);
  }
  removeFile(filePath: string): void {
    this.files.delete(filePath);
  }
}

function setup(t: TestContext) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-learner-'));
  fs.mkdirSync(path.join(root, 'src'));
  fs.mkdirSync(path.join(root, 'node_modules', 'dep'), { recursive: true });
  const model = new RecordingModel();
  let trained = 0;
  const learner = new WorkspaceLearner(model, new WorkspacePaths(root), {
    train: async () => void trained++,
    accepts: acceptsFile,
    skipsDirectory,
    debounceMs: 20,
  });
  learner.start();
  t.after(() => {
    learner.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  return { root, model, learner, trained: () => trained };
}

describe('workspace learner', () => {
  it('trains on the workspace at start', async (t) => {
    const { learner, trained } = setup(t);
    await learner.ready;
    assert.equal(trained(), 1);
  });

  it('learns an editor document once typing pauses, with its latest text', async (t) => {
    const { model, learner } = setup(t);
    let text = 'let a';
    for (const next of ['let a =', 'let a = 1', 'let a = 1;']) {
      learner.documentChanged('src/a.ts', () => text);
      text = next;
    }
    await waitFor(() => model.files.has('src/a.ts'));
    assert.equal(model.files.get('src/a.ts'), 'let a = 1;');
    assert.deepEqual(model.updates, ['src/a.ts'], 'a burst of keystrokes is one update');
  });

  it('learns files created, changed and deleted on disk, in new folders too, but not in skipped ones', async (t) => {
    const { root, model } = setup(t);
    fs.writeFileSync(path.join(root, 'src', 'b.ts'), 'export const b = 1;\n');
    await waitFor(() => model.files.get('src/b.ts') === 'export const b = 1;\n');
    fs.writeFileSync(path.join(root, 'src', 'b.ts'), 'export const b = 2;\n');
    await waitFor(() => model.files.get('src/b.ts') === 'export const b = 2;\n');
    fs.mkdirSync(path.join(root, 'lib', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(root, 'lib', 'deep', 'c.py'), 'print(1)\n');
    await waitFor(() => model.files.has('lib/deep/c.py'));
    fs.rmSync(path.join(root, 'src', 'b.ts'));
    await waitFor(() => !model.files.has('src/b.ts'));
    fs.writeFileSync(path.join(root, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
    fs.writeFileSync(path.join(root, 'src', 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]));
    fs.writeFileSync(path.join(root, 'src', 'marker.ts'), '// last\n');
    await waitFor(() => model.files.has('src/marker.ts'));
    assert.ok(!model.files.has('node_modules/dep/index.js'), 'dependencies are not learned');
    assert.ok(!model.files.has('src/logo.png'), 'binaries are not learned');
  });

  it('keeps the live text of a file open in the editor over what is on disk', async (t) => {
    const { root, model, learner } = setup(t);
    learner.documentChanged('src/open.ts', () => 'unsaved edit');
    await waitFor(() => model.files.get('src/open.ts') === 'unsaved edit');
    fs.writeFileSync(path.join(root, 'src', 'open.ts'), 'on disk');
    fs.writeFileSync(path.join(root, 'src', 'marker2.ts'), '// after\n');
    await waitFor(() => model.files.has('src/marker2.ts'));
    assert.equal(model.files.get('src/open.ts'), 'unsaved edit');
  });

  it('stops following the workspace when closed', async (t) => {
    const { root, model, learner } = setup(t);
    // A witness that follows the same folder: once it has learned the new file, the closed
    // learner has had every chance to, had it still been watching.
    const witness = new RecordingModel();
    const open = new WorkspaceLearner(witness, new WorkspacePaths(root), { train: async () => {}, accepts: acceptsFile, skipsDirectory, debounceMs: 20 });
    open.start();
    t.after(() => open.close());
    learner.close();
    fs.writeFileSync(path.join(root, 'src', 'late.ts'), 'late\n');
    await waitFor(() => witness.files.has('src/late.ts'));
    assert.equal(model.files.has('src/late.ts'), false);
  });
});
