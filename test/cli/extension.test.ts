// `loom extension`, `loom commands` and `loom run-command` as a user runs them: the real CLI,
// against a real `loom serve` subprocess where a server is needed. `new` scaffolds an extension
// that works as written; trust is refused to a workspace's extension until given, and giving it
// to the running server starts it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cleanEnv, hasStackTrace, LOCAL_READY, runLoom, startLoom, tempDir } from '../support/cli.ts';

describe('loom extension, commands, run-command', () => {
  it('scaffolds extensions, lists them, runs their commands, and runs a workspace extension only once trusted', async (t) => {
    const home = tempDir(t);
    const workspace = path.join(home, 'ws');
    const configDir = path.join(home, 'loom-config');
    fs.mkdirSync(workspace, { recursive: true });
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'one two three\n');
    const env = cleanEnv(home);
    const loom = (...args: string[]) => runLoom([...args, '--config-dir', configDir], env);

    const made = await loom('extension', 'new', 'hello-world');
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /Created .*loom-config\/extensions\/hello-world\n/);
    const manifest = JSON.parse(fs.readFileSync(path.join(configDir, 'extensions', 'hello-world', 'package.json'), 'utf8'));
    assert.deepEqual(manifest.contributes.commands, [{ command: 'helloWorld.hello', title: 'hello-world: Say hello' }]);
    const again = await loom('extension', 'new', 'hello-world');
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists/);
    const badName = await loom('extension', 'new', 'Not Valid');
    assert.equal(badName.code, 1);
    assert.match(badName.stderr, /is not an extension name/);
    assert.equal(hasStackTrace(badName.stderr), false);

    const inWorkspace = await runLoom(['extension', 'new', 'repo-tool', '--workspace', workspace, '--config-dir', configDir], env);
    assert.equal(inWorkspace.code, 0, inWorkspace.stderr);
    assert.match(inWorkspace.stdout, /loom extension trust /);
    assert.ok(fs.existsSync(path.join(workspace, '.loom', 'extensions', 'repo-tool', 'extension.js')));

    // No server runs: the list comes from the folders.
    const offline = await loom('extension', 'list', '--workspace', workspace, '--port', '1');
    assert.equal(offline.code, 0, offline.stderr);
    assert.match(offline.stdout, /hello-world +0\.1\.0 +user +not running +helloWorld\.hello/);
    assert.match(offline.stdout, /repo-tool +0\.1\.0 +workspace +untrusted +repoTool\.hello/);
    assert.match(offline.stdout, /is not trusted/);

    const server = await startLoom(t, ['serve', '--workspace', workspace, '--config-dir', configDir, '--port', '0'], env, 60_000, LOCAL_READY);
    const port = new URL(server.url).port;
    const client = (...args: string[]) => runLoom([...args, '--port', port, '--config-dir', configDir], env);

    const commands = await client('commands');
    assert.equal(commands.code, 0, commands.stderr);
    assert.match(commands.stdout, /helloWorld\.hello +hello-world: Say hello +hello-world/);
    assert.doesNotMatch(commands.stdout, /repoTool/);

    const ran = await client('run-command', 'helloWorld.hello', 'Ada');
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(JSON.parse(ran.stdout), { greeted: 'Ada' });
    const json = await client('run-command', 'helloWorld.hello', '{"name":"x"}', '--json');
    assert.deepEqual(JSON.parse(json.stdout), { greeted: { name: 'x' } });

    const refused = await client('run-command', 'repoTool.hello');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /not trusted.*loom extension trust/);
    const unknown = await client('run-command', 'no.such');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No extension provides the command no\.such/);

    const trusted = await client('extension', 'trust', workspace);
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.match(trusted.stdout, /Trusted: .*\nThe running loom serve started its extensions\.\n/);
    const now = await client('run-command', 'repoTool.hello', 'Bob');
    assert.equal(now.code, 0, now.stderr);
    assert.deepEqual(JSON.parse(now.stdout), { greeted: 'Bob' });

    const list = await client('extension', 'list', '--json');
    const states = Object.fromEntries(JSON.parse(list.stdout).extensions.map((e: any) => [e.name, e.state]));
    // Trusting reloaded the extensions: hello-world starts again on its next command.
    assert.deepEqual(states, { 'hello-world': 'inactive', 'repo-tool': 'active' });

    const restarted = await client('extension', 'restart', 'hello-world');
    assert.equal(restarted.code, 0, restarted.stderr);
    assert.equal(restarted.stdout, 'hello-world: active\n');
    const reloaded = await client('extension', 'reload');
    assert.equal(reloaded.stdout, '2 extension(s) loaded.\n');

    const untrusted = await client('extension', 'untrust', workspace);
    assert.match(untrusted.stdout, /No longer trusted: .*\nThe running loom serve stopped its extensions\.\n/);
    assert.equal((await client('run-command', 'repoTool.hello')).code, 1);
  });

  it('list says which extensions in the folders the running server has not loaded; reload says which of those it loaded do not run', async (t) => {
    const home = tempDir(t);
    const workspace = path.join(home, 'ws');
    const configDir = path.join(home, 'loom-config');
    fs.mkdirSync(workspace, { recursive: true });
    const env = cleanEnv(home);
    const server = await startLoom(t, ['serve', '--workspace', workspace, '--config-dir', configDir, '--port', '0'], env, 60_000, LOCAL_READY);
    const client = (...args: string[]) => runLoom([...args, '--port', new URL(server.url).port, '--config-dir', configDir], env);

    // Made while the server runs: in the workspace's folder, which is not trusted.
    assert.equal((await runLoom(['extension', 'new', 'late-tool', '--workspace', workspace, '--config-dir', configDir], env)).code, 0);
    const listed = await client('extension', 'list');
    assert.equal(listed.code, 0, listed.stderr);
    assert.doesNotMatch(listed.stdout, /No extensions in/);
    assert.match(listed.stdout, /^The running loom serve has loaded no extensions\.$/m);
    assert.match(listed.stdout, /^late-tool \(.*late-tool\) is not loaded by the running loom serve: loom extension reload loads it\.$/m);
    assert.match(listed.stdout, /is not trusted: its extensions do not run/);
    const json = JSON.parse((await client('extension', 'list', '--json')).stdout);
    assert.deepEqual(json.extensions, []);
    assert.deepEqual(
      json.notLoaded.map((e: { name: string; scope: string }) => [e.name, e.scope]),
      [['late-tool', 'workspace']],
    );

    const reloaded = await client('extension', 'reload');
    assert.equal(reloaded.code, 0, reloaded.stderr);
    assert.equal(
      reloaded.stdout,
      `0 extension(s) loaded, 1 not run: the workspace ${fs.realpathSync(workspace)} is not trusted (loom extension trust ${fs.realpathSync(workspace)}).\n`,
    );
    const after = await client('extension', 'list');
    assert.match(after.stdout, /late-tool +0\.1\.0 +workspace +untrusted/);
    assert.doesNotMatch(after.stdout, /is not loaded/);

    // Removed while loaded: said until a reload.
    fs.rmSync(path.join(workspace, '.loom', 'extensions', 'late-tool'), { recursive: true });
    assert.match((await client('extension', 'list')).stdout, /^late-tool is loaded but its folder .* is gone: loom extension reload unloads it\.$/m);
  });
});
