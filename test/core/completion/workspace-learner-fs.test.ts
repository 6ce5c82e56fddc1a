// The learner hears of every file that appears on disk, in a timer: a name it cannot read (a
// loop of symlinks, a FIFO) must be skipped, never thrown from the timer (which would end the
// process) nor read (a FIFO would block the server for ever).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { acceptsFile, skipsDirectory } from '../../../src/core/completion/builtin/index.ts';
import { WorkspaceLearner } from '../../../src/core/completion/workspace-learner.ts';
import { waitFor } from '../../support/wait.ts';

it('skips symlink loops and FIFOs that appear on disk, and goes on learning', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-learner-fs-'));
  const files = new Map<string, string>();
  const learner = new WorkspaceLearner({ updateFile: (file, text) => void files.set(file, text), removeFile: (file) => void files.delete(file) }, root, {
    train: async () => undefined,
    accepts: acceptsFile,
    skipsDirectory,
    debounceMs: 20,
  });
  learner.start();
  t.after(() => {
    learner.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  fs.symlinkSync('b.ts', path.join(root, 'a.ts'));
  fs.symlinkSync('a.ts', path.join(root, 'b.ts'));
  execFileSync('mkfifo', [path.join(root, 'c.ts')]);
  // Written last: its update comes after theirs.
  fs.writeFileSync(path.join(root, 'z.ts'), 'export const z = 1;\n');
  await waitFor(() => files.has('z.ts'), 10_000);
  assert.deepEqual([...files.keys()], ['z.ts']);
});
