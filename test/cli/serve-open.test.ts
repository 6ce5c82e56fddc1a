// `loom serve --open` (and `loom up --open`) as a user runs it (the real CLI binary): it opens the window's one-time
// link with the browser `BROWSER` names (here a script that writes down what it was given), never
// prints the link, and the link signs a window in exactly once. Which program opens a link on
// each platform is windowOpener's rule.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { windowOpener } from '../../src/cli/open-window.ts';
import { cleanEnv, LOCAL_READY, startLoom, tempDir } from '../support/cli.ts';
import { waitFor } from '../support/wait.ts';

describe('loom serve --open, loom up --open', () => {
  it("opens a one-time sign-in link in the user's browser, without printing it", async (t) => {
    const home = tempDir(t);
    const workspace = path.join(home, 'ws');
    fs.mkdirSync(workspace);
    const opened = path.join(home, 'opened.txt');
    const browser = path.join(home, 'browser.sh');
    fs.writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o700 });
    const env = cleanEnv(home, { LOOM_LOCAL_PORT: '0', LOOM_LOG_LEVEL: 'warn', BROWSER: browser });
    const loom = await startLoom(t, ['serve', '--open', '--workspace', workspace], env, undefined, LOCAL_READY);
    await waitFor(() => fs.existsSync(opened) && fs.readFileSync(opened, 'utf8').length > 0, undefined, 'the browser to be started');
    const link = new URL(fs.readFileSync(opened, 'utf8'));
    assert.equal(link.origin, loom.url);
    assert.equal(link.pathname, '/');
    const code = link.searchParams.get('code')!;
    assert.ok(code.length >= 32);
    await waitFor(() => /Window\s+opened in your browser/.test(loom.stdout()), undefined, 'the line saying so');
    assert.ok(!loom.stdout().includes(code) && !loom.stderr().includes(code), 'the link is never printed');
    const trade = () => fetch(`${loom.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    const first = await trade();
    assert.equal(first.status, 200);
    assert.match(first.headers.get('set-cookie') ?? '', /HttpOnly; SameSite=Strict/);
    assert.equal((await trade()).status, 401);
  });

  it('loom up --open opens the same one-time link to the local server', async (t) => {
    const home = tempDir(t);
    const workspace = path.join(home, 'ws');
    fs.mkdirSync(workspace);
    const opened = path.join(home, 'opened.txt');
    const browser = path.join(home, 'browser.sh');
    fs.writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o700 });
    const env = cleanEnv(home, { LOOM_HOSTED_PORT: '0', LOOM_LOCAL_PORT: '0', LOOM_LOG_LEVEL: 'warn', BROWSER: browser });
    const loom = await startLoom(t, ['up', '--open', '--workspace', workspace], env, undefined, LOCAL_READY);
    await waitFor(() => fs.existsSync(opened) && fs.readFileSync(opened, 'utf8').length > 0, undefined, 'the browser to be started');
    const link = new URL(fs.readFileSync(opened, 'utf8'));
    assert.equal(link.origin, loom.url, 'the window is the local server, not the hosted one');
    const code = link.searchParams.get('code')!;
    const trade = () => fetch(`${loom.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    assert.equal((await trade()).status, 200);
    assert.equal((await trade()).status, 401);
    await waitFor(() => /Window\s+opened in your browser/.test(loom.stdout()), undefined, 'the line saying so');
    assert.ok(!loom.stdout().includes(code) && !loom.stderr().includes(code), 'the link is never printed');
  });

  it('picks an app-mode window where a Chromium-family browser is installed, else the system opener', (t) => {
    const bin = tempDir(t);
    const url = 'http://127.0.0.1:27432/?code=x';
    assert.deepEqual(windowOpener(url, 'linux', { PATH: bin }), { program: 'xdg-open', args: [url] });
    fs.writeFileSync(path.join(bin, 'chromium'), '#!/bin/sh\n', { mode: 0o755 });
    assert.deepEqual(windowOpener(url, 'linux', { PATH: bin }), { program: path.join(bin, 'chromium'), args: [`--app=${url}`] });
    assert.deepEqual(windowOpener(url, 'linux', { PATH: bin, BROWSER: 'firefox' }), { program: 'firefox', args: [url] });
    assert.deepEqual(windowOpener(url, 'darwin', { PATH: '' }).args.at(-1), url);
    assert.deepEqual(windowOpener(url, 'win32', { PATH: '' }), { program: 'cmd', args: ['/c', 'start', '""', url] });
  });
});
