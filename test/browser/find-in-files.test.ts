// Find and replace in files in a real browser (Debian's chromium, driven by playwright-core)
// against the real local server with the code index on: Ctrl+Shift+F searches across files with
// the editor's word, the results are grouped by file with the matches marked, a click opens the
// file at the match; Ctrl+Shift+H previews the replace (before → after), a dismissed match is
// spared, Replace All changes the files on disk and the open tab; axe finds no serious problem
// in the view, light and dark.
// Without /usr/bin/chromium the test is skipped with a notice, except under CI=true.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeFindings, chromiumAvailable, launchChromium, openSignedIn, pageProblems, screenshotFolder } from '../support/browser.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const available = chromiumAvailable('find in files');

const FILES = {
  'src/a.ts': 'const colour = 1;\nexport const other = colour + 1;\n',
  'src/b.ts': '// the colour of it\nexport const b = 2;\n',
  'src/c.ts': 'export const c = 3;\n',
  'docs/notes.md': 'colour, Colour, COLOUR\n',
};

describe('find and replace in files in the window', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let page: Page;
  let local: TestLocal;
  const problems: string[] = [];

  before(async () => {
    local = await startTestLocal({
      files: FILES,
      codeIndex: true,
      settings: { apiToken: 'loom_find_in_files_token_0123456789abcdef', rateLimits: { default: 100_000, aiComplete: 100_000 } },
    });
    await waitFor(async () => (await local.request('GET', '/api/code/status')).json?.index?.state === 'ready', undefined, 'the index built');
    browser = await launchChromium();
    // axe comes in past the page's CSP (bypassCSP), for this test alone.
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true })).newPage();
    // A guard against hangs, not a measurement: a loaded machine can be slow to render.
    page.setDefaultTimeout(60_000);
    // The workspace is no git repository: the git panel's status is refused (409), as it should be.
    pageProblems(page, [/status of 409 .*\/api\/git\/status$/], problems);
    await openSignedIn(page, local.signInLink());
  });
  after(async () => {
    await browser?.close();
    await local?.close();
  });

  const read = (file: string) => fs.readFileSync(path.join(local.workspace, file), 'utf8');
  const lines = () => page.evaluate(() => [...document.querySelectorAll('.cm-content .cm-line')].map((line) => line.textContent ?? ''));
  const file = (name: string) => page.locator(`.search-file[data-path="${name}"]`);

  const axe = async (view: string) => assert.deepEqual((await axeFindings(page, '.search-view')).serious, [], view);

  it('searches across files with Ctrl+Shift+F from the word at the cursor, grouped by file, matches marked', async () => {
    await page.locator('.tree-item.folder[data-path="src"]').click();
    await page.locator('.tree-item.file[data-path="src/a.ts"]').click();
    await page.locator('.tab.active[data-path="src/a.ts"]').waitFor();
    // The cursor in `colour` on line 1.
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Control+Shift+F');
    await page.locator('#search-query:focus').waitFor();
    assert.equal(await page.locator('#search-query').inputValue(), 'colour');
    await page.locator('.search-status', { hasText: '6 results in 3 files' }).waitFor();
    assert.deepEqual(await page.locator('.search-file').evaluateAll((groups) => groups.map((group) => group.getAttribute('data-path'))), [
      'docs/notes.md',
      'src/a.ts',
      'src/b.ts',
    ]);
    assert.deepEqual(await file('src/a.ts').locator('mark').allTextContents(), ['colour', 'colour']);
    // Match Case: only the lower-case ones.
    await page.locator('.search-view .find-caseSensitive').click();
    await page.locator('.search-status', { hasText: '4 results in 3 files' }).waitFor();
    await page.locator('.search-view .find-caseSensitive').click();
    await page.locator('.search-status', { hasText: '6 results in 3 files' }).waitFor();
    // Files to include.
    await page.locator('#search-include').fill('src/**');
    await page.locator('.search-status', { hasText: '3 results in 2 files' }).waitFor();
    await page.locator('#search-include').fill('');
    await page.locator('.search-status', { hasText: '6 results in 3 files' }).waitFor();
    await axe('the search results, light');
  });

  it('opens the file at a match', async () => {
    await file('src/b.ts').locator('.search-match-open').first().click();
    await page.locator('.tab.active[data-path="src/b.ts"]').waitFor();
    await waitFor(async () => (await page.locator('#status-position').textContent()) === 'Ln 1, Col 14', undefined, 'the cursor at the end of the match');
    const selected = await page.evaluate(() => getSelection()?.toString() ?? '');
    assert.ok(selected === '' || selected === 'colour', selected);
    await page.locator('.tab[data-path="src/a.ts"]').click();
    await page.locator('.tab.active[data-path="src/a.ts"]').waitFor();
  });

  it('previews a replace with Ctrl+Shift+H, spares a dismissed match, replaces all: the disk and the open tab change', async () => {
    await page.keyboard.press('Control+Shift+H');
    await page.locator('#search-replace:focus').waitFor();
    await page.keyboard.type('color');
    await waitFor(async () => (await page.locator('.search-match ins', { hasText: 'color' }).count()) === 6, undefined, 'the preview of every match');
    assert.deepEqual(await file('docs/notes.md').locator('del').allTextContents(), ['colour', 'Colour', 'COLOUR']);
    assert.deepEqual(await file('docs/notes.md').locator('ins').allTextContents(), ['color', 'color', 'color']);
    // The window follows the system into dark: the view reads there too.
    await page.emulateMedia({ colorScheme: 'dark' });
    await waitFor(async () => (await page.evaluate(() => document.documentElement.dataset['theme'])) === 'dark', undefined, 'the dark theme');
    await axe('the replace preview, dark');
    await page.screenshot({ path: path.join(screenshotFolder(), 'search-replace.png') });
    // Nothing changed yet.
    assert.equal(read('src/a.ts'), FILES['src/a.ts']);
    // Spare `Colour` in the notes.
    await file('docs/notes.md').locator('.search-match').nth(1).locator('.search-dismiss').click();
    await page.locator('.search-status', { hasText: '5 results in 3 files' }).waitFor();
    await page.locator('.search-replace-all').click();
    await waitFor(async () => read('src/a.ts') === 'const color = 1;\nexport const other = color + 1;\n', undefined, 'src/a.ts replaced on disk');
    assert.equal(read('src/b.ts'), '// the color of it\nexport const b = 2;\n');
    assert.equal(read('docs/notes.md'), 'color, Colour, color\n');
    // The open tab shows the replacement, and is not left unsaved.
    await waitFor(async () => (await lines())[0] === 'const color = 1;', undefined, 'the open tab updated');
    await page.locator('.tab.dirty[data-path="src/a.ts"]').waitFor({ state: 'detached' });
    // The search ran again: what is left is the match spared.
    await page.locator('.search-status', { hasText: '1 result in 1 file' }).waitFor();
    await page.locator('.toast', { hasText: 'Replaced 5 occurrences' }).waitFor();
    assert.deepEqual(problems, []);
  });
});
