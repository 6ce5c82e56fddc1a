// The window's terminal in a real browser (Debian's chromium via playwright-core) against the
// real local server: in an untrusted workspace Ctrl+` says why no terminal opens; trusted, it
// opens a shell in the workspace, `echo hi` shows `hi`, `npm test` runs the project's tests, a second terminal runs beside the first,
// the colours follow the dark scheme, and closing the page ends the shells on the server.
// Without /usr/bin/chromium the test is skipped with a notice, except under CI=true.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumAvailable, launchChromium, openSignedIn, pageProblems } from '../support/browser.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { running } from '../support/terminal.ts';
import { waitFor } from '../support/wait.ts';

const available = chromiumAvailable('the terminal');
const SHOTS = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-terminal-shots-'));

describe('the terminal in a browser', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let page: Page;
  let local: TestLocal;
  const problems: string[] = [];
  const previousShell = process.env['SHELL'];

  before(async () => {
    // A shell whose prompt is known; the user's rc files are theirs.
    process.env['SHELL'] = '/bin/bash';
    local = await startTestLocal({
      files: {
        'README.md': '# demo\n',
        // The project's own tests, as a developer runs them from the terminal.
        'package.json': JSON.stringify({ name: 'demo', private: true, type: 'module', scripts: { test: 'node --test' } }),
        'sum.test.js': "import test from 'node:test';\nimport assert from 'node:assert';\ntest('adds', () => assert.equal(1 + 1, 2));\n",
      },
      settings: { apiToken: 'loom_terminal_browser_test_0123456789abcdef', rateLimits: { default: 100_000, aiComplete: 100_000 } },
    });
    // A repository, as the git panel expects.
    execFileSync('git', ['init', '-q', '--initial-branch=main'], { cwd: local.workspace });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 }, colorScheme: 'dark' });
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
    // The refusal the test causes on purpose: a terminal in an untrusted workspace.
    pageProblems(page, [/status of 403 .*\/api\/terminal\/ticket$/], problems);
    await openSignedIn(page, local.signInLink());
  });
  after(async () => {
    await browser?.close();
    await local?.close();
    if (previousShell === undefined) delete process.env['SHELL'];
    else process.env['SHELL'] = previousShell;
    fs.rmSync(SHOTS, { recursive: true, force: true });
  });

  /** The visible text of the active terminal's rows. */
  const screen = () =>
    page.evaluate(() => [...document.querySelectorAll('.loom-terminal-view:not([hidden]) .xterm-rows > div')].map((row) => row.textContent ?? '').join('\n'));
  const waitForScreen = (pattern: RegExp, what: string) =>
    waitFor(async () => pattern.test(await screen()), undefined, what).catch(async (error: Error) => {
      throw new Error(`${error.message}; the terminal shows: ${JSON.stringify(await screen())}`);
    });

  it('says why no terminal opens in an untrusted workspace', async () => {
    await page.keyboard.press('Control+Backquote');
    await page.locator('.loom-terminal-message.error').waitFor();
    assert.match(await page.locator('.loom-terminal-message').innerText(), /not trusted.*Trust the workspace/s);
    assert.equal(local.terminals.stats().open, 0);
    await page.keyboard.press('Control+Backquote');
    await page.locator('.loom-terminal-host').waitFor({ state: 'hidden' });
  });

  it('opens a shell in the workspace with Ctrl+`: typing echo hi shows hi', async () => {
    assert.equal((await local.request('POST', '/api/workspace/trust', { trusted: true })).status, 200);
    await page.keyboard.press('Control+Backquote');
    await page.locator('.loom-terminal-view .xterm').waitFor();
    await waitFor(() => local.terminals.stats().open === 1, undefined, 'the shell on the server');
    await page.locator('.loom-terminal-tab.active', { hasText: 'bash 1' }).waitFor();
    await page.keyboard.type('echo hi');
    await page.keyboard.press('Enter');
    // `hi` alone on its line: the shell's answer, not the echo of what was typed.
    await waitForScreen(/^hi\s*$/m, 'hi on a line of its own');
    await page.keyboard.type('pwd');
    await page.keyboard.press('Enter');
    await waitForScreen(new RegExp(`^${fs.realpathSync(local.workspace).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'm'), 'the workspace folder');
    // Dark, from the window's variables.
    const background = await page.locator('.loom-terminal-view:not([hidden]) .xterm-viewport').evaluate((element) => getComputedStyle(element).backgroundColor);
    const [r, g, b] = background.match(/\d+/g)!.map(Number);
    assert.ok(r! + g! + b! < 3 * 80, `a dark background: ${background}`);
    await page.screenshot({ path: path.join(SHOTS, 'terminal-dark.png') });
  });

  it("runs the project's tests: npm test in the terminal shows them pass", async () => {
    // The shell inherits this process's environment, which marks it a child of node:test's
    // runner (NODE_TEST_CONTEXT); a developer's shell has no such mark.
    await page.keyboard.type('env -u NODE_TEST_CONTEXT npm test');
    await page.keyboard.press('Enter');
    // node --test's summary; the process's own exit status, printed after it, says they passed.
    await waitForScreen(/^ℹ pass 1\s*$/m, 'the test summary');
    await page.keyboard.type(`printf 'ex%s=%s\\n' it "$?"`);
    await page.keyboard.press('Enter');
    await waitForScreen(/^exit=0\s*$/m, 'npm test exiting 0');
  });

  it('runs a second terminal beside the first, and closing the page ends both shells', async () => {
    await page.locator('.loom-terminal-add').click();
    await page.locator('.loom-terminal-tab.active', { hasText: 'bash 2' }).waitFor();
    await waitFor(() => local.terminals.stats().open === 2, undefined, 'two shells on the server');
    await page.keyboard.type(`printf 'p%sd=%s\\n' i "$$"`);
    await page.keyboard.press('Enter');
    await waitForScreen(/^pid=\d+/m, 'the second shell’s pid');
    const pid = Number(/^pid=(\d+)/m.exec(await screen())![1]);
    assert.doesNotMatch(await screen(), /^hi\s*$/m, 'the second terminal is a shell of its own');
    assert.ok(running(pid));
    assert.deepEqual(problems, []);

    await page.close();
    await waitFor(() => local.terminals.stats().open === 0, undefined, 'the terminals closing with the page');
    await waitFor(() => !running(pid), undefined, 'the shell ending');
  });
});
