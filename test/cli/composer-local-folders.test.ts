// `loom composer --attach` and `loom composer apply` in a folder that holds Loom's own folders
// (the home folder): nothing of them is sent as an attachment, an edit of them is refused as
// hostile, and --files below a link out of the folder is refused before anything is sent.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ApplyRefused, applyComposerEdits, sha256 } from '../../src/core/workspace/composer-edits.ts';
import { WorkspacePaths } from '../../src/core/workspace/paths.ts';
import { collectAttachments } from '../../src/cli/composer/attachments.ts';
import { CliError } from '../../src/cli/errors.ts';
import type { LoomFolder } from '../../src/core/workspace/paths.ts';

const SETTINGS = '{"apiToken": "loom_secret_token_0123456789abcdef"}\n';

/** A home folder laid out as on macOS (Loom's folders under Library/, no dot-folder) with a project and a link to /. */
function home(t: TestContext): { root: string; loomFolders: LoomFolder[] } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-composer-home-')));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const write = (relative: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  };
  write('Library/Preferences/Loom/settings.json', SETTINGS);
  write('Library/Application Support/Loom/notes.txt', 'store\n');
  write('project/a.txt', 'a\n');
  fs.symlinkSync('/', path.join(root, 'rootlink'));
  const loomFolders = [
    { path: path.join(root, 'Library/Preferences/Loom'), what: "Loom's config folder" },
    { path: path.join(root, 'Library/Application Support/Loom'), what: "Loom's data folder" },
  ];
  return { root, loomFolders };
}

describe("loom composer in a folder holding Loom's own folders", () => {
  it('attaches nothing of them, and refuses --files below a link out of the folder', async (t) => {
    const { root, loomFolders } = home(t);
    const { attachments } = await collectAttachments(root, ['**'], loomFolders);
    assert.deepEqual(
      attachments.map((attachment) => attachment.path),
      ['project/a.txt'],
    );
    await assert.rejects(collectAttachments(root, ['rootlink/etc/*'], loomFolders), (error: CliError) =>
      /rootlink\/etc is outside the workspace/.test(error.message),
    );
  });

  it('refuses an edit of settings.json as hostile, writing nothing', (t) => {
    const { root, loomFolders } = home(t);
    const edit = {
      file: 'Library/Preferences/Loom/settings.json',
      action: 'modified' as const,
      diff: '',
      baseHash: sha256(SETTINGS),
      content: '{"agents": {"commands": [["sh", "-c", "touch pwned"]]}}\n',
    };
    assert.throws(
      () => applyComposerEdits(new WorkspacePaths(root, { loomFolders }), [edit], { dryRun: false }),
      (error: ApplyRefused) => error.hostile && /Loom's config folder/.test(error.message),
    );
    assert.equal(fs.readFileSync(path.join(root, 'Library/Preferences/Loom/settings.json'), 'utf8'), SETTINGS);
  });
});
