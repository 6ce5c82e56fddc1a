// Writing the workspace's own extensions (`.loom/extensions`), end to end on the real server:
// the code a trusted workspace runs, so the signed-in window of a trusted workspace only
// (docs/security.md, "Who may run code"). The token is 403 WINDOW_REQUIRED and writes nothing,
// so is a window signed in with the token; an untrusted workspace is 403 WORKSPACE_UNTRUSTED;
// the trusted window writes, and what it writes runs after a reload. No other spelling, no
// symbolic link, nothing protected below: 403 PROTECTED_PATH. The editor's save still refuses
// every path in .loom, window or not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { signInWindow } from '../support/agent-local.ts';
import { startTestLocal } from '../support/local.ts';

const MANIFEST = JSON.stringify({
  name: 'hello',
  version: '1.0.0',
  type: 'module',
  main: './extension.js',
  activationEvents: ['onCommand:hello.say'],
  contributes: { commands: [{ command: 'hello.say', title: 'Hello: Say' }] },
});
const code = (word: string) =>
  `import { Extension, registerCommand } from 'loom/extension';\nexport default class Hello extends Extension { activate() { registerCommand('hello.say', () => '${word}'); } }\n`;

describe('local API: writing the workspace’s extensions', () => {
  it('is the trusted, signed-in window’s alone: the token and a token-signed window are 403 WINDOW_REQUIRED, untrusted 403 WORKSPACE_UNTRUSTED', async (t) => {
    const local = await startTestLocal({ files: { '.loom/extensions/hello/package.json': MANIFEST, '.loom/extensions/hello/extension.js': code('hi') } });
    t.after(() => local.close());
    const file = path.join(local.workspace, '.loom/extensions/hello/extension.js');
    const write = (headers: Record<string, string>, body: unknown = { path: '.loom/extensions/hello/extension.js', text: code('changed') }) =>
      local.request('POST', '/api/extensions/files', body, headers);

    const byToken = await write({});
    assert.deepEqual([byToken.status, byToken.json.error.code], [403, 'WINDOW_REQUIRED']);
    const tokenWindow = await signInWindow(local, 'token');
    assert.deepEqual((await write(tokenWindow)).json.error.code, 'WINDOW_REQUIRED');
    const window = await signInWindow(local, 'link');
    const untrusted = await write(window);
    assert.deepEqual([untrusted.status, untrusted.json.error.code], [403, 'WORKSPACE_UNTRUSTED']);
    assert.equal(fs.readFileSync(file, 'utf8'), code('hi'), 'nothing written');

    assert.equal((await local.request('POST', '/api/workspace/trust', { trusted: true })).status, 200);
    // Trusted or not, the token never writes the code the workspace runs.
    assert.equal((await write({})).status, 403);
    assert.equal((await local.request('POST', '/api/commands/hello.say', {})).json.result, 'hi');
    const written = await write(window);
    assert.equal(written.status, 200, written.text);
    assert.deepEqual(written.json, { path: '.loom/extensions/hello/extension.js', bytes: Buffer.byteLength(code('changed')) });
    assert.equal(fs.readFileSync(file, 'utf8'), code('changed'));
    assert.equal((await local.request('POST', '/api/extensions/reload')).status, 200);
    assert.equal((await local.request('POST', '/api/commands/hello.say', {})).json.result, 'changed');
    // A new file in a new extension's folder.
    assert.equal((await write(window, { path: '.loom/extensions/other/notes.md', text: '# notes\n' })).status, 200);
    assert.equal(fs.readFileSync(path.join(local.workspace, '.loom/extensions/other/notes.md'), 'utf8'), '# notes\n');
  });

  it('writes nothing but .loom/extensions/<extension>/<file>, spelled so, with no symbolic link and nothing protected on the way', async (t) => {
    const local = await startTestLocal({ files: { '.loom/extensions/hello/package.json': MANIFEST, 'src/a.ts': 'a\n' } });
    t.after(() => local.close());
    fs.mkdirSync(path.join(local.workspace, '.git'));
    fs.symlinkSync(path.join(local.workspace, '.git'), path.join(local.workspace, '.loom/extensions/link'));
    fs.symlinkSync(path.join(local.workspace, 'src'), path.join(local.workspace, '.loom/extensions/src-link'));
    assert.equal((await local.request('POST', '/api/workspace/trust', { trusted: true })).status, 200);
    const window = await signInWindow(local, 'link');
    const refused: [string, string][] = [
      ['.loom/settings.json', 'PROTECTED_PATH'],
      ['.loom/extensions/top.js', 'PROTECTED_PATH'],
      ['.LOOM/extensions/hello/x.js', 'PROTECTED_PATH'],
      ['.loom/Extensions/hello/x.js', 'PROTECTED_PATH'],
      ['.loom/extensions/hello/../../settings.json', 'PROTECTED_PATH'],
      ['.loom/extensions/link/config', 'PROTECTED_PATH'],
      ['.loom/extensions/src-link/a.ts', 'PROTECTED_PATH'],
      ['.loom/extensions/hello/.git/config', 'PROTECTED_PATH'],
      ['.loom/extensions/hello/.loom/x', 'PROTECTED_PATH'],
      ['src/a.ts', 'PROTECTED_PATH'],
      ['../outside.js', 'FORBIDDEN_PATH'],
      ['.loom/extensions/hello', 'PROTECTED_PATH'],
    ];
    for (const [target, error] of refused) {
      const answer = await local.request('POST', '/api/extensions/files', { path: target, text: 'x' }, window);
      assert.deepEqual([answer.status, answer.json.error.code], [403, error], target);
    }
    assert.equal(fs.readFileSync(path.join(local.workspace, 'src/a.ts'), 'utf8'), 'a\n');
    assert.ok(!fs.existsSync(path.join(local.workspace, '.git/config')));
    // A folder git would take for a repository's cannot be assembled there either.
    fs.mkdirSync(path.join(local.workspace, '.loom/extensions/hello/repo/objects'), { recursive: true });
    fs.mkdirSync(path.join(local.workspace, '.loom/extensions/hello/repo/refs'));
    const assembling = await local.request(
      'POST',
      '/api/extensions/files',
      { path: '.loom/extensions/hello/repo/HEAD', text: 'ref: refs/heads/main\n' },
      window,
    );
    assert.deepEqual([assembling.status, assembling.json.error.code], [403, 'PROTECTED_PATH']);

    // The editor's save refuses .loom whoever asks: the window edits extensions through this route only.
    const opened = await local.request('POST', '/api/editor/open', { path: '.loom/extensions/hello/package.json' }, window);
    assert.equal(opened.json.readOnly, true);
  });
});
