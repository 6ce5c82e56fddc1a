// `loom serve --open` (and `loom up --open`) as a user runs it (the real CLI binary): it opens the window's one-time
// link with the browser `BROWSER` names (here a script that writes down what it was given), never
// prints the link, and the link signs a window in exactly once. Which program opens a link on
// each platform is windowOpener's rule.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { windowOpener } from '../../src/cli/open-window.ts';
import { cleanEnv, hasStackTrace, LOCAL_READY, runLoom, startLoom, tempDir, unusedPort } from '../support/cli.ts';
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

  it('loom open, and loom serve --open while the app runs, ask it for a one-time link instead of starting a second server', async (t) => {
    const home = tempDir(t);
    const workspace = path.join(home, 'ws');
    fs.mkdirSync(workspace);
    const opened = path.join(home, 'opened.txt');
    const browser = path.join(home, 'browser.sh');
    fs.writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`, { mode: 0o700 });
    const links = () => (fs.existsSync(opened) ? fs.readFileSync(opened, 'utf8').split('\n').filter(Boolean) : []);
    const port = String(await unusedPort());
    const env = cleanEnv(home, { LOOM_LOCAL_PORT: port, LOOM_LOG_LEVEL: 'warn', BROWSER: browser });

    // No app has run on this data dir: loom open says how to start one, and opens nothing.
    const none = await runLoom(['open'], env);
    assert.equal(none.code, 1, none.stderr);
    assert.match(none.stderr, /No Loom app has run with the data dir .*Start it with loom up --open/);

    const loom = await startLoom(t, ['serve', '--workspace', workspace], env, undefined, LOCAL_READY);
    const trade = (link: string) =>
      fetch(`${loom.url}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: new URL(link).searchParams.get('code') }),
      });

    const open = await runLoom(['open'], env);
    assert.equal(open.code, 0, open.stderr);
    assert.match(open.stdout, /Window\s+opened in your browser/);
    assert.equal(links().length, 1);
    const link = links()[0]!;
    assert.equal(new URL(link).origin, loom.url);
    assert.ok(!open.stdout.includes(link) && !open.stderr.includes(link), 'the link is never printed');
    const first = await trade(link);
    assert.equal(first.status, 200);
    assert.equal(((await first.json()) as { runsCode: boolean }).runsCode, true);
    assert.equal((await trade(link)).status, 401);
    // --json: {url, opened}; the link still never printed.
    const asJson = await runLoom(['open', '--json'], env);
    assert.equal(asJson.code, 0, asJson.stderr);
    const answer = JSON.parse(asJson.stdout) as { url: string; opened: boolean };
    assert.equal(answer.opened, true);
    assert.equal(new URL(answer.url).origin, loom.url);
    assert.equal(links().length, 2);
    assert.ok(!asJson.stdout.includes(links()[1]!), 'the link is never printed');

    // As the banner says: loom serve --open while the app runs opens its window, and exits.
    const again = await runLoom(['serve', '--open', '--workspace', workspace], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`Loom already runs at ${loom.url.replace(/[.]/g, '\\.')}: its window, not a second server`));
    assert.ok(!/EADDRINUSE/.test(again.stderr), again.stderr);
    assert.equal(links().length, 3);
    assert.equal((await trade(links()[2]!)).status, 200);

    // Without --open, a taken port says what to do, in words.
    const taken = await runLoom(['serve', '--workspace', workspace], env);
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, new RegExp(`Port ${port} is taken: Loom may already run there \\(loom open opens its window`));
    assert.ok(!hasStackTrace(taken.stderr), taken.stderr);

    // Stopped: loom open finds nobody and says how to start it.
    loom.child.kill('SIGTERM');
    await loom.exited;
    const gone = await runLoom(['open'], env);
    assert.equal(gone.code, 3, gone.stderr);
    assert.match(gone.stderr, /Loom is not running at http:\/\/127\.0\.0\.1:\d+\. Start it with loom up --open/);
    assert.equal(links().length, 3);
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
