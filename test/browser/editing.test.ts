// Editing as a VS Code user expects, in a real browser (Debian's chromium, driven by
// playwright-core) against the real local server: tabs (the unsaved dot, close, reopen the
// closed one with Ctrl+Shift+T, Ctrl+Tab to the one used before), quick open (Ctrl+P), go to line (Ctrl+G), word
// wrap (Alt+Z, kept), and VS Code's keys from the window's table (Ctrl+D, Alt+↓, Ctrl+/,
// Ctrl+Shift+K).
// Without /usr/bin/chromium the test is skipped with a notice, except under CI=true.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumAvailable, launchChromium, openSignedIn, pageProblems } from '../support/browser.ts';
import { startTestLocal, type TestLocal } from '../support/local.ts';
import { waitFor } from '../support/wait.ts';

const available = chromiumAvailable('editing in the window');

const LONG_LINE = `export const long = '${'wrap me '.repeat(40)}';`;
const FILES = {
  'src/a.ts': [
    'const first = 1;',
    'const second = 2;',
    'const third = first + second;',
    LONG_LINE,
    ...Array.from({ length: 40 }, (_, i) => `// line ${i + 5}`),
    '',
  ].join('\n'),
  'src/b.ts': 'export const b = 2;\n',
  'src/c.ts': 'export const c = 3;\n',
};

describe('editing in the window', { skip: !available && 'chromium is not installed' }, () => {
  let browser: Browser;
  let page: Page;
  let local: TestLocal;
  const problems: string[] = [];

  before(async () => {
    local = await startTestLocal({
      files: FILES,
      settings: { apiToken: 'loom_editing_test_token_0123456789abcdef', rateLimits: { default: 100_000, aiComplete: 100_000 } },
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
      ],
      problems,
    );
    await openSignedIn(page, local.signInLink());
    await page.locator('.tree-item.folder[data-path="src"]').click();
  });
  after(async () => {
    await browser?.close();
    await local?.close();
  });

  const open = async (file: string) => {
    await page.locator(`.tree-item.file[data-path="${file}"]`).click();
    await page.locator(`.tab.active[data-path="${file}"]`).waitFor();
  };
  const lines = () => page.evaluate(() => [...document.querySelectorAll('.cm-content .cm-line')].map((line) => line.textContent ?? ''));
  const waitForLine = (index: number, expected: string) =>
    waitFor(async () => (await lines())[index] === expected, undefined, `line ${index + 1} ${JSON.stringify(expected)}`).catch(async (error: Error) => {
      throw new Error(`${error.message}; the lines: ${JSON.stringify((await lines()).slice(0, 6))}`);
    });

  it('switches to the tab used before with Ctrl+Tab, closes with Ctrl+W, reopens with Ctrl+Shift+T', async () => {
    await open('src/a.ts');
    await open('src/b.ts');
    await open('src/c.ts');
    await page.keyboard.press('Control+Tab');
    await page.locator('.tab.active[data-path="src/b.ts"]').waitFor();
    // Held Ctrl, Tab twice: two back.
    await page.keyboard.down('Control');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.up('Control');
    await page.locator('.tab.active[data-path="src/a.ts"]').waitFor();
    await page.keyboard.press('Control+w');
    await page.locator('.tab[data-path="src/a.ts"]').waitFor({ state: 'detached' });
    await page.keyboard.press('Control+Shift+T');
    await page.locator('.tab.active[data-path="src/a.ts"]').waitFor();
  });

  it('opens a file by part of its name with Ctrl+P', async () => {
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+p');
    await page.locator('.quick-open .palette-input:focus').waitFor();
    await page.keyboard.type('bts');
    await page.locator('.quick-open .palette-item.chosen[data-path="src/b.ts"]').waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.tab.active[data-path="src/b.ts"]').waitFor();
    await page.locator('.tab[data-path="src/a.ts"]').click();
    await page.locator('.tab.active[data-path="src/a.ts"]').waitFor();
  });

  it('marks an unsaved tab and goes to a line with Ctrl+G', async () => {
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+g');
    const field = page.locator('.cm-dialog input');
    await field.waitFor();
    await field.fill('30');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await page.locator('#status-position').textContent()) === 'Ln 30, Col 1', undefined, 'the cursor on line 30');
    await page.keyboard.type('x');
    await page.locator('.tab.dirty[data-path="src/a.ts"] .unsaved', { hasText: '●' }).waitFor();
    await page.keyboard.press('Control+z');
  });

  it('wraps long lines with Alt+Z, and keeps the choice', async () => {
    const wrapped = page.locator('.cm-content.cm-lineWrapping');
    assert.equal(await wrapped.count(), 0);
    await page.keyboard.press('Alt+z');
    await wrapped.waitFor();
    await open('src/b.ts');
    await wrapped.waitFor();
    await page.reload();
    await page.locator('body[data-ready="true"]').waitFor();
    await wrapped.waitFor();
    await page.locator('.cm-content').click();
    await page.keyboard.press('Alt+z');
    await wrapped.waitFor({ state: 'detached' });
  });

  it("answers VS Code's keys: Ctrl+D, Alt+↓, Ctrl+/, Ctrl+Shift+K", async () => {
    await page.locator('.tab[data-path="src/a.ts"]').click();
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    // Ctrl+D twice from `first`: both occurrences selected; typing replaces both.
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Control+d');
    await page.keyboard.press('Control+d');
    await page.keyboard.type('one');
    await waitForLine(2, 'const third = one + second;');
    assert.equal((await lines())[0], 'const one = 1;');
    await page.keyboard.press('Escape');
    // Alt+↓ moves the line down.
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Alt+ArrowDown');
    await waitForLine(1, 'const one = 1;');
    assert.equal((await lines())[0], 'const second = 2;');
    // Ctrl+/ comments it, Ctrl+Shift+K deletes it.
    await page.keyboard.press('Control+/');
    await waitForLine(1, '// const one = 1;');
    await page.keyboard.press('Control+Shift+K');
    await waitForLine(1, 'const third = one + second;');
    await waitFor(
      async () => (await local.request('GET', '/api/editor/text?path=src/a.ts')).json.text.startsWith('const second = 2;\nconst third = one'),
      undefined,
      'the edits on the server',
    );
    assert.deepEqual(problems, []);
  });
});
