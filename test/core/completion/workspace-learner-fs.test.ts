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
import { WorkspacePaths } from '../../../src/core/workspace/paths.ts';
import { waitFor } from '../../support/wait.ts';

it('skips symlink loops and FIFOs that appear on disk, and goes on learning', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-learner-fs-'));
  const files = new Map<string, string>();
  const learner = new WorkspaceLearner(
    { updateFile: (file, text) => void files.set(file, text), removeFile: (file) => void files.delete(file) },
    new WorkspacePaths(root),
    {
      train: async () => undefined,
      accepts: acceptsFile,
      skipsDirectory,
      debounceMs: 20,
    },
  );
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

it("never learns through a link that appears leading out of the workspace, nor a file of Loom's folders", async (t) => {
  const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-learner-links-')));
  const root = path.join(top, 'home');
  fs.mkdirSync(path.join(root, 'Library', 'Preferences', 'Loom'), { recursive: true });
  fs.mkdirSync(path.join(top, 'outside'));
  fs.writeFileSync(path.join(top, 'outside', 'secret.ts'), 'export const secret = "outside";\n');
  const files = new Map<string, string>();
  const paths = new WorkspacePaths(root, { loomFolders: [{ path: path.join(root, 'Library', 'Preferences', 'Loom'), what: "Loom's config folder" }] });
  const learner = new WorkspaceLearner({ updateFile: (file, text) => void files.set(file, text), removeFile: (file) => void files.delete(file) }, paths, {
    train: async () => undefined,
    accepts: acceptsFile,
    skipsDirectory,
    debounceMs: 20,
  });
  learner.start();
  t.after(() => {
    learner.close();
    fs.rmSync(top, { recursive: true, force: true });
  });
  fs.symlinkSync(path.join(top, 'outside', 'secret.ts'), path.join(root, 'leak.ts'));
  fs.writeFileSync(path.join(root, 'Library', 'Preferences', 'Loom', 'settings.json'), '{"apiToken": "loom_secret_token"}\n');
  // Written last: its update comes after theirs.
  fs.writeFileSync(path.join(root, 'z.ts'), 'export const z = 1;\n');
  await waitFor(() => files.has('z.ts'), 10_000);
  assert.deepEqual([...files.keys()], ['z.ts']);
});
