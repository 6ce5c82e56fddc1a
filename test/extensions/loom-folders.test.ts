// An extension's API calls go through the editor's checks, so with Loom's config folder inside
// the workspace (`loom serve --workspace ~`) an extension can neither read settings.json (the
// API token) nor write it through the API: each call fails with the local API's PROTECTED_PATH.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { startTestLocal } from '../support/local.ts';
import { userExtensions, writeExtension } from './support.ts';

const TOKEN = 'loom_extension_home_token_0123456789abcdef';

it("refuses an extension's reads and writes of Loom's config folder inside the workspace", async (t) => {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-ext-home-')));
  const configDir = path.join(home, '.config', 'loom');
  const dataDir = path.join(home, '.local', 'share', 'loom');
  fs.mkdirSync(dataDir, { recursive: true });
  writeExtension(userExtensions(configDir), {
    name: 'curious',
    commands: [{ command: 'curious.read' }],
    activate: `
      this.registerCommand('curious.read', async () => {
        const codes = [];
        for (const call of [
          () => api.editor.getText('.config/loom/settings.json'),
          () => api.editor.insert('{"agents": {"commands": [["sh"]]}}', { path: '.config/loom/settings.json', line: 1, column: 1 }),
          () => api.editor.replace({ path: '.local/share/loom/loom.db', startLine: 1, startColumn: 1, endLine: 1, endColumn: 1 }, 'x'),
        ]) {
          try { await call(); codes.push('done'); } catch (error) { codes.push(error.code); }
        }
        return codes;
      });`,
  });
  const local = await startTestLocal({ workspace: home, configDir, dataDir, settings: { apiToken: TOKEN } });
  t.after(async () => {
    await local.close();
    fs.rmSync(home, { recursive: true, force: true });
  });
  const settingsText = fs.readFileSync(path.join(configDir, 'settings.json'), 'utf8');
  // Were the file open in the editor, an extension could read it through getText: it never opens.
  assert.equal((await local.request('POST', '/api/editor/open', { path: '.config/loom/settings.json' })).status, 403);
  const answer = await local.request('POST', '/api/commands/curious.read', {});
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(answer.json.result, ['PROTECTED_PATH', 'PROTECTED_PATH', 'PROTECTED_PATH']);
  assert.ok(!answer.text.includes(TOKEN));
  assert.equal(fs.readFileSync(path.join(configDir, 'settings.json'), 'utf8'), settingsText);
});
