// axe-core over the window's main views in a real browser (Debian's chromium, driven by
// playwright-core) against the real local server, light and dark: the editor with the files and
// the git panel, the agents and notifications panels, the command palette, find and replace,
// the bottom panel, and the sign-in form. No serious or critical violation; the others are
// printed as a notice.
// Without /usr/bin/chromium the test is skipped with a notice, except under CI=true.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeFindings, chromiumAvailable, launchChromium } from '../support/browser.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';

const available = chromiumAvailable('accessibility');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_SYSTEM: '/dev/null' } }).trim();
}

for (const colorScheme of ['light', 'dark'] as const) {
  describe(`accessibility of the window, ${colorScheme}`, { skip: !available && 'chromium is not installed' }, () => {
    let browser: Browser;
    let page: Page;
    let local: TestLocal;

    before(async () => {
      local = await startTestLocal({
        files: {
          'src/app.ts':
            "import fs from 'node:fs';\n\n// Reads the settings.\nexport function settings(file: string): unknown {\n  return JSON.parse(fs.readFileSync(file, 'utf8'));\n}\n",
          'README.md': '# app\n\nSettings, read.\n',
        },
        settings: { apiToken: 'loom_axe_test_token_0123456789abcdef', rateLimits: { default: 100_000, aiComplete: 100_000 } },
      });
      git(local.workspace, 'init', '--initial-branch=main');
      git(local.workspace, 'config', 'user.name', 'Axe Test');
      git(local.workspace, 'config', 'user.email', 'axe@example.com');
      git(local.workspace, 'add', '-A');
      git(local.workspace, 'commit', '-m', 'start');
      local.write('README.md', '# app\n\nSettings, read and written.\n');
      browser = await launchChromium();
      // The page's CSP admits its own script only: axe comes in past it (bypassCSP), for this test alone.
      page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme, bypassCSP: true })).newPage();
      // A guard against hangs, not a measurement: a loaded machine can be slow to render.
      page.setDefaultTimeout(60_000);
    });
    after(async () => {
      await browser?.close();
      await local?.close();
    });

    /** Runs axe on the page as it is; fails on a serious or critical violation. */
    const check = async (view: string) => {
      const { serious, minor } = await axeFindings(page);
      if (minor.length) console.log(`NOTICE: ${view}, ${colorScheme}: axe's minor findings:\n${minor.join('\n')}`);
      assert.deepEqual(serious, [], `${view}, ${colorScheme}`);
    };

    it('the sign-in form', async () => {
      await page.goto(local.url);
      await page.locator('#token').waitFor();
      await check('the sign-in form');
    });

    it('the editor with the files and the git panel', async () => {
      await page.goto(local.signInLink());
      await page.locator('body[data-ready="true"]').waitFor();
      await page.locator('.tree-item.folder[data-path="src"]').click();
      await page.locator('.tree-item.file[data-path="src/app.ts"]').click();
      await page.locator('.tab.active[data-path="src/app.ts"]').waitFor();
      await page.locator('.git-files').waitFor();
      await check('the editor and the git panel');
    });

    it('find and replace', async () => {
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+h');
      await page.locator('.find-panel').waitFor();
      await page.keyboard.type('settings');
      await page.locator('.find-count', { hasText: 'found' }).waitFor();
      await check('find and replace');
      await page.keyboard.press('Escape');
    });

    it('the agents and notifications panels, the bottom panel', async () => {
      await page.locator('#panel-agents').click();
      await page.locator('#agent-task').waitFor();
      await page.keyboard.press('Control+j');
      await page.locator('.bottom-panel').waitFor();
      await check('the agents panel and the bottom panel');
      await page.locator('#panel-notifications').click();
      await check('the notifications panel');
      // Under loom serve alone: the form, and the list saying to run loom up (composer-window.test.ts runs it on loom up).
      await page.locator('#panel-composer').click();
      await page.locator('#composer-unavailable').waitFor();
      await check('the composer panel');
    });

    it("the file tree's context menu, its name field and the question before a deletion", async () => {
      await page.locator('.tree-item.file[data-path="src/app.ts"]').click({ button: 'right' });
      await page.locator('.context-menu-item[data-action="new-file"]:focus').waitFor();
      await check('the context menu');
      await page.keyboard.press('Enter');
      await page.locator('.tree-input:focus').waitFor();
      await check('the name field in the tree');
      await page.keyboard.press('Escape');
      await page.locator('.tree-input').waitFor({ state: 'detached' });
      await page.locator('.tree-item.file[data-path="src/app.ts"]').focus();
      await page.keyboard.press('Delete');
      await page.locator('[role="alertdialog"] .confirm-cancel:focus').waitFor();
      await check('the question before a deletion');
      await page.keyboard.press('Escape');
      await page.locator('[role="alertdialog"]').waitFor({ state: 'detached' });
    });

    it('the command palette', async () => {
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+Shift+P');
      await page.locator('.palette-list[data-complete="true"]').waitFor();
      await check('the command palette');
      await page.keyboard.press('Escape');
    });
  });
}
