// File operations in the window, in a real browser (Debian's chromium, driven by
// playwright-core) against the real local server: a file created from the tree's context menu
// (its name typed in the tree), typed in and saved; renamed with F2 (the tab follows, and typing
// and saving go on under the new name); deleted from the menu after the window's question (the
// tab closes); a folder from the palette, Escape cancelling a name, a refusal in words — each
// checked on disk. The keyboard focus survives the redraws the disk's changes cause.
// Without /usr/bin/chromium the test is skipped with a notice, except under CI=true.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumAvailable, holdRequests, launchChromium, openSignedIn, pageProblems } from '../support/browser.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const available = chromiumAvailable('file operations in the window');

describe('file operations in the window', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let page: Page;
  let local: TestLocal;
  const problems: string[] = [];
  const at = (relative: string) => path.join(local.workspace, relative);
  const item = (relative: string) => page.locator(`.tree-item[data-path="${relative}"]`);

  before(async () => {
    local = await startTestLocal({
      files: { 'src/main.ts': 'export const main = 1;\n', 'README.md': '# readme\n' },
      settings: { apiToken: 'loom_fileops_browser_token_0123456789abcdef', rateLimits: { default: 100_000, aiComplete: 100_000 } },
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    // A guard against hangs, not a measurement: a loaded machine can be slow to render.
    page.setDefaultTimeout(60_000);
    pageProblems(
      page,
      [
        // The workspace is no git repository: the git panel's status is refused (409), as it should be.
        /status of 409 .*\/api\/git\/status$/,
        // The refusal this test provokes on purpose (a name taken).
        /status of 409 .*\/api\/files\/rename$/,
      ],
      problems,
    );
    await openSignedIn(page, local.signInLink());
    await item('src').click();
    await item('src/main.ts').waitFor();
  });
  after(async () => {
    await browser?.close();
    await local?.close();
  });

  it('creates a file from the context menu, typed in the tree, and opens it to type in', async () => {
    await item('src').click({ button: 'right' });
    const menu = page.locator('.context-menu[role="menu"]');
    await menu.waitFor();
    // The first item has the focus; the arrows move it.
    await page.locator('.context-menu-item[data-action="new-file"]:focus').waitFor();
    assert.deepEqual(await menu.locator('[role="menuitem"]').evaluateAll((items) => items.map((one) => one.getAttribute('data-action'))), [
      'new-file',
      'new-folder',
      'rename',
      'delete',
    ]);
    await page.keyboard.press('Enter');
    const field = page.locator('.tree-input:focus');
    await field.waitFor();
    assert.equal(await field.getAttribute('aria-label'), 'Name of the new file in src');
    await page.keyboard.type('notes.txt');
    await page.keyboard.press('Enter');
    await page.locator('.tab.active[data-path="src/notes.txt"]').waitFor();
    assert.equal(fs.readFileSync(at('src/notes.txt'), 'utf8'), '');
    await item('src/notes.txt').waitFor();
    await page.locator('.cm-content').click();
    await page.keyboard.type('hello from the window');
    await page.keyboard.press('Control+s');
    await waitFor(() => fs.readFileSync(at('src/notes.txt'), 'utf8') === 'hello from the window', undefined, 'the typed text on disk');
  });

  it('keeps the keyboard on its item while the tree follows the disk: a key pressed after a redraw reaches it', async () => {
    await item('src/notes.txt').focus();
    // Another program writes beside it: the tree reads the folder again and draws it anew.
    fs.writeFileSync(at('src/written-elsewhere.txt'), 'from another program\n');
    await item('src/written-elsewhere.txt').waitFor();
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset['path']), 'src/notes.txt');
    fs.rmSync(at('src/written-elsewhere.txt'));
    await item('src/written-elsewhere.txt').waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset['path']), 'src/notes.txt');
  });

  it('renames with F2: the name without its extension is selected, the tab follows, typing goes on', async () => {
    await item('src/notes.txt').focus();
    await page.keyboard.press('F2');
    const field = page.locator('.tree-input:focus');
    await field.waitFor();
    assert.equal(await field.inputValue(), 'notes.txt');
    assert.deepEqual(await field.evaluate((input: HTMLInputElement) => [input.selectionStart, input.selectionEnd]), [0, 5]);
    await page.keyboard.type('journal');
    await page.keyboard.press('Enter');
    await page.locator('.tab.active[data-path="src/journal.txt"]').waitFor();
    await page.locator('.tab[data-path="src/notes.txt"]').waitFor({ state: 'detached' });
    await item('src/journal.txt').waitFor();
    assert.ok(!fs.existsSync(at('src/notes.txt')));
    assert.equal(fs.readFileSync(at('src/journal.txt'), 'utf8'), 'hello from the window');
    assert.equal(await page.locator('#status-file').textContent(), 'src/journal.txt · plaintext');
    // The same document, under its new name: what is typed now is saved there.
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('!');
    await page.keyboard.press('Control+s');
    await waitFor(() => fs.readFileSync(at('src/journal.txt'), 'utf8') === 'hello from the window!', undefined, 'the edit saved under the new name');
    assert.ok(!fs.existsSync(at('src/notes.txt')), 'nothing written under the old name');
  });

  it('says in words why a rename is refused, and changes nothing', async () => {
    await item('src/journal.txt').focus();
    await page.keyboard.press('F2');
    await page.locator('.tree-input:focus').waitFor();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('main.ts');
    await page.keyboard.press('Enter');
    await page.locator('.toast.error', { hasText: 'Could not rename src/journal.txt: src/main.ts already exists' }).waitFor();
    assert.equal(fs.readFileSync(at('src/main.ts'), 'utf8'), 'export const main = 1;\n');
    assert.equal(fs.readFileSync(at('src/journal.txt'), 'utf8'), 'hello from the window!');
    await page.locator('.tab.active[data-path="src/journal.txt"]').waitFor();
  });

  it('deletes from the context menu once the window asks, and the tab closes', async () => {
    await item('src/journal.txt').click({ button: 'right' });
    await page.locator('.context-menu-item[data-action="delete"]').click();
    const dialog = page.locator('[role="alertdialog"]');
    await dialog.waitFor();
    assert.equal(await dialog.locator('.confirm-question').textContent(), 'Delete src/journal.txt?');
    // The focus starts on Cancel: a stray Enter loses nothing.
    await page.locator('.confirm-cancel:focus').waitFor();
    await dialog.locator('.confirm-accept').click();
    await page.locator('.tab[data-path="src/journal.txt"]').waitFor({ state: 'detached' });
    await item('src/journal.txt').waitFor({ state: 'detached' });
    assert.ok(!fs.existsSync(at('src/journal.txt')));
  });

  it('makes a folder from the palette, cancels a name with Escape, and deletes the folder with the Delete key', async () => {
    await item('src').focus();
    await page.keyboard.press('Control+Shift+P');
    await page.locator('.palette-input:focus').waitFor();
    await page.keyboard.type('new folder');
    await page.locator('.palette-item.chosen[data-command="loom.files.newFolder"]').waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.tree-input:focus').waitFor();
    await page.keyboard.type('pkg');
    await page.keyboard.press('Enter');
    await item('src/pkg').waitFor();
    assert.ok(fs.statSync(at('src/pkg')).isDirectory());

    // Escape: nothing is created.
    await item('src/pkg').click({ button: 'right' });
    await page.locator('.context-menu-item[data-action="new-file"]').click();
    await page.locator('.tree-input:focus').waitFor();
    await page.keyboard.type('never.txt');
    await page.keyboard.press('Escape');
    await page.locator('.tree-input').waitFor({ state: 'detached' });
    assert.deepEqual(fs.readdirSync(at('src/pkg')), []);

    await item('src/pkg').focus();
    await page.keyboard.press('Delete');
    const dialog = page.locator('[role="alertdialog"]');
    await dialog.waitFor();
    assert.equal(await dialog.locator('.confirm-question').textContent(), 'Delete the folder src/pkg and everything in it?');
    await page.keyboard.press('Tab');
    await page.locator('.confirm-accept:focus').waitFor();
    await page.keyboard.press('Enter');
    await item('src/pkg').waitFor({ state: 'detached' });
    assert.ok(!fs.existsSync(at('src/pkg')));
    assert.deepEqual(problems, []);
  });

  it('deletes an open folder while the tree is being read: the read does not ask for the folder gone', async () => {
    fs.mkdirSync(at('src/held'));
    fs.writeFileSync(at('src/held/x.txt'), 'x\n');
    await item('src/held').click();
    await item('src/held/x.txt').waitFor();
    // A read of the tree (the window getting the focus back) held at its first folder.
    const read = await holdRequests(page, (url) => url.pathname === '/api/files' && url.searchParams.get('path') === '');
    const statuses: string[] = [];
    const onResponse = (response: { url(): string; status(): number }) => {
      const url = new URL(response.url());
      if (url.pathname === '/api/files') statuses.push(`${url.searchParams.get('path')} ${response.status()}`);
    };
    page.on('response', onResponse);
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await waitFor(async () => read.held(), undefined, 'the read under way');
    await item('src/held').click({ button: 'right' });
    await page.locator('.context-menu-item[data-action="delete"]').click();
    await page.locator('[role="alertdialog"] .confirm-accept').click();
    await waitFor(async () => !fs.existsSync(at('src/held')), undefined, 'the folder deleted');
    await read.release();
    await item('src/held').waitFor({ state: 'detached' });
    page.off('response', onResponse);
    assert.ok(!statuses.some((status) => status.startsWith('src/held ')), statuses.join(', '));
    assert.deepEqual(problems, []);
  });
});
