// The probe's attack through the editor: write core.fsmonitor into .git/config, then let the
// background status run it. Files in git directories and .loom open read-only; no edit or save
// reaches them, by any path, and git would not run the program anyway.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { startTestLocal, type TestLocal } from '../support/local.ts';

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

/** A served repository with a nested `.git` file pointing at `store/`, `.loom/` and a marker script. */
async function repository(t: TestContext): Promise<{ local: TestLocal; marker: string; script: string }> {
  const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-protected-ws-')));
  const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-protected-out-')));
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: workspace, env: GIT_ENV });
  const marker = path.join(outside, 'ran');
  const script = path.join(outside, 'probe.sh');
  fs.writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
  const files: Record<string, string> = {
    'src/config': 'not git\n',
    '.loom/extensions/trusted.js': 'export {}\n',
    'sub/.git': 'gitdir: ../store\n',
    'store/HEAD': 'ref: refs/heads/main\n',
    'store/config': '[core]\n',
  };
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  fs.mkdirSync(path.join(workspace, 'store/objects'));
  fs.mkdirSync(path.join(workspace, 'store/refs'));
  fs.symlinkSync('.git/config', path.join(workspace, 'cfg'));
  const local = await startTestLocal({ workspace });
  t.after(async () => {
    await local.close();
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });
  return { local, marker, script };
}

describe('protected paths through the editor', () => {
  it('opens .git/config read-only, refuses every edit and save with 403 PROTECTED_PATH, and status runs nothing', async (t) => {
    const { local, marker, script } = await repository(t);
    const config = path.join(local.workspace, '.git/config');
    const before = fs.readFileSync(config, 'utf8');
    const opened = await local.request('POST', '/api/editor/open', { path: '.git/config' });
    assert.equal(opened.status, 200);
    assert.equal(opened.json.readOnly, true);
    const edits: [string, unknown][] = [
      ['/api/editor/insert', { text: `\tfsmonitor = ${script}\n`, line: 2, column: 1 }],
      ['/api/editor/replace', { text: `[core]\n\tfsmonitor = ${script}\n`, startLine: 1, startColumn: 1, endLine: 1, endColumn: 7 }],
      ['/api/editor/save', { overwrite: true }],
    ];
    for (const [route, body] of edits) {
      const res = await local.request('POST', route, body);
      assert.equal(res.status, 403, route);
      assert.equal(res.json.error.code, 'PROTECTED_PATH', route);
    }
    assert.equal(fs.readFileSync(config, 'utf8'), before);
    assert.equal((await local.request('GET', '/api/editor/text')).json.text, before, 'the document is unchanged too');
    assert.equal((await local.request('GET', '/api/git/status')).status, 200);
    assert.equal(fs.existsSync(marker), false);
  });

  it('treats .loom, a symlink into .git and the gitdir of a .git file the same way', async (t) => {
    const { local } = await repository(t);
    for (const [target, key] of [
      ['.loom/extensions/trusted.js', '.loom/extensions/trusted.js'],
      ['cfg', '.git/config'],
      ['store/config', 'store/config'],
      ['.GIT/config', '.git/config'],
    ]) {
      const opened = await local.request('POST', '/api/editor/open', { path: target });
      if (target === '.GIT/config' && opened.status === 404) continue; // a case-sensitive file system: no such file
      assert.equal(opened.status, 200, target);
      assert.deepEqual([opened.json.path, opened.json.readOnly], [key, true], target);
      const saved = await local.request('POST', '/api/editor/save', {});
      assert.equal(saved.json.error.code, 'PROTECTED_PATH', target);
    }
    const plain = await local.request('POST', '/api/editor/open', { path: 'src/config' });
    assert.equal(plain.json.readOnly, false);
  });

  it('refuses to save when a folder on the path became a symlink into .git after opening', async (t) => {
    const { local } = await repository(t);
    assert.equal((await local.request('POST', '/api/editor/open', { path: 'src/config' })).status, 200);
    await local.request('POST', '/api/editor/insert', { text: '[core]\n\tfsmonitor = /bin/evil\n' });
    fs.renameSync(path.join(local.workspace, 'src'), path.join(local.workspace, 'src-moved'));
    fs.symlinkSync('.git', path.join(local.workspace, 'src'));
    const before = fs.readFileSync(path.join(local.workspace, '.git/config'), 'utf8');
    const saved = await local.request('POST', '/api/editor/save', { overwrite: true });
    assert.equal(saved.status, 403, saved.text);
    assert.equal(saved.json.error.code, 'PROTECTED_PATH');
    assert.equal(fs.readFileSync(path.join(local.workspace, '.git/config'), 'utf8'), before);
  });
});
