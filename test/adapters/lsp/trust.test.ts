// A cloned repository is untrusted code. In a workspace that is not trusted, the bundled servers
// start restricted and run nothing of the workspace's: tsserver is Loom's own TypeScript, so a
// TypeScript in the workspace's node_modules and the plugins its tsconfig.json names never load;
// pyright runs the interpreter Loom found outside the workspace, isolated, never the first
// `python3` it would find itself. Servers with no such switch (gopls, rust-analyzer, clangd, a
// settings.json command) start only once the workspace is trusted, and stop when trust goes.
// Each case is shown both ways: trusted, the workspace's code does run (the test can see it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LspManager, serverEnvironment } from '../../../src/adapters/lsp/manager.ts';
import type { LanguageServerSettings } from '../../../src/core/language/types.ts';
import { waitFor } from '../../support/wait.ts';

const require = createRequire(import.meta.url);
const FAKE_SERVER = fileURLToPath(new URL('../../support/fake-lsp-server.mjs', import.meta.url));
const LIMITS: LanguageServerSettings = { enabled: true, requestTimeoutMs: 60_000, idleSeconds: 600, memoryLimitMb: 4096 };

function workspace(t: TestContext, files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-trust-')));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text, { mode: 0o755 });
  }
  return root;
}

function manager(t: TestContext, root: string, trusted: () => boolean, extra: Partial<ConstructorParameters<typeof LspManager>[0]> = {}): LspManager {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-trust-state-'));
  const servers = new LspManager({ workspace: root, stateDir, settings: () => LIMITS, trusted, tickMs: 50, ...extra });
  t.after(async () => {
    await servers.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });
  return servers;
}

/** A copy of Loom's TypeScript package (hard links where the file system allows): a workspace's own TypeScript. */
function copyTypeScript(into: string): void {
  const from = fs.realpathSync(path.dirname(require.resolve('typescript/package.json')));
  const copy = (source: string, target: string) => {
    if (fs.statSync(source).isDirectory()) {
      fs.mkdirSync(target, { recursive: true });
      for (const name of fs.readdirSync(source)) copy(path.join(source, name), path.join(target, name));
      return;
    }
    try {
      fs.linkSync(source, target);
    } catch {
      fs.copyFileSync(source, target);
    }
  };
  copy(from, into);
}

const MARKER_PLUGIN = `const fs = require('fs');
const path = require('path');
module.exports = function init() {
  fs.writeFileSync(path.join(__dirname, '..', '..', 'plugin-ran'), 'the workspace plugin ran');
  return { create: (info) => info.languageService };
};
`;

async function typescriptWithPlugin(t: TestContext, trusted: boolean): Promise<{ root: string; servers: LspManager }> {
  const root = workspace(t, {
    'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, plugins: [{ name: 'loom-marker-plugin' }] } }),
    'node_modules/loom-marker-plugin/package.json': JSON.stringify({ name: 'loom-marker-plugin', main: 'index.js' }),
    'node_modules/loom-marker-plugin/index.js': MARKER_PLUGIN,
    'src/a.ts': 'export const a: number = 1;\n',
  });
  copyTypeScript(path.join(root, 'node_modules/typescript'));
  const servers = manager(t, root, () => trusted);
  const { result } = await servers.request(
    { path: 'src/a.ts', language: 'typescript', text: 'export const a: number = 1;\n' },
    'textDocument/hover',
    (uri) => ({
      textDocument: { uri },
      position: { line: 0, character: 13 },
    }),
  );
  assert.match(JSON.stringify(result), /const a: number/);
  return { root, servers };
}

describe('language servers in an untrusted workspace', () => {
  it("do not load the TypeScript of the workspace's node_modules, nor the plugins its tsconfig.json names", async (t) => {
    const untrusted = await typescriptWithPlugin(t, false);
    assert.equal(untrusted.servers.status()[0]!.mode, 'restricted');
    // The project is loaded (the hover answered from it): its plugins would have been loaded by now.
    assert.equal(fs.existsSync(path.join(untrusted.root, 'plugin-ran')), false);

    const trusted = await typescriptWithPlugin(t, true);
    assert.equal(trusted.servers.status()[0]!.mode, 'full');
    await waitFor(() => fs.existsSync(path.join(trusted.root, 'plugin-ran')), undefined, 'the plugin, loaded in the trusted workspace');
  });

  it('give pyright an isolated interpreter found outside the workspace, never the python3 it would find', async (t) => {
    const pythonRan = (root: string) => fs.existsSync(path.join(root, 'python-ran'));
    const run = async (trusted: boolean) => {
      const root = workspace(t, {
        'tool.py': 'import json\n\nprint(json.dumps(1))\n',
        // A relative PATH entry (some put `.` or `bin` there) is read from the folder pyright runs in: the workspace.
        'bin/python3': `#!/bin/sh\necho ran > '${'__ROOT__'}/python-ran'\nexit 1\n`,
      });
      fs.writeFileSync(path.join(root, 'bin/python3'), fs.readFileSync(path.join(root, 'bin/python3'), 'utf8').replace('__ROOT__', root), { mode: 0o755 });
      const env = { ...serverEnvironment(process.env), PATH: `bin${path.delimiter}${process.env.PATH}` };
      const servers = manager(t, root, () => trusted, { env });
      assert.equal(await servers.settleDiagnostics({ path: 'tool.py', language: 'python', text: 'import json\n\nprint(json.dumps(1))\n' }), true);
      return { root, servers };
    };
    const untrusted = await run(false);
    assert.equal(untrusted.servers.status().find((s) => s.server === 'python')!.mode, 'restricted');
    assert.equal(pythonRan(untrusted.root), false);

    const trusted = await run(true);
    await waitFor(() => pythonRan(trusted.root), undefined, "the workspace's python3, run by pyright in the trusted workspace");
  });

  it('start servers that have no restricted mode only once trusted, and stop them when trust goes', async (t) => {
    const root = workspace(t, { 'a.rb': 'puts 1\n' });
    let trusted = false;
    const servers = manager(t, root, () => trusted, { serverSettings: () => ({ ruby: { command: process.execPath, args: [FAKE_SERVER] } }) });
    const lookup = servers.serverFor('ruby');
    assert.ok('unavailable' in lookup);
    assert.match(lookup.unavailable, /The ruby language server runs only in a trusted workspace \(a server named in settings.json may run workspace code\)/);
    assert.ok('unavailable' in servers.serverFor('go'));
    const hover = () =>
      servers.request({ path: 'a.rb', language: 'ruby', text: 'puts 1\n' }, 'textDocument/hover', (uri) => ({
        textDocument: { uri },
        position: { line: 0, character: 0 },
      }));
    await assert.rejects(hover(), /runs only in a trusted workspace/);

    trusted = true;
    assert.deepEqual(servers.serverFor('ruby'), { server: 'ruby' });
    assert.deepEqual((await hover()).result, { contents: { kind: 'plaintext', value: 'puts 1' } });
    const ruby = () => servers.status().find((s) => s.server === 'ruby')!;
    assert.equal(ruby().state, 'running');

    trusted = false;
    await waitFor(() => ruby().state !== 'running', undefined, 'the server stopped once trust went');
    assert.equal(ruby().state, 'unavailable');
  });

  it("never give a server Loom's settings or secrets in its environment", async (t) => {
    const root = workspace(t, {});
    const saved = { ...process.env };
    t.after(() => {
      for (const name of ['LOOM_OPENAI_API_KEY', 'OPENAI_API_KEY', 'NODE_OPTIONS']) delete process.env[name];
      Object.assign(process.env, saved);
    });
    Object.assign(process.env, { LOOM_OPENAI_API_KEY: 'sk-loom', OPENAI_API_KEY: 'sk-openai', NODE_OPTIONS: '--require /tmp/x.js' });
    const servers = manager(t, root, () => true, { serverSettings: () => ({ ruby: { command: process.execPath, args: [FAKE_SERVER] } }) });
    const env = async (name: string) =>
      (
        (
          await servers.request({ path: 'a.rb', language: 'ruby', text: `env ${name}\n` }, 'textDocument/hover', (uri) => ({
            textDocument: { uri },
            position: { line: 0, character: 0 },
          }))
        ).result as { contents: { value: string } }
      ).contents.value;
    assert.equal(await env('LOOM_OPENAI_API_KEY'), '(unset)');
    assert.equal(await env('OPENAI_API_KEY'), '(unset)');
    assert.equal(await env('NODE_OPTIONS'), '(unset)');
    assert.equal(await env('PATH'), process.env.PATH);
  });
});
